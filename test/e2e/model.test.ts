import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markerKeys } from '../../src/store/marker.js';
import { tempDir } from '../helpers.js';
import { type ModelServer, startModelServer, textReply } from '../llm-server.js';
import { cgAsync } from './run-cg.js';

const KEY = 'sk-e2e-secret-key-5f1c';
const FILTER =
  "```js\nfunction filter(text, query) {\n  return text.split('\\n').filter((l) => re_match('FAILED', l)).join('\\n');\n}\n```";
let server: ModelServer;

beforeAll(async () => {
  server = await startModelServer((req, i) =>
    textReply(req.api === 'anthropic' ? 'The agent listed the files and found the bug in f3.' : FILTER)(
      req,
      i,
    ),
  );
});
afterAll(() => server.close());

const LOG = `${Array.from({ length: 300 }, (_, i) => `tests/test_${i}.py::test_${i} PASSED`).join('\n')}\ntests/test_x.py::test_dates FAILED\n`;

function body() {
  const messages: unknown[] = [{ role: 'user', content: 'Fix the bug' }];
  for (let i = 0; i < 6; i++) {
    const content = Array.from(
      { length: 50 },
      (_, k) => `f${i}.py:${k}: def handler_${k}(request): pass`,
    ).join('\n');
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: 'grep' } }],
    });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content }] });
  }
  messages.push({ role: 'assistant', content: 'Found it.' }, { role: 'user', content: 'Fix it then.' });
  return JSON.stringify({ model: 'claude-x', system: 'You are an agent.', max_tokens: 100, messages });
}

describe('cg with a model', () => {
  it('summarises a long request body and expands the summary back to the exact messages', async () => {
    const dir = tempDir();
    const storeDir = join(dir, 'store');
    const config = join(dir, 'cg.yaml');
    writeFileSync(config, 'components:\n  summarize: { trigger: { min_request_tokens: 2000 } }\n');
    const env = {
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
    };
    const input = body();
    const r = await cgAsync(['-c', 'summarize', '--config', config, '--verbose'], { input, env, storeDir });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out) as { messages: { content: unknown }[] };
    expect(out.messages).toHaveLength(1 + 1 + 4);
    const summary = out.messages[1]!.content as string;
    expect(summary).toMatch(/^=== History Summary ===\nThe agent listed the files/);
    expect(r.stderr).toContain('summarize');
    expect(r.stderr).not.toContain(KEY);
    const [key] = markerKeys(summary);
    const back = await cgAsync(['expand', key!], { storeDir });
    const messages = (JSON.parse(input) as { messages: unknown[] }).messages;
    expect(back.out).toBe(JSON.stringify(messages.slice(1, 11)).slice(1, -1));
  });

  it('filters raw text with a model-written program and says so under --verbose', async () => {
    const dir = tempDir();
    const config = join(dir, 'cg.yaml');
    writeFileSync(config, 'components:\n  extract: { strategy: code, min_output_tokens: 500 }\n');
    const env = {
      CG_MODEL: 'cheap',
      CG_MODEL_API: 'openai',
      CG_MODEL_BASE_URL: server.openaiBaseUrl,
      CG_MODEL_API_KEY: KEY,
    };
    const args = ['-c', 'extract', '--config', config, '--command', 'pytest', '--verbose'];
    const r = await cgAsync(args, { input: LOG, env, storeDir: join(dir, 'store') });
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[0]).toBe('tests/test_x.py::test_dates FAILED');
    expect(r.out).toMatch(/\[model filter \(openai:cheap\) kept \d+ of \d+ characters\] <<cg:/);
    expect(r.stderr).not.toContain(KEY);
  });

  it('falls back quietly without a key, exit 0, and --verbose says why', async () => {
    const dir = tempDir();
    const config = join(dir, 'cg.yaml');
    writeFileSync(config, 'components:\n  extract: { strategy: code, min_output_tokens: 500 }\n');
    const env = { CG_MODEL: 'cheap', CG_MODEL_BASE_URL: server.openaiBaseUrl };
    const before = server.requests.length;
    const args = ['-c', 'extract', '--config', config, '--verbose'];
    const r = await cgAsync(args, { input: LOG, env, storeDir: join(dir, 'store') });
    expect(r.code).toBe(0);
    expect(server.requests.length).toBe(before);
    expect(r.out).toMatch(/\[kept \d+ of 301 lines\] <<cg:/);
    expect(r.stderr).toMatch(/model strategy not used: no model \(no API key/);
  });
});
