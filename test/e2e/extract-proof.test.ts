import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { type ModelServer, startModelServer, textReply } from '../llm-server.js';
import { cgAsync } from './run-cg.js';

// A model-written filter that keeps each error line but cuts it inside a word: "cannot" → "can".
const CUTTING_FILTER =
  "```js\nfunction filter(text, query) {\n  return text.split('\\n').filter((l) => re_match('error', l))" +
  ".map((l) => l.slice(0, l.indexOf('cannot') + 3)).join('\\n');\n}\n```";
let server: ModelServer;

beforeAll(async () => {
  server = await startModelServer(textReply(CUTTING_FILTER));
});
afterAll(() => server.close());

const LOG = `${Array.from({ length: 400 }, (_, i) => (i === 7 ? 'step 7: error: cannot open file x7.txt' : `step ${i}: ok, wrote x${i}.txt`)).join('\n')}\n`;

describe('the deletion-only proof of a model-written filter', () => {
  it('refuses a result that cuts a word short ("error: can" for "error: cannot") and falls back', async () => {
    const dir = tempDir();
    const config = join(dir, 'cg.yaml');
    writeFileSync(config, 'components:\n  extract: { strategy: code, min_output_tokens: 500 }\n');
    const env = {
      CG_MODEL: 'cheap',
      CG_MODEL_API: 'openai',
      CG_MODEL_BASE_URL: server.openaiBaseUrl,
      CG_MODEL_API_KEY: 'sk-test',
    };
    const args = ['-c', 'extract', '--config', config, '--command', 'make', '--verbose'];
    const r = await cgAsync(args, { input: LOG, env, storeDir: join(dir, 'store') });
    expect(r.code).toBe(0);
    expect(server.requests.length).toBeGreaterThan(0);
    expect(r.out).not.toMatch(/error: can$/m);
    expect(r.out).toContain('step 7: error: cannot open file x7.txt');
    expect(r.stderr).toMatch(/not a subsequence of its words/);
  });
});
