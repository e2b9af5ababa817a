/**
 * The merge's view of a vocabulary (table.ts): a piece's bytes one part per byte, and "which token
 * do tokens L and R make together?" for every adjacent pair. Answers are memoised by (L, R) in a
 * fixed-size open-addressed table: a piece repeats its pairs (a run of one letter has a handful, an
 * identifier shares its pairs with its neighbours), so nearly every question is two array reads.
 */
import type { BpeTable } from './table.js';

/** The memo starts small (most texts need a few hundred pairs) and grows to at most 2^20 slots. */
const FIRST_BITS = 12;
const MAX_BITS = 20;
const EMPTY = -1;

export class Vocabulary {
  private readonly byteRank = new Int32Array(256);
  private bits = FIRST_BITS;
  private memoLeft = new Int32Array(1 << FIRST_BITS).fill(EMPTY);
  private memoRight = new Int32Array(1 << FIRST_BITS);
  private memoRank = new Int32Array(1 << FIRST_BITS);
  private memoUsed = 0;

  constructor(readonly table: BpeTable) {
    const one = new Uint8Array(1);
    for (let b = 0; b < 256; b++) {
      one[0] = b;
      this.byteRank[b] = table.bytesRank(one, 0, 1);
    }
  }

  /** One part per byte of bytes[s, e), each holding that byte's token rank. */
  byteParts(bytes: Uint8Array, s: number, e: number): Int32Array {
    const parts = new Int32Array(e - s);
    for (let i = s; i < e; i++) parts[i - s] = this.byteRank[bytes[i]!]!;
    return parts;
  }

  /** The token tokens `left` and `right` make together, or -1. */
  readonly mergeRank = (left: number, right: number): number => {
    const mask = (1 << this.bits) - 1;
    let slot = this.slotOf(left, right);
    for (;;) {
      const l = this.memoLeft[slot]!;
      if (l === EMPTY) break;
      if (l === left && this.memoRight[slot] === right) return this.memoRank[slot]!;
      slot = (slot + 1) & mask;
    }
    const rank = this.table.pairRank(left, right);
    if (this.memoUsed >= (mask + 1) >> 1) {
      if (this.bits < MAX_BITS) this.grow();
      else {
        // Full enough to slow probing: start over (cheap next to the lookups it saved).
        this.memoLeft.fill(EMPTY);
        this.memoUsed = 0;
      }
      this.remember(left, right, rank);
      return rank;
    }
    this.memoLeft[slot] = left;
    this.memoRight[slot] = right;
    this.memoRank[slot] = rank;
    this.memoUsed++;
    return rank;
  };

  private slotOf(left: number, right: number): number {
    return (Math.imul(left, 0x9e3779b1) ^ Math.imul(right, 0x85ebca77)) >>> (32 - this.bits);
  }

  private remember(left: number, right: number, rank: number): void {
    const mask = (1 << this.bits) - 1;
    let slot = this.slotOf(left, right);
    while (this.memoLeft[slot] !== EMPTY) slot = (slot + 1) & mask;
    this.memoLeft[slot] = left;
    this.memoRight[slot] = right;
    this.memoRank[slot] = rank;
    this.memoUsed++;
  }

  /** Four times the slots, every answer kept. */
  private grow(): void {
    const [left, right, rank] = [this.memoLeft, this.memoRight, this.memoRank];
    this.bits = Math.min(MAX_BITS, this.bits + 2);
    this.memoLeft = new Int32Array(1 << this.bits).fill(EMPTY);
    this.memoRight = new Int32Array(1 << this.bits);
    this.memoRank = new Int32Array(1 << this.bits);
    this.memoUsed = 0;
    for (let i = 0; i < left.length; i++) if (left[i] !== EMPTY) this.remember(left[i]!, right[i]!, rank[i]!);
  }
}
