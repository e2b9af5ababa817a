/**
 * Exact token counts in time linear in the text (up to a log factor), with gpt-tokenizer's counts.
 *
 * gpt-tokenizer splits text into pre-tokens with its split regex, then merges each pre-token's bytes
 * by BPE, rescanning the pre-token after every merge: quadratic in a pre-token's length. Ordinary text
 * has short pre-tokens (a word, a run of at most 3 digits, a few spaces), but one line of 250,000
 * 'a', a paragraph of Chinese or 200 K brackets is a single pre-token, and took minutes.
 *
 * So: a text whose every pre-token is certainly short (a linear scan of character classes proves it)
 * goes to gpt-tokenizer as it is — the count is its count. Any other text is split here at its
 * pre-token boundaries, by the same regex: each long pre-token is merged by merge.ts (the same
 * result in O(n log n)), and the stretches between them are counted by gpt-tokenizer, cut only where
 * its regex is certain to find the same pre-tokens again (see countSplit). Nothing is estimated.
 */

import type { TokenizerName } from '../tokens.js';
import { countMergedParts } from './merge.js';
import { type RankList, Vocabulary } from './vocab.js';

/** Pre-tokens of this many UTF-16 units or more are merged here instead of by gpt-tokenizer. */
export const LONG_PIECE = 48;

export type CountFn = (text: string) => number;

interface Encoding {
  /** gpt-tokenizer's own count, special-token spellings counted as ordinary text. */
  count: CountFn;
  /** gpt-tokenizer's pre-token regex (global, unicode). */
  split: RegExp;
  /** Raw ranks: index = rank, value = the token's text or its bytes. */
  ranks: RankList;
}

async function loadEncoding(name: TokenizerName): Promise<Encoding> {
  const [mod, params, ranks] = await Promise.all([
    name === 'o200k'
      ? import('gpt-tokenizer/encoding/o200k_base')
      : import('gpt-tokenizer/encoding/cl100k_base'),
    import('gpt-tokenizer/encodingParams/constants'),
    name === 'o200k'
      ? import('gpt-tokenizer/bpeRanks/o200k_base')
      : import('gpt-tokenizer/bpeRanks/cl100k_base'),
  ]);
  const opts = { disallowedSpecial: new Set<string>() };
  return {
    count: (text) => mod.countTokens(text, opts),
    split: name === 'o200k' ? params.O200K_TOKEN_SPLIT_REGEX : params.CL100K_TOKEN_SPLIT_REGEX,
    ranks: ranks.default,
  };
}

/** Loads the tokenizer and returns an exact counter whose time is linear in the text. */
export async function loadExactCounter(name: TokenizerName): Promise<CountFn> {
  const enc = await loadEncoding(name);
  let vocab: Vocabulary | undefined;
  const countLong = (piece: string): number => {
    vocab ??= new Vocabulary(enc.ranks);
    if (vocab.rankOfText(piece) !== -1) return 1;
    return countMergedParts(vocab.byteParts(piece), vocab.mergeRank);
  };
  return (text) => (mayHoldLongPiece(text) ? countSplit(text, enc, countLong) : enc.count(text));
}

// ─── Which texts may hold a long pre-token ──────────────────────────────────────────────────────

const LETTER = 1;
const PUNCT = 2;
const SPACE = 4;
/** \r, \n and '/': the tail a punctuation pre-token may carry (o200k `[\r\n/]*`, cl100k `[\r\n]*`). */
const TAIL = 8;

/** Class bits of each ASCII code unit; any other code unit may be a letter, mark, punctuation or space. */
const ASCII_CLASS = (() => {
  const t = new Uint8Array(128);
  for (let c = 0; c < 128; c++) {
    const ch = String.fromCharCode(c);
    if (/[A-Za-z]/.test(ch)) t[c] = LETTER;
    else if (/[0-9]/.test(ch)) t[c] = 0;
    else if (/\s/.test(ch)) t[c] = SPACE;
    else t[c] = PUNCT;
  }
  t[10] = SPACE | TAIL;
  t[13] = SPACE | TAIL;
  t[47] = PUNCT | TAIL;
  return t;
})();
const UNKNOWN = LETTER | PUNCT | SPACE;

/**
 * False only when every pre-token of text is shorter than LONG_PIECE, for both encodings. A pre-token
 * is a letter run with at most one leading character and a 3-character contraction; at most 3 digits;
 * a punctuation run with at most one leading space and a tail of \r, \n, '/'; or a whitespace run.
 * So a pre-token of LONG_PIECE units holds a run of one class at least (LONG_PIECE − 1) / 2 long,
 * counting a non-ASCII unit as every class (it may be any); one linear pass over the code units
 * that finds no such run proves there is no long pre-token.
 */
export function mayHoldLongPiece(text: string): boolean {
  const limit = (LONG_PIECE - 1) >> 1;
  if (text.length < limit) return false;
  let letters = 0;
  let punct = 0;
  let spaces = 0;
  let tail = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const k = c < 128 ? ASCII_CLASS[c]! : UNKNOWN;
    letters = k & LETTER ? letters + 1 : 0;
    punct = k & PUNCT ? punct + 1 : 0;
    spaces = k & SPACE ? spaces + 1 : 0;
    tail = k & TAIL ? tail + 1 : 0;
    if (letters >= limit || punct >= limit || spaces >= limit || tail >= limit) return true;
  }
  return false;
}

// ─── Splitting at pre-token boundaries ──────────────────────────────────────────────────────────

function isSpace(c: number): boolean {
  return c < 128 ? (ASCII_CLASS[c]! & SPACE) !== 0 : /\s/.test(String.fromCharCode(c));
}

/**
 * The sum of gpt-tokenizer's counts over the stretches between long pre-tokens, plus the long ones.
 *
 * Why a stretch cut at pre-token boundaries counts the same alone: the split regexes have no
 * look-behind, so matching from a boundary is the same whether text before it is there or not. At
 * the cut's end, the stretch's last pre-token still matches (nothing it matched lies beyond), and
 * the only way the shorter string can make the regex choose differently is an end-of-input test
 * (`\s+$`, `\s+(?!\S)`) that now succeeds — and those match whitespace only. So a cut is exact when
 * the character before it is not whitespace, and a single pre-token alone always matches as itself
 * (a test that can now succeed ends where it ends anyway). Whitespace-ending pre-tokens just before a long one are therefore counted one
 * by one.
 */
function countSplit(text: string, enc: Encoding, countLong: CountFn): number {
  let total = 0;
  let from = 0; // start of the stretch not yet counted
  let safeEnd = 0; // end of its last pre-token that does not end in whitespace
  const tail: string[] = []; // the whitespace-ending pre-tokens after safeEnd
  for (const m of text.matchAll(enc.split)) {
    const piece = m[0];
    const end = m.index + piece.length;
    if (piece.length < LONG_PIECE) {
      if (isSpace(piece.charCodeAt(piece.length - 1))) tail.push(piece);
      else {
        safeEnd = end;
        tail.length = 0;
      }
      continue;
    }
    if (safeEnd > from) total += enc.count(text.slice(from, safeEnd));
    for (const p of tail) total += enc.count(p);
    total += countLong(piece);
    from = safeEnd = end;
    tail.length = 0;
  }
  if (from < text.length) total += enc.count(from === 0 ? text : text.slice(from));
  return total;
}
