import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers.js';
import { BIN } from './run-cg.js';

describe('exact token counts in the built CLI', () => {
  it("count with the vocabulary tables beside the bundle, never loading gpt-tokenizer's rank modules", () => {
    const dir = tempDir('cg-tokenizer-load-');
    const loaded = join(dir, 'loaded');
    // --explain counts the input and the output exactly, in both encodings' table when asked.
    const input = `${'2026-11-01 INFO request id=7 took=12ms status=200\n'.repeat(400)}`;
    for (const tokenizer of ['o200k', 'cl100k']) {
      const r = spawnSync(
        process.execPath,
        ['--import', join(ROOT, 'bench', 'tokenizer-probe.mjs'), BIN, '--explain', '--tokenizer', tokenizer],
        {
          input,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: dir,
            XDG_CONFIG_HOME: join(dir, 'cfg'),
            CG_STORE_DIR: join(dir, 'store'),
            CG_STATE_DIR: join(dir, 'state'),
            CG_BENCH_TOKENIZER_FILE: loaded,
          },
        },
      );
      expect(r.status).toBe(0);
      expect(r.stderr.toString()).toMatch(/\d+ → \d+|tokens/);
    }
    expect(existsSync(loaded) ? readFileSync(loaded, 'utf8') : '').toBe('');
    expect(existsSync(join(ROOT, 'dist', 'o200k.bpe')) && existsSync(join(ROOT, 'dist', 'cl100k.bpe'))).toBe(
      true,
    );
  });
});
