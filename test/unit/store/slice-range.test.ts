import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config.js';
import { newTally } from '../../../src/mcp/stats.js';
import { callTool } from '../../../src/mcp/tools.js';
import { keyOf } from '../../../src/store/keys.js';
import { rangeProblem } from '../../../src/store/slice.js';
import { tempDir } from '../../helpers.js';
import { MemoryStore } from '../../memory-store.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('a --lines range past the end of an original', () => {
  it('is a problem that says how many lines there are when it starts past the last line', () => {
    const text = 'one\ntwo\nthree\n';
    expect(rangeProblem(text, { from: 3, to: 9 })).toBeUndefined();
    expect(rangeProblem(text, { from: 4, to: Number.POSITIVE_INFINITY })).toBe(
      '--lines 4-: the original has 3 lines',
    );
    expect(rangeProblem(text, { from: 7, to: 7 }, 'lines')).toBe('lines 7: the original has 3 lines');
    expect(rangeProblem('one', { from: 2, to: 5 })).toBe('--lines 2-5: the original has 1 line');
  });

  it('is a tool error of cg_expand too, not an empty answer', async () => {
    const dir = tempDir('cg-slice-range-');
    made.push(dir);
    const store = new MemoryStore();
    const original = 'a\nb\nc\n';
    await store.put(original);
    const key = keyOf(original);
    const ctx = {
      config: defaultConfig(),
      store,
      session: 's',
      tally: newTally(),
      env: { CG_STATE_DIR: join(dir, 'state') },
    };
    const past = await callTool('cg_expand', { key, lines: '10-' }, ctx);
    expect(past).toEqual({
      content: [{ type: 'text', text: 'lines 10-: the original has 3 lines' }],
      isError: true,
    });
    const fits = await callTool('cg_expand', { key, lines: '3-10' }, ctx);
    expect(fits).toEqual({ content: [{ type: 'text', text: 'c\n' }] });
  });
});
