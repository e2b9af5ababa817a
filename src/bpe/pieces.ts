/**
 * The tokenizer's pre-split, fast: where each piece of a text ends, exactly as gpt-tokenizer's split
 * regex (o200k or cl100k) cuts it, without running that regex on ASCII text. A token never spans two
 * pieces, so the pieces bound the token count from below (each is at least one token) and, with the
 * pieces known to be single tokens, from above (bounds.ts).
 *
 * The regex has no look-behind: the piece starting at a boundary depends only on the text from
 * there on, so pieces can be found one by one from any boundary. For a piece whose every examined
 * character is ASCII, the alternatives are decided here by character class (a transcription of the
 * regex, checked against it by a property test), and so for the non-ASCII symbols and punctuation
 * of PUNCT_RANGES, which the regex treats as it treats ASCII punctuation; wherever any other
 * non-ASCII character takes part (it may be a letter, a mark, a digit or a space of any script), the
 * regex itself decides that one piece,
 * run sticky at the boundary on the whole text. The regex always matches at a boundary: every
 * character is a letter, a digit, a space or something else, and each has an alternative.
 */
import type { TokenizerName } from '../tokens.js';

const END = 0;
const UP = 1; // A-Z
const LO = 2; // a-z
const DIGIT = 3;
const NEWLINE = 4; // \r \n
const SPACE = 5; // \t \v \f and ' ': whitespace that is not a newline
const PUNCT = 6; // anything else ASCII: not a letter, digit or whitespace
const WIDE = 7; // not ASCII (and not in PUNCT_RANGES): the regex decides

const CLASS = (() => {
  const t = new Uint8Array(128).fill(PUNCT);
  for (let c = 0x41; c <= 0x5a; c++) t[c] = UP;
  for (let c = 0x61; c <= 0x7a; c++) t[c] = LO;
  for (let c = 0x30; c <= 0x39; c++) t[c] = DIGIT;
  t[10] = t[13] = NEWLINE;
  t[9] = t[11] = t[12] = t[32] = SPACE;
  return t;
})();

/**
 * Non-ASCII characters that every alternative of both split regexes treats exactly as ASCII
 * punctuation: symbols and punctuation (no letter, mark, digit, whitespace, nor an unassigned code
 * point a later Unicode could make one), the ones cg itself writes among them (`×` and `…` in its
 * folds, `→`, box drawing). Without them a compacted output's first `×` built the Unicode regex
 * below, 10–30 ms of a hook call. Checked code point by code point against the regex's classes
 * (test/unit/bpe/pieces.test.ts).
 */
export const PUNCT_RANGES: readonly (readonly [number, number])[] = [
  [0xa1, 0xa9], // ¡ ¢ £ ¤ ¥ ¦ § ¨ ©
  [0xab, 0xac], // « ¬
  [0xae, 0xb1], // ® ¯ ° ±
  [0xb4, 0xb4], // ´
  [0xb6, 0xb8], // ¶ · ¸
  [0xbb, 0xbb], // »
  [0xbf, 0xbf], // ¿
  [0xd7, 0xd7], // ×
  [0xf7, 0xf7], // ÷
  [0x2010, 0x2027], // dashes, quotes, bullets, … (not U+2028/2029: whitespace)
  [0x2030, 0x205e], // ‰ ′ ‹ › ※ … (not U+205F: whitespace)
  [0x2190, 0x23ff], // arrows, mathematical operators, technical symbols
  [0x2500, 0x2775], // box drawing, blocks, shapes, symbols, dingbats (not the dingbat digits)
  [0x2794, 0x27bf], // dingbats after the digits
];

const WIDE_CLASS = (() => {
  const t = new Uint8Array(0x27c0).fill(WIDE);
  for (const [a, b] of PUNCT_RANGES) t.fill(PUNCT, a, b + 1);
  return t;
})();

function cls(text: string, i: number): number {
  if (i >= text.length) return END;
  const c = text.charCodeAt(i);
  return c < 128 ? CLASS[c]! : c < 0x27c0 ? WIDE_CLASS[c]! : WIDE;
}

/** Returned by the ASCII scanners when a non-ASCII character takes part: ask the regex. */
const ASK = -1;

function runEnd(text: string, i: number, a: number, b = a): number {
  let k = i;
  for (;;) {
    const k2 = cls(text, k);
    if (k2 !== a && k2 !== b) return k;
    k++;
  }
}

/** After a letter run ending at m: the end of an English contraction ('s 'd 'm 't 'll 've 're), or m. */
function contraction(text: string, m: number): number {
  if (text.charCodeAt(m) !== 0x27) return m;
  const x = text.charCodeAt(m + 1) | 0x20;
  if (x === 0x73 || x === 0x64 || x === 0x6d || x === 0x74) return m + 2;
  const y = text.charCodeAt(m + 2) | 0x20;
  if ((x === 0x6c && y === 0x6c) || (x === 0x76 && y === 0x65) || (x === 0x72 && y === 0x65)) return m + 3;
  return m;
}

/**
 * The end of the whitespace piece starting at i (text[i] is whitespace), given the alternatives
 * after the letter, digit and punctuation ones; ASK when the run stops at a non-ASCII character.
 */
function spaceEnd(text: string, i: number, o200k: boolean): number {
  const k = runEnd(text, i, SPACE, NEWLINE);
  if (cls(text, k) === WIDE) return ASK;
  if (!o200k && k === text.length) return k; // cl100k \s+$
  // o200k \s*[\r\n]+, cl100k \s*[\r\n]: up to the run's last newline.
  for (let j = k - 1; j >= i; j--) if (cls(text, j) === NEWLINE) return j + 1;
  // \s+(?!\S): the run, less its last character unless the text ends there.
  if (k === text.length) return k;
  if (k - i >= 2) return k - 1;
  return o200k ? k : i + 1; // \s+ (k = i + 1 here) or cl100k's lone \s
}

/** Both encodings' `\p{N}{1,3}` at a digit i: up to three digits, or ASK where a non-ASCII one may follow. */
function digitsEnd(text: string, i: number): number {
  let n = 1;
  while (n < 3 && cls(text, i + n) === DIGIT) n++;
  if (n < 3 && cls(text, i + n) === WIDE) return ASK;
  return i + n;
}

/** The end of ` ?[^\s\p{L}\p{N}]+` plus its tail at i, or undefined when it does not match. */
function punctEnd(text: string, i: number, o200k: boolean): number | undefined {
  let s = i;
  if (text.charCodeAt(i) === 0x20) {
    const next = cls(text, i + 1);
    if (next === WIDE) return ASK;
    if (next !== PUNCT) return undefined;
    s = i + 1;
  } else if (cls(text, i) !== PUNCT) return undefined;
  let k = runEnd(text, s, PUNCT);
  if (cls(text, k) === WIDE) return ASK;
  // o200k's tail is [\r\n/]*, cl100k's [\r\n]*
  for (;;) {
    const c = text.charCodeAt(k);
    if (c === 10 || c === 13 || (o200k && c === 0x2f)) k++;
    else return k;
  }
}

/** o200k: the end of the piece at i, or ASK. */
function o200kEnd(text: string, i: number): number {
  const c = cls(text, i);
  const prefixed = c === SPACE || c === PUNCT;
  // [^\r\n\p{L}\p{N}]?[\p{Lu}…]*[\p{Ll}…]+ — tried with the prefix first, then without.
  const s = prefixed ? i + 1 : i;
  if (prefixed || c === UP || c === LO) {
    const k = runEnd(text, s, UP);
    const after = cls(text, k);
    if (after === WIDE) return ASK;
    if (after === LO) {
      const m = runEnd(text, k, LO);
      if (cls(text, m) === WIDE) return ASK;
      return contraction(text, m);
    }
    // [^\r\n\p{L}\p{N}]?[\p{Lu}…]+[\p{Ll}…]* — an upper-case run with no lower case after it.
    if (k > s) return contraction(text, k);
  }
  if (c === DIGIT) return digitsEnd(text, i);
  const p = punctEnd(text, i, true);
  if (p !== undefined) return p;
  if (c === SPACE || c === NEWLINE) return spaceEnd(text, i, true);
  return ASK;
}

/** cl100k: the end of the piece at i, or ASK. */
function cl100kEnd(text: string, i: number): number {
  const c = cls(text, i);
  if (text.charCodeAt(i) === 0x27) {
    const m = contraction(text, i); // `'s` etc. as a piece of its own
    if (m > i) return m;
  }
  // [^\r\n\p{L}\p{N}]?\p{L}+
  const prefixed = c === SPACE || c === PUNCT;
  if (prefixed || c === UP || c === LO) {
    const s = prefixed ? i + 1 : i;
    const first = cls(text, s);
    if (first === WIDE) return ASK;
    if (first === UP || first === LO) {
      const k = runEnd(text, s, UP, LO);
      return cls(text, k) === WIDE ? ASK : k;
    }
  }
  if (c === DIGIT) return digitsEnd(text, i);
  const p = punctEnd(text, i, false);
  if (p !== undefined) return p;
  if (c === SPACE || c === NEWLINE) return spaceEnd(text, i, false);
  return ASK;
}

/** Finds piece ends for one encoding; `regex` is gpt-tokenizer's split regex for it. */
export class PieceScanner {
  /** Built on the first non-ASCII piece: parsing the regex's Unicode classes costs milliseconds. */
  private sticky: RegExp | undefined;
  private readonly scan: (text: string, i: number) => number;

  /**
   * `split` is the encoding's split regex, or its source and flags: constructing a `u` regex parses
   * its Unicode property classes at once (≈ 4 ms for o200k's), and most texts never need it.
   */
  constructor(
    readonly name: TokenizerName,
    private readonly split: { readonly source: string; readonly flags: string },
  ) {
    this.scan = name === 'o200k' ? o200kEnd : cl100kEnd;
  }

  /** The end of the piece that starts at the boundary i (i < text.length). */
  end(text: string, i: number): number {
    const e = this.scan(text, i);
    if (e > i) return e;
    this.sticky ??= new RegExp(this.split.source, `${this.split.flags.replace('g', '')}y`);
    const sticky = this.sticky;
    sticky.lastIndex = i;
    const m = sticky.exec(text);
    // No piece is empty; should the regex ever match nothing, one code unit stands for it.
    return m && m[0].length > 0 ? i + m[0].length : i + 1;
  }

  /** How many pieces text[from, to) holds, when from is a boundary and to the end of a piece. */
  count(text: string, from = 0, to = text.length): number {
    let n = 0;
    for (let i = from; i < to; i = this.end(text, i)) n++;
    return n;
  }
}

/**
 * Whether p is a piece boundary of text in both encodings whatever came before it: the character
 * before p is an ASCII letter or digit and the one at p cannot continue its run. A letter belongs to
 * a letter alternative, which only letters, marks or a contraction's apostrophe extend; a digit to
 * `\p{N}{1,3}`, which only digits extend. (So a piece ends at p, and the next starts there.) A
 * non-ASCII character at p may be a letter, a mark or a digit: never a fixed boundary.
 */
export function isFixedBoundary(text: string, p: number): boolean {
  if (p <= 0 || p >= text.length) return p === 0 || p === text.length;
  return fixedAt(text, p);
}

/** isFixedBoundary for 0 < p < text.length, on char codes alone (the hot loop of deletions.ts). */
export function fixedAt(text: string, p: number): boolean {
  return fixedPair(text.charCodeAt(p - 1), text.charCodeAt(p));
}

/** Whether a boundary between the characters `before` and `at` is fixed (see isFixedBoundary). */
export function fixedPair(before: number, at: number): boolean {
  if (at >= 0x80) return false;
  if (before >= 0x30 && before <= 0x39) return at < 0x30 || at > 0x39;
  const letter = before | 0x20;
  if (letter < 0x61 || letter > 0x7a) return false;
  const low = at | 0x20;
  return (low < 0x61 || low > 0x7a) && at !== 0x27;
}
