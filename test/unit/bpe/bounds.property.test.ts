import fc from 'fast-check';
import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it } from 'vitest';
import { fewerWithTag, tagBound } from '../../../src/pipeline/never-worse.js';
import { byteLength, createTokens, fewerByBytes, type TokenizerName } from '../../../src/tokens.js';

// The decisions the bounds make must be the decisions exact counts make: for every text, every
// comparison and every limit, whichever way the bounds went.
const asText = { disallowedSpecial: new Set<string>() };
const EXACT = { o200k: (t: string) => o200k(t, asText), cl100k: (t: string) => cl100k(t, asText) };
const SPLIT = { o200k: O200K_TOKEN_SPLIT_REGEX, cl100k: CL100K_TOKEN_SPLIT_REGEX };
const pieces = (name: TokenizerName, t: string) => [...t.matchAll(new RegExp(SPLIT[name]))].length;

const FRAGMENTS = [
  'the',
  ' quick',
  ' brown',
  ' fox',
  'Error',
  ': ',
  'TypeError',
  ' at ',
  'line',
  ' 42',
  '\n',
  '\n\n',
  '    ',
  '\t',
  '{',
  '}',
  '[',
  ']',
  '"id"',
  ': ',
  '12345',
  '0.5',
  ',',
  ',\n  ',
  '"name": "item-7"',
  'null',
  'true',
  '2026-11-01T08:00:00Z',
  ' INFO ',
  '[worker-3]',
  ' request id=7919',
  ' status=200',
  '/usr/lib/x86_64',
  'def f(x):',
  '  return x',
  'PASSED',
  'FAILED',
  ' tests/test_calc.py::test_case_9',
  '=====',
  '-----',
  'naïve',
  ' café',
  '日本語のテキスト',
  '🎉',
  'zzqxjv',
  'ǅungla',
  "don't",
  "'re",
  '\r\n',
  '<|endoftext|>',
  '<<cg:',
  'a'.repeat(60),
  '['.repeat(30),
  ' '.repeat(50),
];
const text = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 60 }).map((p) => p.join(''));

/** A rewrite of t: some of its fragments dropped or some whitespace removed, so counts come close. */
const pair = fc
  .tuple(text, fc.array(fc.boolean(), { minLength: 60, maxLength: 60 }), fc.boolean())
  .map(([t, keep, squeeze]) => {
    const lines = t.split('\n');
    const kept = lines.filter((_, i) => keep[i % keep.length]).join('\n');
    return [t, squeeze ? kept.replace(/[ \t]+/g, ' ') : kept] as const;
  });

describe.each(['o200k', 'cl100k'] as const)('with %s, the bounds decide as the counts would', (name) => {
  const exact = EXACT[name];

  it('bound every text from below and above, and name its pieces', async () => {
    const tokens = createTokens(name);
    await fc.assert(
      fc.asyncProperty(text, async (t) => {
        const b = await tokens.bounds(t);
        const n = exact(t);
        expect(b.lower).toBeLessThanOrEqual(n);
        expect(b.upper).toBeGreaterThanOrEqual(n);
        expect(b.pieces).toBe(pieces(name, t));
        expect(await tokens.atLeast(t)).toBe(b.pieces);
      }),
      { numRuns: 400 },
    );
  });

  it('answer exceeds(text, limit) exactly for limits on both sides of the bounds', async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.integer({ min: -3, max: 3 }), fc.nat(2), async (t, delta, which) => {
        const tokens = createTokens(name);
        const b = await createTokens(name).bounds(t);
        const limit = Math.max(0, [exact(t), b.lower, b.upper][which]! + delta);
        expect(await tokens.exceeds(t, limit)).toBe(exact(t) > limit);
      }),
      { numRuns: 400 },
    );
  });

  it('answer fewer(a, b) exactly, for unrelated texts and for rewrites of one another', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.tuple(text, text), pair), async ([a, b]) => {
        const tokens = createTokens(name);
        expect(await tokens.fewer(a, b)).toBe(exact(a) < exact(b));
        expect(await tokens.fewer(b, a)).toBe(exact(b) < exact(a));
      }),
      { numRuns: 400 },
    );
  });

  it('answer the marker rule exactly as counting bare text, tag and input would', async () => {
    const tag = tagBound(' [full output: cg expand {key}]', undefined);
    await fc.assert(
      fc.asyncProperty(pair, async ([input, bare]) => {
        // The rule before any bound beyond bytes and pieces: bytes, pieces, then the counts.
        const upperBytes = byteLength(bare) + byteLength(tag.sample);
        const want =
          fewerByBytes(upperBytes, byteLength(input)) ??
          (upperBytes < pieces(name, input) ||
            exact(bare) + exact(tag.keyless) + 16 * tag.keys + 2 < exact(input));
        expect(await fewerWithTag(createTokens(name), bare, tag, input)).toBe(want);
      }),
      { numRuns: 400 },
    );
  });
});
