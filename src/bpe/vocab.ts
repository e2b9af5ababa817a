/**
 * A BPE vocabulary looked up the way gpt-tokenizer looks it up, for merge.ts: bytes that are
 * valid UTF-8 by their text, other bytes by their byte values. Built from gpt-tokenizer's own rank
 * list (index = rank) the first time a long pre-token needs it, and kept for the process.
 *
 * The merge asks "which token do tokens L and R make together?" for every adjacent pair. Answers
 * are memoised by (L, R) in a fixed-size open-addressed table: a long pre-token repeats its pairs
 * (a run of one letter has a handful), so nearly every question is two array reads.
 */
import { isUtf8 } from 'node:buffer';

export type RankList = readonly (string | readonly number[])[];

const MEMO_BITS = 20;
const MEMO_SIZE = 1 << MEMO_BITS;
const EMPTY = -1;

export class Vocabulary {
  private readonly byText = new Map<string, number>();
  private readonly byBytes = new Map<string, number>();
  private readonly byteRank = new Int32Array(256);
  private readonly memoLeft = new Int32Array(MEMO_SIZE).fill(EMPTY);
  private readonly memoRight = new Int32Array(MEMO_SIZE);
  private readonly memoRank = new Int32Array(MEMO_SIZE);
  private memoUsed = 0;

  constructor(private readonly ranks: RankList) {
    ranks.forEach((value, rank) => {
      if (typeof value === 'string') this.byText.set(value, rank);
      else this.byBytes.set(String.fromCharCode(...value), rank);
    });
    for (let b = 0; b < 256; b++) this.byteRank[b] = this.rankOfBytes(Buffer.from([b]));
  }

  /** The rank of a whole pre-token when it is a single token, else -1. */
  rankOfText(text: string): number {
    return this.byText.get(text) ?? -1;
  }

  /** One part per UTF-8 byte of text, each holding that byte's token rank. */
  byteParts(text: string): Int32Array {
    const bytes = Buffer.from(text, 'utf8');
    const parts = new Int32Array(bytes.length);
    for (let i = 0; i < bytes.length; i++) parts[i] = this.byteRank[bytes[i]!]!;
    return parts;
  }

  /** The token tokens `left` and `right` make together, or -1. */
  readonly mergeRank = (left: number, right: number): number => {
    let slot = (Math.imul(left, 0x9e3779b1) ^ Math.imul(right, 0x85ebca77)) >>> (32 - MEMO_BITS);
    for (;;) {
      const l = this.memoLeft[slot]!;
      if (l === EMPTY) break;
      if (l === left && this.memoRight[slot] === right) return this.memoRank[slot]!;
      slot = (slot + 1) & (MEMO_SIZE - 1);
    }
    const rank = this.rankOfPair(left, right);
    if (this.memoUsed >= MEMO_SIZE >> 1) {
      // Full enough to slow probing: start over (cheap next to the lookups it saved).
      this.memoLeft.fill(EMPTY);
      this.memoUsed = 0;
      return rank;
    }
    this.memoLeft[slot] = left;
    this.memoRight[slot] = right;
    this.memoRank[slot] = rank;
    this.memoUsed++;
    return rank;
  };

  private rankOfPair(left: number, right: number): number {
    const a = this.ranks[left];
    const b = this.ranks[right];
    if (typeof a === 'string' && typeof b === 'string') return this.rankOfText(a + b);
    return this.rankOfBytes(Buffer.concat([this.bytesOf(a), this.bytesOf(b)]));
  }

  private bytesOf(token: string | readonly number[] | undefined): Uint8Array {
    if (token === undefined) throw new Error('internal: token rank outside the vocabulary');
    return typeof token === 'string' ? Buffer.from(token, 'utf8') : Uint8Array.from(token);
  }

  /** gpt-tokenizer's rule: valid UTF-8 is looked up by its text, anything else by its bytes. */
  private rankOfBytes(bytes: Buffer): number {
    if (isUtf8(bytes)) return this.rankOfText(bytes.toString('utf8'));
    return this.byBytes.get(bytes.toString('latin1')) ?? -1;
  }
}
