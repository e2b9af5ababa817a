/**
 * isSubsequence: the proof that a model-written filter only deleted. By code points, so surrogate
 * halves can neither be dropped alone nor recombined into a character the input never had.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSubsequence, isTokenSubsequence } from '../../../src/llm/subsequence.js';

describe('isSubsequence', () => {
  it('accepts deletions of whole lines and of characters within lines', () => {
    const input = 'error: a.ts:3 missing ;\nok: b.ts\nerror: c.ts:9 bad type\n';
    expect(isSubsequence('error: a.ts:3 missing ;\nerror: c.ts:9 bad type\n', input)).toBe(true);
    expect(isSubsequence('error: a.ts:3\nerror: c.ts:9\n', input)).toBe(true);
    expect(isSubsequence(input, input)).toBe(true);
  });

  it('rejects insertions, reorderings and substitutions', () => {
    const input = 'alpha\nbeta\ngamma';
    expect(isSubsequence('alpha\n…\ngamma', input)).toBe(false);
    expect(isSubsequence('beta\nalpha', input)).toBe(false);
    expect(isSubsequence('alpha\nBeta', input)).toBe(false);
    expect(isSubsequence('alpha\nbeta\ngamma\n', input)).toBe(false);
  });

  it('handles empty strings', () => {
    expect(isSubsequence('', '')).toBe(true);
    expect(isSubsequence('', 'anything')).toBe(true);
    expect(isSubsequence('a', '')).toBe(false);
  });

  it('keeps surrogate pairs whole: a dropped emoji is a deletion, a recombined one is not', () => {
    const input = '😀x🤔'; // D83D DE00, x, D83E DD14
    expect(isSubsequence('😀🤔', input)).toBe(true);
    expect(isSubsequence('x', input)).toBe(true);
    // U+1F514 is D83D DD14: a subsequence by UTF-16 code units, but never a character of the input.
    expect(isSubsequence('\uD83D\uDD14', input)).toBe(false);
    expect(isSubsequence('\uD83D\uDD14', '\uD83D\uDE00\uD83E\uDD14')).toBe(false);
  });

  it('rejects a result that is not well-formed UTF-16', () => {
    expect(isSubsequence('\uD83D', '😀')).toBe(false);
    expect(isSubsequence('a\uDE00', 'a\uDE00')).toBe(false);
  });

  it('is linear: a 5 MB input with every other line kept is checked quickly', () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `line ${i} ${'·'.repeat(40)} 😀`);
    const input = lines.join('\n');
    const result = lines.filter((_, i) => i % 2 === 0).join('\n');
    const started = performance.now();
    expect(isSubsequence(result, input)).toBe(true);
    expect(isSubsequence(`${result}!`, input)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('accepts any deletion mask of any string (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }).chain((s) => {
          const points = Array.from(s);
          return fc.tuple(
            fc.constant(points),
            fc.array(fc.boolean(), { minLength: points.length, maxLength: points.length }),
          );
        }),
        ([points, mask]) => {
          const kept = points.filter((_, i) => mask[i]).join('');
          expect(isSubsequence(kept, points.join(''))).toBe(true);
        },
      ),
    );
  });

  it('rejects a character inserted that the input does not have (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.nat(), (s, at) => {
        const points = Array.from(s).filter((c) => c !== '\u0000');
        const i = points.length === 0 ? 0 : at % (points.length + 1);
        const inserted = [...points.slice(0, i), '\u0000', ...points.slice(i)].join('');
        expect(isSubsequence(inserted, points.join(''))).toBe(false);
      }),
    );
  });
});

describe('isTokenSubsequence', () => {
  const log = 'tests/a.py::test_one PASSED\ntests/b.py::test_two FAILED\n3 failed, 1 bypassed in 2.0s\n';

  it('accepts deleted lines, words and the characters between them', () => {
    expect(isTokenSubsequence('tests/b.py::test_two FAILED\n3 failed\n', log)).toBe(true);
    expect(isTokenSubsequence('test_two FAILED', log)).toBe(true);
    expect(isTokenSubsequence('', log)).toBe(true);
  });

  it('refuses a word spelled from letters picked elsewhere, which a character check would let through', () => {
    expect(isSubsequence('a passed', log)).toBe(true);
    expect(isTokenSubsequence('a passed', log)).toBe(false);
    expect(isTokenSubsequence('passed', log)).toBe(false); // only "bypassed" and "PASSED" are there
  });

  it('refuses a word cut short anywhere, at a line end too: "error: can" is no deletion of "error: cannot"', () => {
    const line = 'step 7: error: cannot open file x7.txt\n';
    expect(isTokenSubsequence('step 7: error: can', line)).toBe(false);
    expect(isTokenSubsequence('step 7: error: can\n', line)).toBe(false);
    expect(isTokenSubsequence('tests/a.py::test_on\n', log)).toBe(false);
    expect(isTokenSubsequence('tests/a.py::test_on PASSED', log)).toBe(false);
    expect(isTokenSubsequence('step 7: error: cannot open file\n', line)).toBe(true);
  });

  it('keeps words joined by an apostrophe, hyphen or dot, and a number with its sign, whole', () => {
    expect(isTokenSubsequence('I can stop', "I can't stop")).toBe(false);
    expect(isTokenSubsequence('exit status: zero', 'exit status: non-zero')).toBe(false);
    expect(isTokenSubsequence('open x7', 'open x7.txt')).toBe(false);
    expect(isTokenSubsequence('took 5s', 'took 0.5s')).toBe(false);
    expect(isTokenSubsequence('total 000', 'total 1,000')).toBe(false);
    expect(isTokenSubsequence('offset 5', 'offset -5')).toBe(false);
    expect(isTokenSubsequence("I can't", "I can't stop")).toBe(true);
    expect(isTokenSubsequence('a,c', 'a,b,c')).toBe(true); // fields of a list are words of their own
    expect(isTokenSubsequence('--verify', '--no-verify --verify')).toBe(true);
  });

  it('refuses reordering, insertion and a lone surrogate', () => {
    expect(isTokenSubsequence('FAILED test_two', log)).toBe(false);
    expect(isTokenSubsequence('test_two NOT FAILED', log)).toBe(false);
    expect(isTokenSubsequence('a\uD83D', 'a\uD83D\uDE00')).toBe(false);
  });

  it('accepts any deletion of whole words with the separator after them', () => {
    const word = fc.constantFrom('alpha', 'beta', 'gamma_2', 'ü', '42');
    const sep = fc.constantFrom(' ', '\n', ', ', '😀', '::');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(word, sep), { maxLength: 30 }),
        fc.array(fc.boolean(), { maxLength: 30 }),
        (units, keep) => {
          const input = units.map(([w, s]) => w + s).join('');
          const kept = units
            .filter((_, i) => keep[i] ?? true)
            .map(([w, s]) => w + s)
            .join('');
          return isTokenSubsequence(kept, input);
        },
      ),
    );
  });
});
