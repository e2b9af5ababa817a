/**
 * Bounds on a text's token count from its pieces alone, without the vocabulary. No token spans two
 * pieces, and BPE encodes each piece on its own, so tokens(text) = Σ tokens(piece), and for a piece:
 *   - at least 1, and at least ⌈bytes / MAX_TOKEN_BYTES⌉ (no token is longer);
 *   - at most its UTF-8 bytes (BPE starts from one token per byte and only merges), and exactly 1
 *     when the vocabulary holds the whole piece (gpt-tokenizer looks the piece up before merging):
 *     every single ASCII character, every run of 1–3 ASCII digits and the listed common pieces
 *     (single-tokens.ts) are, in both o200k and cl100k.
 */
import { MAX_TOKEN_BYTES } from './limits.js';
import type { PieceScanner } from './pieces.js';
import { SINGLE_TOKEN_PIECES } from './single-tokens.js';

export interface PieceBounds {
  /** How many pieces: itself a lower bound, and what Tokens.atLeast reports. */
  pieces: number;
  /** lower ≤ tokens ≤ upper. */
  lower: number;
  upper: number;
}

const SINGLE = new Set(SINGLE_TOKEN_PIECES);
const LONGEST_SINGLE = SINGLE_TOKEN_PIECES.reduce((n, p) => Math.max(n, p.length), 0);

/** UTF-8 bytes of text[s, e): lone surrogates count 3, as the encoder writes U+FFFD for them. */
export function utf8Bytes(text: string, s: number, e: number): number {
  let n = 0;
  for (let i = s; i < e; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < e) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** Whether text[s, e), a piece, is known to be one token in both vocabularies. */
export function isSingleToken(text: string, s: number, e: number): boolean {
  const n = e - s;
  if (n === 1) return text.charCodeAt(s) < 0x80;
  if (n <= 3 && allDigits(text, s, e)) return true;
  return n <= LONGEST_SINGLE && SINGLE.has(text.slice(s, e));
}

function allDigits(text: string, s: number, e: number): boolean {
  for (let i = s; i < e; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** The bounds of text[from, to), where from and to are piece boundaries. */
export function pieceBounds(text: string, scanner: PieceScanner, from = 0, to = text.length): PieceBounds {
  let pieces = 0;
  let lower = 0;
  let upper = 0;
  for (let s = from; s < to; ) {
    const e = scanner.end(text, s);
    pieces++;
    if (isSingleToken(text, s, e)) {
      lower++;
      upper++;
    } else {
      const bytes = utf8Bytes(text, s, e);
      lower += Math.max(1, Math.ceil(bytes / MAX_TOKEN_BYTES));
      upper += bytes;
    }
    s = e;
  }
  return { pieces, lower, upper };
}
