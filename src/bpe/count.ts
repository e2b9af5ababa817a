/**
 * Exact token counts, gpt-tokenizer's, without gpt-tokenizer's rank module and in time linear in
 * the text (up to a log factor) whatever its shape.
 *
 * gpt-tokenizer splits text into pieces with its split regex, looks each whole piece up, and merges
 * the bytes of the others by BPE, rescanning the piece after every merge: quadratic in a piece's
 * length (250,000 'a' took minutes). Here the same steps run on cg's own parts: the pieces of
 * pieces.ts (the regex's cuts, found without it on ASCII text), the vocabulary as a binary table
 * (table.ts, read in milliseconds instead of the 2.4 MB module's 0.2–0.4 s), and the merge of
 * merge.ts (the same merges in O(n log n)), each distinct short piece merged once (piece-memo.ts).
 * Every rule is gpt-tokenizer's, checked against it by test/unit/bpe/count.test.ts over random and
 * corpus text.
 *
 * One piece is handed to gpt-tokenizer itself: a short one holding a byte-order mark, where
 * gpt-tokenizer's lookup drops a leading BOM from byte ranges mid-merge (table.ts) in a way that
 * depends on where the BOM sits inside the merged parts. Such pieces are rare enough that loading
 * the module for them costs nothing in practice; long ones stay on the linear merge.
 */
import { readFileSync } from 'node:fs';
import type { TokenizerName } from '../tokens.js';
import { countMergedParts } from './merge.js';
import { PieceMemo } from './piece-memo.js';
import { PieceScanner } from './pieces.js';
import { BpeTable, type RankList } from './table.js';
import { Vocabulary } from './vocab.js';

/** An exact counter of one encoding. */
export interface ExactCounter {
  /** tokens(text) (loads gpt-tokenizer first when the text holds a byte-order mark; see above). */
  count(text: string): Promise<number>;
  /** tokens(text) now, or undefined when the text holds a byte-order mark (use count). */
  countNow(text: string): number | undefined;
  readonly scanner: PieceScanner;
}

/** Pieces of this many UTF-16 units or more are never handed to gpt-tokenizer's quadratic merge. */
export const LONG_PIECE = 48;

/**
 * The encoding's table: the build's dist/<name>.bpe beside the bundle, or, running from source
 * (tests), built from gpt-tokenizer's rank list.
 */
async function loadTable(name: TokenizerName): Promise<BpeTable> {
  try {
    return new BpeTable(readFileSync(new URL(`./${name}.bpe`, import.meta.url)));
  } catch {
    const ranks: { default: RankList } =
      name === 'o200k'
        ? await import('gpt-tokenizer/bpeRanks/o200k_base')
        : await import('gpt-tokenizer/bpeRanks/cl100k_base');
    return new BpeTable(BpeTable.build(ranks.default));
  }
}

async function loadSplit(name: TokenizerName): Promise<RegExp> {
  const m = await import('gpt-tokenizer/encodingParams/constants');
  return name === 'o200k' ? m.O200K_TOKEN_SPLIT_REGEX : m.CL100K_TOKEN_SPLIT_REGEX;
}

/** gpt-tokenizer's own count of one piece (special-token spellings as ordinary text). */
async function loadReference(name: TokenizerName): Promise<(text: string) => number> {
  const mod =
    name === 'o200k'
      ? await import('gpt-tokenizer/encoding/o200k_base')
      : await import('gpt-tokenizer/encoding/cl100k_base');
  const opts = { disallowedSpecial: new Set<string>() };
  return (text) => mod.countTokens(text, opts);
}

/** Whether text[s, e) holds a lone surrogate (no whole token is spelled with one). */
function hasLoneSurrogate(text: string, s: number, e: number): boolean {
  for (let i = s; i < e; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    const d = text.charCodeAt(i + 1);
    if (c > 0xdbff || i + 1 >= e || d < 0xdc00 || d > 0xdfff) return true;
    i++;
  }
  return false;
}

/** Loads the vocabulary table and returns the exact counter. */
export async function loadExactCounter(name: TokenizerName): Promise<ExactCounter> {
  const [table, split] = await Promise.all([loadTable(name), loadSplit(name)]);
  const scanner = new PieceScanner(name, split);
  const vocab = new Vocabulary(table);
  const merged = new PieceMemo();
  let reference: ((text: string) => number) | undefined;
  let bytes = new Uint8Array(4096);

  const countPiece = (text: string, s: number, e: number): number => {
    const len = e - s;
    if (len === 1 && text.charCodeAt(s) < 0x80) return 1;
    if (bytes.length < 3 * len) bytes = new Uint8Array(6 * len);
    let ascii = true;
    for (let i = s; i < e && ascii; i++) ascii = text.charCodeAt(i) < 0x80;
    let n = len;
    // A whole-piece lookup matches a token's exact text, which never holds a lone surrogate.
    let whole = true;
    if (ascii) {
      for (let i = 0; i < len; i++) bytes[i] = text.charCodeAt(s + i);
    } else {
      const piece = text.slice(s, e);
      if (reference && len < LONG_PIECE && piece.includes('\ufeff')) return reference(piece);
      // UTF-8 as TextEncoder writes it (a lone surrogate as EF BF BD).
      n = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).write(piece, 'utf8');
      whole = !hasLoneSurrogate(text, s, e);
    }
    if (whole && table.textRank(bytes, 0, n) !== -1) return 1;
    const known = merged.get(bytes, n);
    if (known !== -1) return known;
    const count = countMergedParts(vocab.byteParts(bytes, 0, n), vocab.mergeRank);
    merged.set(bytes, n, count);
    return count;
  };

  const countAll = (text: string): number => {
    let total = 0;
    for (let s = 0; s < text.length; ) {
      const e = scanner.end(text, s);
      total += countPiece(text, s, e);
      s = e;
    }
    return total;
  };

  return {
    scanner,
    async count(text) {
      // A byte-order mark: have the reference ready before counting (see the header).
      if (!reference && text.includes('\ufeff')) reference = await loadReference(name);
      return countAll(text);
    },
    countNow(text) {
      return !reference && text.includes('\ufeff') ? undefined : countAll(text);
    },
  };
}
