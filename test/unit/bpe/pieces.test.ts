import fc from 'fast-check';
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it } from 'vitest';
import { isFixedBoundary, PieceScanner, PUNCT_RANGES } from '../../../src/bpe/pieces.js';

const ENCODINGS = [
  ['o200k', O200K_TOKEN_SPLIT_REGEX],
  ['cl100k', CL100K_TOKEN_SPLIT_REGEX],
] as const;

/** The piece ends gpt-tokenizer's own split regex finds. */
function regexEnds(text: string, regex: RegExp): number[] {
  return [...text.matchAll(new RegExp(regex))].map((m) => m.index + m[0].length);
}

function scannerEnds(text: string, scanner: PieceScanner): number[] {
  const ends: number[] = [];
  for (let i = 0; i < text.length; ) {
    i = scanner.end(text, i);
    ends.push(i);
  }
  return ends;
}

// Every character class the split regexes tell apart, ASCII and not: letters of both cases,
// contractions, digits, newlines, spaces and tabs, punctuation and the '/' tail, and non-ASCII
// letters, marks, digits, spaces and emoji where the regex itself decides.
const PARTS = [
  'a',
  'Z',
  'the',
  'The',
  'HTTP',
  'Hello',
  "'s",
  "'T",
  "'ll",
  "'Ve",
  "'re",
  "'x",
  "'",
  '0',
  '12',
  '1234',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  '\n\n',
  ' \n ',
  '\v',
  '\f',
  '"',
  '":',
  ',"',
  '{',
  '}',
  '[',
  ']',
  '/',
  '//',
  '-',
  '_',
  '.',
  '\u0000',
  '\u007f',
  'é',
  'É',
  'ß',
  '日本',
  '\u0301',
  '\u00a0',
  '\u3000',
  '٣',
  '²',
  '🎉',
  '\u2028',
  'ǅ',
  'ʰ',
  // Symbols and punctuation the scanner decides as it decides ASCII punctuation (PUNCT_RANGES).
  '×',
  '…',
  '→',
  '─',
  '“',
  '÷',
  '•',
  '✓',
  '\u00aa',
  '\u2776',
];
const text = fc.array(fc.constantFrom(...PARTS), { maxLength: 40 }).map((p) => p.join(''));

describe('the fast pre-split', () => {
  it('treats as punctuation only assigned characters that are no letter, mark, digit or space', () => {
    // What makes a character act as ASCII punctuation does in every alternative of both regexes;
    // an unassigned code point is refused too, as a later Unicode may make it a letter.
    const other = /[\p{L}\p{M}\p{N}\s\p{Cn}]/u;
    for (const [from, to] of PUNCT_RANGES)
      for (let c = from; c <= to; c++) expect(other.test(String.fromCharCode(c)), c.toString(16)).toBe(false);
  });

  it.each(ENCODINGS)('cuts text full of those symbols where %s split regex cuts it', (name, regex) => {
    const scanner = new PieceScanner(name, regex);
    const symbols = PUNCT_RANGES.flatMap(([from, to]) =>
      Array.from({ length: to - from + 1 }, (_, i) => String.fromCharCode(from + i)),
    );
    const mixed = fc
      .array(fc.oneof(fc.constantFrom(...symbols), fc.constantFrom(...PARTS)), { maxLength: 40 })
      .map((p) => p.join(''));
    fc.assert(
      fc.property(mixed, (t) => {
        expect(scannerEnds(t, scanner)).toEqual(regexEnds(t, regex));
      }),
      { numRuns: 3000 },
    );
  });

  it.each(ENCODINGS)('cuts %s pieces the same given only the regex source and flags', (name, regex) => {
    // The lazy form the tokenizer passes: the sticky regex is built from these on the first piece
    // the ASCII scanner cannot decide.
    const scanner = new PieceScanner(name, { source: regex.source, flags: regex.flags });
    for (const t of ["naïve café — it's ÜBER 12345 日本語テキスト\r\n\t x", 'plain ascii only', 'Ωμέγα😀 x'])
      expect(scannerEnds(t, scanner), t).toEqual(regexEnds(t, regex));
  });

  it.each(ENCODINGS)('cuts every text where %s split regex cuts it', (name, regex) => {
    const scanner = new PieceScanner(name, regex);
    fc.assert(
      fc.property(text, (t) => {
        expect(scannerEnds(t, scanner)).toEqual(regexEnds(t, regex));
        expect(scanner.count(t)).toBe(regexEnds(t, regex).length);
      }),
      { numRuns: 3000 },
    );
  });

  it.each(ENCODINGS)('cuts pretty-printed JSON and code where %s split regex cuts it', (name, regex) => {
    const scanner = new PieceScanner(name, regex);
    const samples = [
      JSON.stringify(
        { id: 7, name: "it's 12.5%", tags: ['a/b', 'ÜBER'], nested: { ok: true, n: null } },
        null,
        2,
      ),
      "function f(a: number): void {\n\treturn a // don't\n}\r\n",
      '  \n\n   x  y\t\tz   ',
      'end with spaces   ',
      'end with newline\n',
    ];
    for (const t of samples) expect(scannerEnds(t, scanner)).toEqual(regexEnds(t, regex));
  });

  it.each(ENCODINGS)(
    'places a fixed boundary only where %s split regex cuts, whatever comes before',
    (_name, regex) => {
      fc.assert(
        fc.property(text, text, (before, after) => {
          const t = before + after;
          const ends = new Set([0, ...regexEnds(t, regex)]);
          for (let p = 0; p <= t.length; p++) if (isFixedBoundary(t, p)) expect(ends.has(p)).toBe(true);
        }),
        { numRuns: 2000 },
      );
    },
  );
});
