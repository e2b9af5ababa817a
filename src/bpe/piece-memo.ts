/**
 * Merge counts of pieces already merged, by their bytes. A text repeats its pieces (a JSON array's
 * keys and punctuation, a log's words, a table's cells), and merging one allocates its parts, links
 * and heap (merge.ts): remembering what a piece's bytes merged to turns the repeats into one hash
 * and one comparison. A count depends on the bytes alone, so the answer is the same whatever text
 * or position they came from. Fixed size: once half full it stops taking new pieces.
 */

/** Slots (a power of two); pieces longer than MAX_BYTES are merged every time. */
const SLOTS = 1 << 16;
const MAX_BYTES = 32;

export class PieceMemo {
  private readonly hashes = new Int32Array(SLOTS);
  private readonly counts = new Int32Array(SLOTS).fill(-1);
  private readonly lengths = new Uint8Array(SLOTS);
  private readonly pool = new Uint8Array(SLOTS * MAX_BYTES);
  private used = 0;

  private static hash(bytes: Uint8Array, n: number): number {
    let h = 0x811c9dc5 ^ n;
    for (let i = 0; i < n; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
    return h;
  }

  /** The merge count remembered for bytes[0, n), or -1. */
  get(bytes: Uint8Array, n: number): number {
    if (n > MAX_BYTES) return -1;
    const h = PieceMemo.hash(bytes, n);
    for (
      let slot = (h ^ (h >>> 16)) & (SLOTS - 1);
      this.counts[slot] !== -1;
      slot = (slot + 1) & (SLOTS - 1)
    ) {
      if (this.hashes[slot] !== h || this.lengths[slot] !== n) continue;
      const at = slot * MAX_BYTES;
      let same = true;
      for (let i = 0; i < n && same; i++) same = this.pool[at + i] === bytes[i];
      if (same) return this.counts[slot]!;
    }
    return -1;
  }

  /** Remembers that bytes[0, n) merge to `count` tokens (when there is room). */
  set(bytes: Uint8Array, n: number, count: number): void {
    if (n > MAX_BYTES || this.used >= SLOTS >> 1) return;
    const h = PieceMemo.hash(bytes, n);
    let slot = (h ^ (h >>> 16)) & (SLOTS - 1);
    while (this.counts[slot] !== -1) slot = (slot + 1) & (SLOTS - 1);
    this.hashes[slot] = h;
    this.lengths[slot] = n;
    this.counts[slot] = count;
    this.pool.set(bytes.subarray(0, n), slot * MAX_BYTES);
    this.used++;
  }
}
