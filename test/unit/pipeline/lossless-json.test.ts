import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanJson } from '../../../src/json/text.js';
import { sameTokens, spaceDeletedEnd, unproven } from '../../../src/pipeline/lossless.js';

/** A pretty document with a random choice of its characters changed: deleted, doubled or replaced. */
const edited = fc
  .tuple(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom(1, 2, '\t'),
    fc.array(fc.tuple(fc.nat(), fc.constantFrom('delete', 'double', ' ', 'x', '"', '\\')), { maxLength: 6 }),
  )
  .map(([value, indent, edits]) => {
    const pretty = `[${JSON.stringify(value, null, indent)}, "a b"]`;
    let out = pretty;
    for (const [at, how] of edits) {
      const k = at % out.length;
      out =
        how === 'delete'
          ? out.slice(0, k) + out.slice(k + 1)
          : how === 'double'
            ? out.slice(0, k + 1) + out.slice(k)
            : out.slice(0, k) + how + out.slice(k + 1);
    }
    return [pretty, out] as const;
  });

describe("the json proof's one-pass case (a whitespace deletion)", () => {
  it('accepts only what the full check accepts, and ends the document where scanJson does', () => {
    fc.assert(
      fc.property(edited, ([input, output]) => {
        const end = spaceDeletedEnd(input, 0, input.length, output, 0);
        if (end < 0) return;
        const r = scanJson(output, 0);
        expect(r.ok && r.end).toBe(end);
        expect(sameTokens(input, 0, input.length, output, 0, end)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('answers the same whatever the window it reads the texts in', () => {
    fc.assert(
      fc.property(edited, fc.integer({ min: 1, max: 9 }), ([input, output], window) => {
        // Documents inside other text too: a prefix before each, and text after them.
        const a = `log: ${input} tail`;
        const b = `log: ${output} tail`;
        const whole = spaceDeletedEnd(a, 5, 5 + input.length, b, 5);
        expect(spaceDeletedEnd(a, 5, 5 + input.length, b, 5, window)).toBe(whole);
      }),
      { numRuns: 2000 },
    );
  });

  it('takes every compaction of a pretty document, strings kept whole', async () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom(1, 2, 4, '\t'), (value, indent) => {
        const pretty = JSON.stringify([value, 'x  y'], null, indent);
        const compact = JSON.stringify([value, 'x  y']);
        expect(spaceDeletedEnd(pretty, 0, pretty.length, compact, 0)).toBe(compact.length);
      }),
      { numRuns: 500 },
    );
    // Whitespace inside a string is not deletable; another escape spelling is left to the full check.
    expect(spaceDeletedEnd('[\n "a b"\n]', 0, 10, '["ab"]', 0)).toBe(-1);
    expect(spaceDeletedEnd('[\n "\\u0061"\n]', 0, 13, '["a"]', 0)).toBe(-1);
    expect(await unproven('json', '[\n "\\u0061"\n]', '["a"]')).toBeUndefined();
    expect(await unproven('json', '[\n "a b"\n]', '["ab"]')).toBe('changed the value of a JSON document');
  });
});
