import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactForModel } from '../../../../src/hosts/hook/compact.js';
import { tempDir } from '../../../helpers.js';
import { type ModelServer, openaiReply, startModelServer } from '../../../llm-server.js';
import { report, tempLedger } from '../../stats/helpers.js';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer([
    openaiReply('no program, sorry', { prompt_tokens: 1900, completion_tokens: 7 }),
  ]);
});
afterAll(() => server.close());

describe("the hook door and cg's own model calls", () => {
  it('records a run that changed nothing but paid for a model call', async () => {
    const dir = tempDir();
    const config = join(dir, 'cg.yaml');
    writeFileSync(
      config,
      'components:\n  extract: { strategy: code, min_output_tokens: 300 }\npreset: agent\n',
    );
    const { env: stateEnv, loc } = tempLedger();
    const env = {
      ...stateEnv,
      CG_CONFIG: config,
      CG_STORE_DIR: join(dir, 'store'),
      XDG_CONFIG_HOME: join(dir, 'xdg'),
      CG_MODEL: 'cheap',
      CG_MODEL_BASE_URL: server.openaiBaseUrl,
      CG_MODEL_API_KEY: 'k',
    };
    // One long line: the model is asked, writes no program, and the fallback has too few lines to cut.
    const text = 'lorem ipsum dolor sit amet '.repeat(120);
    const r = await compactForModel([{ text, command: 'cat notes.txt' }], {
      cwd: dir,
      env,
      host: 'claude-code',
    });
    expect(r.texts).toEqual([undefined]);
    expect(server.requests).toHaveLength(1);
    const stats = await report(loc);
    expect(stats.model).toMatchObject({ calls: 1, tokensIn: 1900, tokensOut: 7 });
    expect(stats.tokens.net).toBe(-1907);
  });
});
