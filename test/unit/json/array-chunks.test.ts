import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrayChunks, parseChunk } from '../../../src/json/array-chunks.js';

/** JSON.parse of every run, concatenated, and the runs' sizes. */
function runs(text: string, start: number, maxItems: number, maxChars: number) {
  const values: unknown[] = [];
  const counts: number[] = [];
  for (const c of arrayChunks(text, start, maxItems, maxChars)) {
    const v = parseChunk(text, c);
    expect(v.length).toBe(c.count);
    values.push(...v);
    counts.push(c.count);
  }
  return { values, counts };
}

describe('arrayChunks', () => {
  it('walks every element of any JSON array, however it is spaced, in runs of at most maxItems', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue(), { maxLength: 30 }),
        fc.constantFrom(undefined, 2, '\t', ' \n '),
        fc.integer({ min: 1, max: 7 }),
        (array, space, maxItems) => {
          const json = JSON.stringify(array, null, space as string | number | undefined);
          const text = `  ${json}\n`;
          const { values, counts } = runs(text, 2, maxItems, 1 << 20);
          expect(values).toEqual(JSON.parse(json));
          for (const n of counts) expect(n).toBeLessThanOrEqual(maxItems);
          expect(counts.slice(0, -1).every((n) => n === maxItems)).toBe(true);
        },
      ),
    );
  });

  it('ends a run early at an element that takes it past maxChars, so a big element is a run of its own', () => {
    const text = JSON.stringify(['a', 'b', 'x'.repeat(100), 'c', 'd']);
    expect(runs(text, 0, 10, 50).counts).toEqual([3, 2]);
    expect(runs(text, 0, 10, 1).counts).toEqual([1, 1, 1, 1, 1]);
  });

  it('yields nothing for an empty array', () => {
    expect(runs('[ \n ]', 0, 4, 100).counts).toEqual([]);
  });
});
