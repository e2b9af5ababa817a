import { describe, expect, it } from 'vitest';
import { cg } from './run-cg.js';

describe('a large rewritten output', () => {
  it('comes out whole when written in slices, a surrogate pair across a slice edge included', () => {
    // The compact output's string opens at index 2: its emoji's high surrogate sits at 2^22 − 1,
    // the last unit of the first 4 Mi-unit write slice.
    const filler = 'word '.repeat(2 ** 20).slice(0, 2 ** 22 - 3);
    const value = [`${filler}🎉 and more`, 'second 🎉'];
    const pretty = `${JSON.stringify(value, null, 2)}\n`;
    const r = cg(['--components', 'format'], { input: pretty });
    expect(r.code).toBe(0);
    expect(r.stdout.equals(Buffer.from(`${JSON.stringify(value)}\n`))).toBe(true);
  });
});
