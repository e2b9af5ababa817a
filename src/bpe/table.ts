/**
 * A BPE vocabulary as one binary table, looked up the way gpt-tokenizer looks its ranks up, so that
 * exact counting needs no rank module: gpt-tokenizer's o200k rank list is a 2.4 MB JavaScript module
 * whose compiling and Map-building cost ~0.2–0.4 s on every process that counts; this table is read
 * with one readFileSync and used as it lies (typed-array views, no per-token objects).
 *
 * gpt-tokenizer's lookup rules, kept here exactly:
 *   - a whole piece is looked up by its JS string among the tokens stored as strings (textRank);
 *   - a byte range (during merges) that is valid UTF-8 is decoded by TextDecoder — which drops one
 *     leading byte-order mark — and looked up by that text; any other byte range among the tokens
 *     stored as bytes (bytesRank). So the nine o200k tokens stored as bytes that are valid UTF-8
 *     (a BOM and what follows it) are never found, and are left out of the table.
 *
 * Layout (little-endian, each section padded to 4 bytes): "CGBPE1\0\0", u32 tokens, u32 blob
 * bytes, u32 slots; u32 offsets (tokens + 1) into the blob; u8 kind per token (1 text, 2 bytes,
 * 0 unreachable); the blob; i32 slots (rank or -1), open addressing on FNV-1a of the token's bytes,
 * linear probing.
 */
import { isUtf8 } from 'node:buffer';

export type RankList = readonly (string | readonly number[])[];

const MAGIC = 'CGBPE1\0\0';
const TEXT = 1;
const BYTES = 2;

function fnv(bytes: Uint8Array, s: number, e: number): number {
  let h = 0x811c9dc5;
  for (let i = s; i < e; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

export class BpeTable {
  private readonly offsets: Uint32Array;
  private readonly kinds: Uint8Array;
  private readonly blob: Uint8Array;
  private readonly slots: Int32Array;
  private readonly mask: number;
  /** A scratch buffer for pieces and pairs being looked up. */
  private scratch = new Uint8Array(1024);

  constructor(data: Uint8Array) {
    if (Buffer.from(data.buffer, data.byteOffset, 8).toString('latin1') !== MAGIC)
      throw new Error('not a cg BPE table');
    const head = new DataView(data.buffer, data.byteOffset + 8, 12);
    const tokens = head.getUint32(0, true);
    const blobBytes = head.getUint32(4, true);
    const slots = head.getUint32(8, true);
    // Typed views need 4-aligned offsets: the file pads its sections so, and a table read into an
    // unaligned Buffer is copied once.
    const base = data.byteOffset % 4 === 0 ? data : new Uint8Array(data);
    const buf = base.buffer;
    let at = base.byteOffset + 20;
    const take = (n: number) => {
      const start = at;
      at += (n + 3) & ~3;
      return start;
    };
    this.offsets = new Uint32Array(buf, take(4 * (tokens + 1)), tokens + 1);
    this.kinds = new Uint8Array(buf, take(tokens), tokens);
    this.blob = new Uint8Array(buf, take(blobBytes), blobBytes);
    this.slots = new Int32Array(buf, take(4 * slots), slots);
    this.mask = slots - 1;
  }

  /** The table of a gpt-tokenizer rank list (index = rank), as the bytes BpeTable reads. */
  static build(ranks: RankList): Buffer {
    const parts = ranks.map((v) => (typeof v === 'string' ? Buffer.from(v, 'utf8') : Buffer.from(v)));
    const kinds = Uint8Array.from(ranks, (v, i) =>
      typeof v === 'string' ? TEXT : isUtf8(parts[i]!) ? 0 : BYTES,
    );
    const blob = Buffer.concat(parts);
    const offsets = new Uint32Array(ranks.length + 1);
    for (let i = 0; i < parts.length; i++) offsets[i + 1] = offsets[i]! + parts[i]!.length;
    let size = 1;
    while (size < ranks.length * 2) size <<= 1;
    const slots = new Int32Array(size).fill(-1);
    for (let r = 0; r < ranks.length; r++) {
      if (kinds[r] === 0) continue;
      let slot = fnv(blob, offsets[r]!, offsets[r + 1]!) & (size - 1);
      while (slots[slot] !== -1) slot = (slot + 1) & (size - 1);
      slots[slot] = r;
    }
    const head = Buffer.alloc(20);
    head.write(MAGIC, 0, 'latin1');
    head.writeUInt32LE(ranks.length, 8);
    head.writeUInt32LE(blob.length, 12);
    head.writeUInt32LE(size, 16);
    const pad = (b: Uint8Array) => Buffer.concat([b, Buffer.alloc(((b.length + 3) & ~3) - b.length)]);
    return Buffer.concat([
      head,
      Buffer.from(offsets.buffer),
      pad(kinds),
      pad(blob),
      Buffer.from(slots.buffer),
    ]);
  }

  get size(): number {
    return this.kinds.length;
  }

  /** The rank whose bytes are bytes[s, e) among tokens of the given kind, or -1. */
  private find(bytes: Uint8Array, s: number, e: number, kind: number): number {
    const n = e - s;
    const { offsets, blob, slots, kinds } = this;
    let slot = fnv(bytes, s, e) & this.mask;
    for (;;) {
      const r = slots[slot]!;
      if (r === -1) return -1;
      const o = offsets[r]!;
      if (kinds[r] === kind && offsets[r + 1]! - o === n) {
        let i = 0;
        while (i < n && blob[o + i] === bytes[s + i]) i++;
        if (i === n) return r;
      }
      slot = (slot + 1) & this.mask;
    }
  }

  /** gpt-tokenizer's rank of a whole piece (its string among the text tokens), or -1. */
  textRank(piece: Uint8Array, s: number, e: number): number {
    return this.find(piece, s, e, TEXT);
  }

  /** gpt-tokenizer's rank of a byte range met while merging, or -1. */
  bytesRank(bytes: Uint8Array, s: number, e: number): number {
    let ascii = true;
    for (let i = s; i < e && ascii; i++) ascii = bytes[i]! < 0x80;
    if (ascii) return this.find(bytes, s, e, TEXT);
    if (!isUtf8(bytes.subarray(s, e))) return this.find(bytes, s, e, BYTES);
    // TextDecoder drops one leading byte-order mark before the text is looked up.
    const bom = e - s >= 3 && bytes[s] === 0xef && bytes[s + 1] === 0xbb && bytes[s + 2] === 0xbf;
    return bom ? this.find(bytes, s + 3, e, TEXT) : this.find(bytes, s, e, TEXT);
  }

  /** The rank of token `left` followed by token `right`, by gpt-tokenizer's byte-range rule. */
  pairRank(left: number, right: number): number {
    const { offsets, blob } = this;
    const a = offsets[left]!;
    const b = offsets[left + 1]!;
    const c = offsets[right]!;
    const d = offsets[right + 1]!;
    const n = b - a + (d - c);
    if (this.scratch.length < n) this.scratch = new Uint8Array(n * 2);
    const buf = this.scratch;
    buf.set(blob.subarray(a, b), 0);
    buf.set(blob.subarray(c, d), b - a);
    return this.bytesRank(buf, 0, n);
  }
}
