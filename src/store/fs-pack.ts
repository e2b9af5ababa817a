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

/** The index of one pack, read once (a pack never changes under its name). */
interface PackIndex {
  size: number;
  count: number;
  /** n records then the fanout table. */
  table: Buffer;
}

/** Stored forms gathered before one write: thousands of small entries, a few system calls. */
const WRITE_CHUNK = 1 << 20;

/** Writes a pack into an open temp file: header first, stored forms as they come, index last. */
export class PackWriter {
  private at = MAGIC.length;
  private readonly slots: { key: Buffer; offset: number; length: number }[] = [];
  private held: Buffer[] = [MAGIC];
  private heldBytes = MAGIC.length;

  constructor(private readonly fd: number) {}

  get count(): number {
    return this.slots.length;
  }

  add(key: string, data: Buffer): void {
    this.slots.push({ key: Buffer.from(key, 'hex'), offset: this.at, length: data.length });
    this.at += data.length;
    this.held.push(data);
    this.heldBytes += data.length;
    if (this.heldBytes >= WRITE_CHUNK) this.drain();
  }

  private drain(): void {
    writeAll(this.fd, this.held.length === 1 ? this.held[0]! : Buffer.concat(this.held, this.heldBytes));
    this.held = [];
    this.heldBytes = 0;
  }

  /** Writes the index, fanout and trailer; the pack is then complete (not yet durable). */
  finish(): void {
    this.drain();
    const n = this.slots.length;
    this.slots.sort((a, b) => Buffer.compare(a.key, b.key));
    const tail = Buffer.alloc(n * RECORD + FANOUT + TRAILER);
    const fanout = new Uint32Array(256);
    this.slots.forEach((s, i) => {
      const at = i * RECORD;
      s.key.copy(tail, at);
      tail.writeUInt32BE(Math.floor(s.offset / 2 ** 32), at + 8);
      tail.writeUInt32BE(s.offset >>> 0, at + 12);
      tail.writeUInt32BE(s.length, at + 16);
      fanout[s.key[0]!]!++;
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

/** A pack's index, with every bound checked; throws EINVAL for a file that is not a whole pack. */
function readIndex(path: string): PackIndex {
  const { fd, size } = openPack(path);
  try {
    const bad = (why: string) => refusal('EINVAL', `${path} is not a cg pack (${why})`);
    if (size < MAGIC.length + FANOUT + TRAILER) throw bad('too short');
    if (!readExact(fd, MAGIC.length, 0).equals(MAGIC)) throw bad('no header');
    const trailer = readExact(fd, TRAILER, size - TRAILER);
    if (trailer.readUInt32BE(12) !== TAIL_MAGIC) throw bad('no trailer');
    const indexAt = trailer.readUInt32BE(0) * 2 ** 32 + trailer.readUInt32BE(4);
    const count = trailer.readUInt32BE(8);
    if (indexAt < MAGIC.length || indexAt + count * RECORD + FANOUT + TRAILER !== size)
      throw bad('bad index');
    const table = readExact(fd, count * RECORD + FANOUT, indexAt);
    if (table.readUInt32BE(count * RECORD + 255 * 4) !== count) throw bad('bad fanout');
    return { size, count, table };
  } finally {
    closeSync(fd);
  }
}

/** The record of key in an index, or -1. */
function lookup(index: PackIndex, key: Buffer): number {
  const { table, count } = index;
  const first = key[0]!;
  let lo = first === 0 ? 0 : table.readUInt32BE(count * RECORD + (first - 1) * 4);
  let hi = table.readUInt32BE(count * RECORD + first * 4);
  if (lo > hi || hi > count) return -1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = table.compare(key, 0, 8, mid * RECORD, mid * RECORD + 8);
    if (c === 0) return mid;
    if (c > 0) hi = mid;
    else lo = mid + 1;
  }
  return -1;
}

/** The packs of one store as this process last saw them: indexes are read once per pack file. */
export class PackSet {
  private readonly indexes = new Map<string, PackIndex | undefined>();
  private names: string[] = [];

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

  /** Every place key's stored form sits in the packs listed at the last refresh, newest name last. */
  find(key: string): PackSlot[] {
    const k = Buffer.from(key, 'hex');
    const out: PackSlot[] = [];
    for (const name of this.names) {
      const index = this.index(name);
      if (!index) continue;
      const r = lookup(index, k);
      if (r < 0) continue;
      const at = r * RECORD;
      const offset = index.table.readUInt32BE(at + 8) * 2 ** 32 + index.table.readUInt32BE(at + 12);
      const length = index.table.readUInt32BE(at + 16);
      if (offset < MAGIC.length || offset + length > index.size - index.count * RECORD - FANOUT - TRAILER)
        continue;
      out.push({ path: join(this.packDir, name), offset, length });
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
