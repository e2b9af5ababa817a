import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactJson, compactJsonParts } from '../../../src/json/text.js';

describe('compactJsonParts', () => {
  it('joins into exactly compactJson, a part a megabyte or so at a time, strings with spaces and surrogate pairs included', () => {
    const row = (i: number) => ({
      id: i,
      text: `a  b\\n "q" ${'😀'.repeat(i % 3)} \t`,
      list: [1, 2, { x: null }],
    });
    const value = Array.from({ length: 40_000 }, (_, i) => row(i));
    const pretty = JSON.stringify(value, null, 2);
    const parts = [...compactJsonParts(pretty, 0, pretty.length)];
    expect(parts.length).toBeGreaterThan(2);
    expect(parts.join('')).toBe(compactJson(pretty, 0, pretty.length));
    expect(parts.join('')).toBe(JSON.stringify(value));
    for (const p of parts) expect(p.length).toBeLessThanOrEqual((1 << 20) + 1);
  });

  it('gives the same text as compactJson on any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 4 }), (v, indent) => {
        const pretty = JSON.stringify(v, null, indent) ?? 'null';
        expect([...compactJsonParts(pretty, 0, pretty.length)].join('')).toBe(
          compactJson(pretty, 0, pretty.length),
        );
      }),
    );
  });
});
