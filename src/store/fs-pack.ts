/**
 * Packs: many small entries of one batch in one immutable file, `<dir>/packs/<16 hex>.pack`, so a
 * proxy's first sight of a large session writes one file instead of one per stashed tool result
 * (on this machine's ext4 a file's create + link + unlink measured 100–400 µs, thousands per batch).
 * A pack is written whole to a temp file, made durable and only then linked under its name, like an
 * entry: a name never holds half a pack. It is never changed afterwards; it lives and dies as one
 * (its mtime is the LRU time of every entry in it; prune and clear remove it whole).
 *
 * Layout (integers big-endian), after the 8-byte magic `CGPACK1\n`:
 *   stored forms back to back — each exactly what a loose entry file would hold (codec.ts);
 *   index   n × 20 bytes, sorted by key: key (8 bytes), offset (u64), length (u32);
 *   fanout  256 × u32: how many keys start with a byte ≤ b (git's pack index trick: one bucket read);
 *   trailer index offset (u64), n (u32), `CGPK`.
 * A reader trusts none of it: bounds are checked here, and every entry read is verified against its
 * key's hash by the store (fs-store.ts), so a damaged pack reads as corrupt, never as an original.
 */
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { CREATE_FLAGS, codeOf, NO_HARD_LINKS, refusal } from './fs-entry.js';
import { keyOf } from './keys.js';

export const PACK_DIR = 'packs';
export const PACK_RE = /^[0-9a-f]{16}\.pack$/;
const MAGIC = Buffer.from('CGPACK1\n', 'latin1');
const TAIL_MAGIC = 0x4347504b; // 'CGPK'
const RECORD = 20;
const FANOUT = 256 * 4;
const TRAILER = 16;

/** Where one entry's stored form sits in a pack. */
export interface PackSlot {
  path: string;
  offset: number;
  length: number;
}

/**
 * What a reader knows of one pack (a pack never changes under its name): its fanout and trailer,
 * read at first sight of the pack, and its records — read whole for a batch of lookups (a put of
 * thousands of originals asks each), else one fanout bucket per lookup (a `cg expand` asks once,
 * and a pack of 20,000 entries has a 400 KB index).
 */
interface PackIndex {
  path: string;
  size: number;
  count: number;
  /** Where the records start. */
  indexAt: number;
  /** 256 × u32: how many keys start with a byte ≤ b. */
  fanout: Buffer;
  /** Every record, once read whole. */
  records?: Buffer;
  /** Buckets read one at a time so far: past a few, the records are read whole. */
  reads: number;
}

/** Bucket reads of one pack after which its records are read whole (a process asking many keys). */
const BUCKET_READS_MAX = 8;

/** Stored forms gathered before one write: thousands of small entries, a few system calls. */
const WRITE_CHUNK = 1 << 20;

/**
 * Writes a pack into an open temp file: header first, stored forms as they come, index last. The
 * stored forms are copied into one reused buffer as they come: a small gzip output is a view of
 * zlib's 16 KiB output chunk, and holding a megabyte of them would hold forty.
 */
export class PackWriter {
  private at = 0;
  /** Keys as 16 lowercase hex: their string order is their bytes' order. */
  private readonly slots: { key: string; offset: number; length: number }[] = [];
  private readonly chunk = Buffer.allocUnsafe(WRITE_CHUNK);
  private used = 0;

  constructor(private readonly fd: number) {
    this.append(MAGIC);
  }

  get count(): number {
    return this.slots.length;
  }

  add(key: string, data: Buffer): void {
    this.slots.push({ key, offset: this.at, length: data.length });
    this.append(data);
  }

  private append(data: Buffer): void {
    if (this.used + data.length > WRITE_CHUNK) this.drain();
    if (data.length > WRITE_CHUNK) writeAll(this.fd, data);
    else this.used += data.copy(this.chunk, this.used);
    this.at += data.length;
  }

  private drain(): void {
    if (this.used > 0) writeAll(this.fd, this.chunk.subarray(0, this.used));
    this.used = 0;
  }

  /** Writes the index, fanout and trailer; the pack is then complete (not yet durable). */
  finish(): void {
    this.drain();
    const n = this.slots.length;
    this.slots.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const tail = Buffer.alloc(n * RECORD + FANOUT + TRAILER);
    const fanout = new Uint32Array(256);
    this.slots.forEach((s, i) => {
      const at = i * RECORD;
      tail.write(s.key, at, 8, 'hex');
      tail.writeUInt32BE(Math.floor(s.offset / 2 ** 32), at + 8);
      tail.writeUInt32BE(s.offset >>> 0, at + 12);
      tail.writeUInt32BE(s.length, at + 16);
      fanout[tail[at]!]!++;
    });
    let sum = 0;
    for (let b = 0; b < 256; b++) {
      sum += fanout[b]!;
      tail.writeUInt32BE(sum, n * RECORD + b * 4);
    }
    const t = n * RECORD + FANOUT;
    tail.writeUInt32BE(Math.floor(this.at / 2 ** 32), t);
    tail.writeUInt32BE(this.at >>> 0, t + 4);
    tail.writeUInt32BE(n, t + 8);
    tail.writeUInt32BE(TAIL_MAGIC, t + 12);
    writeAll(this.fd, tail);
  }
}

function writeAll(fd: number, data: Buffer): void {
  for (let at = 0; at < data.length; ) at += writeSync(fd, data, at);
}

function readExact(fd: number, length: number, position: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  for (let at = 0; at < length; ) {
    const got = readSync(fd, buf, at, length - at, position + at);
    if (got === 0) throw refusal('EINVAL', 'pack is shorter than its index says');
    at += got;
  }
  return buf;
}

/** Opens a pack for reading: never through a link, only a regular file (as readRegular). */
function openPack(path: string): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if (codeOf(err) === 'ELOOP') throw refusal('EINVAL', `${path} is a symbolic link, not a pack`);
    throw err;
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw refusal('EINVAL', `${path} is not a regular file`);
  }
  return { fd, size: st.size };
}

/** A pack's fanout and trailer, every bound checked; throws EINVAL for a file that is not a whole pack. */
function readIndex(path: string): PackIndex {
  const { fd, size } = openPack(path);
  try {
    const bad = (why: string) => refusal('EINVAL', `${path} is not a cg pack (${why})`);
    if (size < MAGIC.length + FANOUT + TRAILER) throw bad('too short');
    const tail = readExact(fd, FANOUT + TRAILER, size - FANOUT - TRAILER);
    if (tail.readUInt32BE(FANOUT + 12) !== TAIL_MAGIC) throw bad('no trailer');
    const indexAt = tail.readUInt32BE(FANOUT) * 2 ** 32 + tail.readUInt32BE(FANOUT + 4);
    const count = tail.readUInt32BE(FANOUT + 8);
    if (indexAt < MAGIC.length || indexAt + count * RECORD + FANOUT + TRAILER !== size)
      throw bad('bad index');
    const fanout = tail.subarray(0, FANOUT);
    let before = 0;
    for (let b = 0; b < 256; b++) {
      const upTo = fanout.readUInt32BE(b * 4);
      if (upTo < before || upTo > count) throw bad('bad fanout');
      before = upTo;
    }
    if (before !== count) throw bad('bad fanout');
    return { path, size, count, indexAt, fanout, reads: 0 };
  } finally {
    closeSync(fd);
  }
}

/** The records of keys starting with key's first byte: [from, to) of the index, and their bytes. */
function bucket(index: PackIndex, key: Buffer): { from: number; records: Buffer } | undefined {
  const first = key[0]!;
  const from = first === 0 ? 0 : index.fanout.readUInt32BE((first - 1) * 4);
  const to = index.fanout.readUInt32BE(first * 4);
  if (from === to) return undefined;
  if (!index.records && ++index.reads > BUCKET_READS_MAX) loadRecords(index);
  if (index.records) return { from, records: index.records.subarray(from * RECORD, to * RECORD) };
  const { fd } = openPack(index.path);
  try {
    return { from, records: readExact(fd, (to - from) * RECORD, index.indexAt + from * RECORD) };
  } finally {
    closeSync(fd);
  }
}

/** Reads a pack's records whole; throws as openPack when the pack is gone or not one. */
function loadRecords(index: PackIndex): void {
  const { fd } = openPack(index.path);
  try {
    index.records = readExact(fd, index.count * RECORD, index.indexAt);
  } finally {
    closeSync(fd);
  }
}

/** Where key's stored form sits in a pack, or undefined. */
function lookup(index: PackIndex, key: Buffer): { offset: number; length: number } | undefined {
  const found = bucket(index, key);
  if (!found) return undefined;
  const { records } = found;
  let lo = 0;
  let hi = records.length / RECORD;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = records.compare(key, 0, 8, mid * RECORD, mid * RECORD + 8);
    if (c === 0) {
      const at = mid * RECORD;
      const offset = records.readUInt32BE(at + 8) * 2 ** 32 + records.readUInt32BE(at + 12);
      const length = records.readUInt32BE(at + 16);
      // A damaged index must not point outside the pack's data.
      if (offset < MAGIC.length || offset + length > index.indexAt) return undefined;
      return { offset, length };
    }
    if (c > 0) hi = mid;
    else lo = mid + 1;
  }
  return undefined;
}

/**
 * The packs of one store as this process last saw them: indexes are read once per pack file. For
 * many keys at once (a batch's "is it stored?", hasMany), every listed pack's keys are merged into
 * one sorted array, so a lookup is one binary search whatever the number of packs — asked pack by
 * pack, 17,000 keys against 300 packs took 3.5 s.
 */
export class PackSet {
  private readonly indexes = new Map<string, PackIndex | undefined>();
  private names: string[] = [];
  /** Every key of the packs named in `mergedOf`, sorted. */
  private merged: BigUint64Array = new BigUint64Array(0);
  private mergedOf = '';

  constructor(readonly dir: string) {}

  get packDir(): string {
    return join(this.dir, PACK_DIR);
  }

  /** Lists the packs now there (one readdir); a pack gone since is forgotten. */
  refresh(): void {
    let names: string[];
    try {
      // A link planted where the pack directory belongs is never listed through.
      if (!lstatSync(this.packDir, { throwIfNoEntry: false })?.isDirectory()) names = [];
      else names = readdirSync(this.packDir).filter((n) => PACK_RE.test(n));
    } catch {
      names = [];
    }
    names.sort();
    const live = new Set(names);
    for (const n of this.indexes.keys()) if (!live.has(n)) this.indexes.delete(n);
    this.names = names;
  }

  private index(name: string): PackIndex | undefined {
    if (!this.indexes.has(name)) {
      let index: PackIndex | undefined;
      try {
        index = readIndex(join(this.packDir, name));
      } catch {
        index = undefined; // unreadable or not a pack: holds no entry (prune removes stale temps only)
      }
      this.indexes.set(name, index);
    }
    return this.indexes.get(name);
  }

  /**
   * Whether any pack listed at the last refresh holds a key, for many keys: the packs' keys merged
   * once (again only when the list changed). A pack that cannot be read holds nothing.
   */
  holder(): (key: string) => boolean {
    const of = this.names.join(',');
    if (of !== this.mergedOf) {
      const parts: Buffer[] = [];
      let total = 0;
      for (const name of this.names) {
        const index = this.index(name);
        if (!index) continue;
        try {
          if (!index.records) loadRecords(index);
        } catch {
          continue; // gone since the listing, or unreadable
        }
        parts.push(index.records!);
        total += index.count;
      }
      const keys = new BigUint64Array(total);
      let n = 0;
      for (const records of parts)
        for (let at = 0; at < records.length; at += RECORD) keys[n++] = records.readBigUInt64BE(at);
      keys.sort();
      this.merged = keys;
      this.mergedOf = of;
    }
    const keys = this.merged;
    return (key) => {
      const k = BigInt(`0x${key}`);
      let lo = 0;
      let hi = keys.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const v = keys[mid]!;
        if (v === k) return true;
        if (v < k) lo = mid + 1;
        else hi = mid;
      }
      return false;
    };
  }

  /** Every place key's stored form sits in the packs listed at the last refresh. */
  find(key: string): PackSlot[] {
    const k = Buffer.from(key, 'hex');
    const out: PackSlot[] = [];
    for (const name of this.names) {
      const index = this.index(name);
      if (!index) continue;
      let at: { offset: number; length: number } | undefined;
      try {
        at = lookup(index, k);
      } catch {
        at = undefined; // the pack went (a prune) or cannot be read: it holds nothing for us
      }
      if (at) out.push({ path: index.path, ...at });
    }
    return out;
  }
}

/** How many entries the pack at path holds, from its trailer (0 when it is not a readable pack). */
export function packCount(path: string): number {
  try {
    const { fd, size } = openPack(path);
    try {
      if (size < MAGIC.length + FANOUT + TRAILER) return 0;
      const trailer = readExact(fd, TRAILER, size - TRAILER);
      return trailer.readUInt32BE(12) === TAIL_MAGIC ? trailer.readUInt32BE(8) : 0;
    } finally {
      closeSync(fd);
    }
  } catch {
    return 0;
  }
}

/** The stored form at a slot; throws ENOENT when the pack is gone, EINVAL when it is not one. */
export function readSlot(slot: PackSlot): Buffer {
  const { fd, size } = openPack(slot.path);
  try {
    if (slot.offset + slot.length > size) throw refusal('EINVAL', `${slot.path} is shorter than its index`);
    return readExact(fd, slot.length, slot.offset);
  } finally {
    closeSync(fd);
  }
}

/**
 * Publishes a complete, durable pack temp file under a fresh name in packDir. link(2) never replaces
 * a name, so a clash (two random 64-bit names alike) just draws again; where the filesystem has no
 * hard links the temp is renamed onto a name seen to be free.
 */
export function linkNew(tmp: string, packDir: string): string {
  for (let attempt = 0; ; attempt++) {
    const name = `${keyOf(`${tmp}\0${Date.now()}\0${Math.random()}\0${attempt}`)}.pack`;
    const path = join(packDir, name);
    try {
      linkSync(tmp, path);
      return path;
    } catch (err) {
      const code = codeOf(err);
      if (code && NO_HARD_LINKS.has(code) && lstatSync(path, { throwIfNoEntry: false }) === undefined) {
        renameSync(tmp, path);
        return path;
      }
      if (code !== 'EEXIST' || attempt >= 3) throw err;
    }
  }
}

/** Creates a new pack temp file (private, exclusive) and its writer. */
export function createPack(tmp: string): { fd: number; writer: PackWriter } {
  const fd = openSync(tmp, CREATE_FLAGS, 0o600);
  return { fd, writer: new PackWriter(fd) };
}
