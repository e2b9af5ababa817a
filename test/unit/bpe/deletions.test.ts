import fc from 'fast-check';
import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { deletionDelta } from '../../../src/bpe/deletions.js';
import { createTokens } from '../../../src/tokens.js';
import { seededRandom } from '../../helpers.js';

const asText = { disallowedSpecial: new Set<string>() };
const EXACT = { o200k: (t: string) => o200k(t, asText), cl100k: (t: string) => cl100k(t, asText) };

const FRAGMENTS = [
  '{',
  '}',
  '[',
  ']',
  '"id"',
  '"name"',
  ':',
  ',',
  '"item-7"',
  '12',
  '3.25',
  'true',
  'null',
  '"cat the"',
  'cat',
  'the',
  'foo',
  'zz',
  'HTTP',
  "don't",
  '"é"',
  '日本',
  '🎉',
  '\u00a0',
  '//',
  '::',
  '-',
  '_x',
  'a1',
  '1a',
  ' ',
  '  ',
  '    ',
  '\n',
  '\n  ',
  '\n    ',
  '\t',
  '\r\n',
  ' \n',
  '\n\n',
  '\r',
  '\v',
  '\f',
  '1234567',
  "'s",
  "'LL",
  'ABc',
  'xY',
  'é',
  'e\u0301',
  '٣',
  '_',
  '\ufeff',
];
/** A text and the same text with a random choice of its ASCII whitespace characters deleted. */
const deletion = fc
  .tuple(
    fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 80 }),
    fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }),
  )
  .map(([parts, drop]) => {
    const longer = parts.join('');
    let k = 0;
    const shorter = [...longer]
      .filter((ch) => !(/[ \t\n\v\f\r]/.test(ch) && drop[k++ % drop.length]))
      .join('');
    return [longer, shorter] as const;
  });

describe.each(['o200k', 'cl100k'] as const)('a whitespace deletion with %s', (name) => {
  const exact = EXACT[name];

  it('changes the count by exactly what the stretches around its runs say, however pieces merge there', async () => {
    const { loadExactCounter } = await import('../../../src/bpe/count.js');
    const counter = await loadExactCounter(name);
    fc.assert(
      fc.property(deletion, ([longer, shorter]) => {
        const d = deletionDelta(longer, shorter, (s) => counter.countNow(s));
        // Only a byte-order mark makes a stretch uncountable on the spot (count.ts).
        if (d === undefined) expect(longer).toContain('\ufeff');
        else expect(d).toBe(exact(shorter) - exact(longer));
      }),
      { numRuns: 1500 },
    );
  });

  it("of pretty-printed JSON to compact JSON changes the count by exactly the full counts' difference", async () => {
    const { loadExactCounter } = await import('../../../src/bpe/count.js');
    const counter = await loadExactCounter(name);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom(1, 2, 4, '\t'), (value, indent) => {
        const pretty = JSON.stringify(value, null, indent);
        const compact = JSON.stringify(value);
        const d = deletionDelta(pretty, compact, (s) => counter.countNow(s));
        if (d === undefined) expect(pretty).toContain('\ufeff');
        else expect(d).toBe(exact(compact) - exact(pretty));
      }),
      { numRuns: 500 },
    );
  });

  it('read a few units at a time (window edges everywhere), gives what one whole window gives', async () => {
    const { loadExactCounter } = await import('../../../src/bpe/count.js');
    const counter = await loadExactCounter(name);
    const count = (s: string) => counter.countNow(s);
    fc.assert(
      fc.property(deletion, fc.integer({ min: 1, max: 24 }), ([longer, shorter], size) => {
        const whole = deletionDelta(longer, shorter, count);
        // Growing as far as it takes, small windows find the same stretches.
        expect(deletionDelta(longer, shorter, count, count, { size, max: 1 << 20 })).toBe(whole);
        // Not allowed to grow, a stretch wider than the window leaves the deletion to whole counts.
        const capped = deletionDelta(longer, shorter, count, count, { size, max: size });
        if (capped !== undefined) expect(capped).toBe(whole);
      }),
      { numRuns: 400 },
    );
  });

  it('is judged fewer exactly when the counts say so', async () => {
    await fc.assert(
      fc.asyncProperty(deletion, async ([longer, shorter]) => {
        expect(await createTokens(name).fewer(shorter, longer)).toBe(exact(shorter) < exact(longer));
      }),
      { numRuns: 500 },
    );
  });
});

describe('whitespace deletions', () => {
  it('are not fewer tokens when they join words into more tokens ("cat the" → "catthe" in o200k)', async () => {
    const longer = `${'{"note": "first line"}\n'.repeat(30)}cat the\n`;
    const shorter = `${'{"note": "first line"}\n'.repeat(30)}catthe\n`;
    expect(EXACT.o200k(shorter)).toBeGreaterThan(EXACT.o200k(longer));
    expect(await createTokens('o200k').fewer(shorter, longer)).toBe(false);
  });

  it('of pretty-printed JSON are decided by their stretches, without counting either whole text', async () => {
    const value = Array.from({ length: 300 }, (_, i) => ({
      id: i,
      name: `item-${i}`,
      tags: ['a', 'b'],
      ok: i % 2 === 0,
    }));
    const pretty = JSON.stringify(value, null, 2);
    const compact = JSON.stringify(value);
    const t = createTokens('o200k');
    expect(EXACT.o200k(compact)).toBeLessThan(EXACT.o200k(pretty));
    expect(await t.fewer(compact, pretty)).toBe(true);
    // Decided from the stretches' bounds: not even a stretch was counted with the vocabulary.
    expect(t.exactCounts).toBe(0);
  });

  it('bound the difference from above when the shorter text is bounded from above and the longer from below', async () => {
    const { loadExactCounter } = await import('../../../src/bpe/count.js');
    const { pieceBounds } = await import('../../../src/bpe/bounds.js');
    const counter = await loadExactCounter('o200k');
    const random = seededRandom(17);
    for (let n = 0; n < 40; n++) {
      const value = Array.from({ length: 20 + Math.floor(random() * 60) }, (_, i) => ({
        k: i,
        word: ['cat', 'naïve', 'Zürich', '東京', 'x y', ''][Math.floor(random() * 6)],
        on: random() < 0.5,
      }));
      const pretty = JSON.stringify(value, null, 1 + Math.floor(random() * 4));
      const compact = JSON.stringify(value);
      const exact = deletionDelta(pretty, compact, (s) => counter.countNow(s));
      const most = deletionDelta(
        pretty,
        compact,
        (s) => pieceBounds(s, counter.scanner).lower,
        (s) => pieceBounds(s, counter.scanner).upper,
      );
      expect(exact).toBe(EXACT.o200k(compact) - EXACT.o200k(pretty));
      expect(most).toBeGreaterThanOrEqual(exact!);
    }
  });

  it('of a 200 KB pretty array never hand either whole text to the counter: only stretches of a few characters', async () => {
    const { loadExactCounter } = await import('../../../src/bpe/count.js');
    const counter = await loadExactCounter('o200k');
    const value = Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `item-${i}`, tags: ['a', i % 7] }));
    const pretty = JSON.stringify(value, null, 2);
    const compact = JSON.stringify(value);
    const seen: number[] = [];
    const d = deletionDelta(pretty, compact, (s) => {
      seen.push(s.length);
      return counter.countNow(s);
    });
    expect(d).toBe(EXACT.o200k(compact) - EXACT.o200k(pretty));
    expect(Math.max(...seen)).toBeLessThan(40);
    // Repeated stretches are counted once: what is counted is a fraction of the text.
    expect(seen.reduce((n, x) => n + x, 0)).toBeLessThan(pretty.length / 4);
  });

  it('of a document many windows long meet the same stretches in the growing first windows as in one window', async () => {
    const { loadExactCounter } = await import('../../../src/bpe/count.js');
    const counter = await loadExactCounter('o200k');
    // Unique numbers and words make thousands of distinct stretches (the memo's pool grows many times
    // and its probes collide); a long indent and long strings put stretches across window edges.
    const value = Array.from({ length: 3000 }, (_, i) => ({
      id: i * 7919,
      name: `item-${i}`,
      note: 'word '.repeat(i % 50),
      nested: { deep: [i % 3, `t${i % 13}`] },
    }));
    const pretty = JSON.stringify(value, null, 6);
    const compact = JSON.stringify(value);
    const run = (windows?: { size: number; max: number }) => {
      const seen: string[] = [];
      const d = deletionDelta(
        pretty,
        compact,
        (s) => {
          seen.push(s);
          return counter.countNow(s);
        },
        undefined,
        windows,
      );
      return { d, seen };
    };
    const whole = run({ size: 1 << 23, max: 1 << 23 });
    expect(whole.d).toBe(EXACT.o200k(compact) - EXACT.o200k(pretty));
    expect(run()).toEqual(whole);
    expect(run({ size: 5000, max: 1 << 20 })).toEqual(whole);
  });

  it('of the same stretch in different ways are each counted as what they deleted', async () => {
    const { loadExactCounter } = await import('../../../src/bpe/count.js');
    const counter = await loadExactCounter('o200k');
    const longer = 'x1 \t\n y2, x1 \t\n y2, x1 \t\n y2, x1 \t\n y2';
    const shorter = 'x1\t\n y2, x1 \ny2, x1 \t y2, x1y2';
    expect(deletionDelta(longer, shorter, (t) => counter.countNow(t))).toBe(
      EXACT.o200k(shorter) - EXACT.o200k(longer),
    );
  });

  it('are only what they say: a change of anything but whitespace, or an added character, is no deletion', () => {
    const none = () => 0;
    expect(deletionDelta('{ "a": 1 }', '{"a":1}', none)).toBe(0);
    expect(deletionDelta('{ "a": 1 }', '{"a":2}', none)).toBeUndefined();
    expect(deletionDelta('a b', 'a  b', none)).toBeUndefined();
    expect(deletionDelta('a\u00a0b', 'ab', none)).toBeUndefined();
    expect(deletionDelta('ab ', 'ab c', none)).toBeUndefined();
    expect(deletionDelta('ab', 'a', none)).toBeUndefined();
  });
});
