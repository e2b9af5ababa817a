/**
 * putMany for the disk store: many originals stashed with one durability barrier instead of one
 * per entry. A batch of PACK_MIN or more puts its small originals into one pack (fs-pack.ts: one
 * file instead of thousands; a file's create, link and unlink cost 100–400 µs on this machine's
 * ext4); the rest, and a smaller batch, are written exactly as put writes them (a private temp file
 * in the store, then link(2) under its key, never overwriting an entry that holds its original).
 * The order that makes a put safe is kept for the batch as a whole:
 *
 *   1. every new entry's temp file, and the pack's, is written;
 *   2. all of them are made durable — one syncfs of the store's filesystem (fs-sync.ts), or, where
 *      that cannot be done, an fdatasync per file;
 *   3. only then is the pack linked under its name and any entry under its key, and only then does
 *      the batch answer.
 *
 * So a key never names bytes a crash could lose, and no result says ok before its original is
 * persisted: a crash or failure before step 3 leaves temp files (removed here, or by the next prune)
 * and no entry. An item whose entry is already there (loose or packed) is re-used as put re-uses
 * it; one whose write or sync fails gets its own failed result, and the others are unaffected; when
 * the pack cannot be written, its originals are stored by put, one by one.
 *
 * A batch is thousands of small files, where async fs calls cost about three times the syscalls
 * they wrap (a FileHandle, promises, a thread-pool hop each). So the plain steps — writing a temp
 * file, linking it — are synchronous calls, a chunk at a time with the event
 * loop free between chunks; anything unusual (an entry already there, a link refused) goes through
 * put's own asynchronous steps.
 */
import {
  closeSync,
  fdatasyncSync,
  linkSync,
  lstatSync,
  openSync,
  readdirSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { encode } from './codec.js';
import { CREATE_FLAGS, ensureRealDir } from './fs-entry.js';
import { createPack, linkNew, PACK_DIR, type PackWriter } from './fs-pack.js';
import { syncFile, syncFilesystem } from './fs-sync.js';
import { keyOf } from './keys.js';
import type { PutItem, PutResult } from './store.js';

/** What the batch needs of the store it belongs to (fs-store.ts hands over its own steps). */
export interface BatchOps {
  dir: string;
  compress: boolean;
  /** The store's size cap in bytes (Infinity: none), and as configured, for the message. */
  capBytes: number;
  /** put's refusal of an original larger than any entry the store keeps (undefined: within it). */
  overLimit(key: string, length: number): PutResult | undefined;
  maxBytes: number;
  tmpPath(): string;
  /** put's check of what sits under a key: a final result (re-used, collision), or what to write. */
  reuse(key: string, bytes: Buffer): Promise<PutResult | string>;
  /** reuse for a key with no loose file there (its lstat said so): the packs alone. */
  reusePacked(key: string, bytes: Buffer): Promise<PutResult | string>;
  /** put's publish of a durable temp file under a free key: link, or re-use or replace what came. */
  publishNew(tmp: string, key: string, path: string, bytes: Buffer): Promise<PutResult>;
  /** put's publish of a durable temp file over a corrupt entry (rename). */
  publishReplacing(tmp: string, key: string, path: string, bytes: Buffer): Promise<PutResult>;
  /** A failed result for an error thrown while storing key. */
  failure(key: string, err: unknown): PutResult;
  /** The lazy prune after entries were created; never of the keys given. */
  prune(keep: ReadonlySet<string>): Promise<void>;
  /** The barrier of step 2 (tests stand in for it); false: sync each file instead. */
  barrier?: (dir: string) => Promise<boolean>;
  /**
   * Lists the packs once and answers, per key, whether anything is stored under it, loose or packed
   * (for about `count` keys: a few are looked up pack by pack, many in the packs' keys merged).
   */
  presence(count: number): (key: string) => boolean;
  /** put itself, for an original whose pack could not be written (it is stored loose instead). */
  put(item: PutItem): Promise<PutResult>;
}

/** Below this many new entries an fdatasync each is cheaper than starting a syncfs. */
const SYNCFS_MIN = 8;
/**
 * A batch of at least this many originals writes its small ones into one pack (fs-pack.ts) rather
 * than a file each; a smaller one stays loose, so packs stay few (a proxy's next turn stashes one
 * or two originals) and a lookup reads few pack indexes.
 */
const PACK_MIN = 32;
/** A stored form above this stays a loose file: a pack lives and dies whole, and is read a slot at a time. */
const PACK_ENTRY_MAX = 1 << 20;
/** Items handled between two turns of the event loop (also bounds the encoded bytes held). */
const CHUNK = 128;
/** Encodings in flight at once (gzip runs on the thread pool). */
const WIDTH = 8;
const EMPTY = Buffer.alloc(0);

interface Pending {
  index: number;
  key: string;
  path: string;
  bytes: Buffer;
  /** What is under the key is not its original: the entry is replaced (put's rename). */
  replace: boolean;
  tmp?: string;
}

/** The batch's pack while it is written: its temp file and the items in it. */
interface OpenPack {
  tmp: string;
  fd: number;
  writer: PackWriter;
  items: Pending[];
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function eachLimited<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(WIDTH, items.length) }, worker));
}

/**
 * An item's UTF-8 bytes: the caller's Buffer itself (keyOf knows its key already when the pipeline
 * hashed it for the marker: a new view would be hashed again), a view of other bytes, or encoded now.
 */
function bytesOf({ original, bytes }: PutItem): Buffer {
  if (!bytes) return Buffer.from(original, 'utf8');
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function writeFileNew(path: string, data: Buffer, durable: boolean): void {
  const fd = openSync(path, CREATE_FLAGS, 0o600);
  try {
    for (let at = 0; at < data.length; ) at += writeSync(fd, data, at);
    if (durable) fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export async function putBatch(items: readonly PutItem[], ops: BatchOps): Promise<PutResult[]> {
  const results: (PutResult | undefined)[] = new Array(items.length);
  const keys: string[] = new Array(items.length);
  const firstOf = new Map<string, number>();
  const written: Pending[] = [];
  const shards = new Set<string>();
  const bulk = items.length >= SYNCFS_MIN;
  const packing = items.length >= PACK_MIN;
  // A large batch lists the shard directories once: a key whose shard is not there has no loose
  // entry, and a first sight's 17,000 originals go mostly into shards a packing store never made.
  const shardsThere = packing ? shardDirs(ops.dir) : undefined;
  const present = ops.presence(items.length);
  let pack: OpenPack | undefined;
  /** The file name the batch's pack was linked under. */
  let linked: string | undefined;
  /** Items whose pack failed: stored by put, one by one. */
  const unpacked: Pending[] = [];

  /**
   * Step 1 for one chunk: each original not yet stored, encoded, in its temp file. Whether anything
   * is under its key is one lstat; only what is there is read and compared (put's own check).
   */
  const prepare = async (chunk: Pending[]) => {
    const fresh: Pending[] = [];
    await eachLimited(chunk, async (p) => {
      try {
        const beyond = ops.overLimit(p.key, p.bytes.length);
        if (beyond) {
          results[p.index] = beyond;
          return;
        }
        const loose =
          (!shardsThere || shardsThere.has(p.key.slice(0, 2))) &&
          lstatSync(p.path, { throwIfNoEntry: false }) !== undefined;
        if (loose || present(p.key)) {
          const found = loose ? await ops.reuse(p.key, p.bytes) : await ops.reusePacked(p.key, p.bytes);
          if (typeof found === 'object') {
            results[p.index] = found;
            return;
          }
          p.replace = found === 'corrupt';
        }
        const data = await encode(p.bytes, ops.compress);
        if (data.length > ops.capBytes) {
          results[p.index] = {
            ok: false,
            key: p.key,
            reason: 'error',
            detail: `entry of ${data.length} bytes exceeds the store cap of ${ops.maxBytes} bytes`,
          };
          return;
        }
        if (packing && !p.replace && data.length <= PACK_ENTRY_MAX) {
          p.bytes = data;
          fresh.push(p);
          return;
        }
        const shard = join(ops.dir, p.key.slice(0, 2));
        if (!shards.has(shard)) {
          await ensureRealDir(shard);
          shards.add(shard);
        }
        p.bytes = data; // held only until it is written, just below
        fresh.push(p);
      } catch (err) {
        results[p.index] = ops.failure(p.key, err);
      }
    });
    for (const p of fresh) {
      const data = p.bytes;
      p.bytes = EMPTY;
      if (packing && !p.replace && data.length <= PACK_ENTRY_MAX) {
        toPack(p, data);
        continue;
      }
      try {
        const tmp = ops.tmpPath();
        // Without the batch barrier, each file is made durable here, as put does.
        writeFileNew(tmp, data, !bulk);
        p.tmp = tmp;
        written.push(p);
      } catch (err) {
        results[p.index] = ops.failure(p.key, err);
      }
    }
  };

  /** Step 1 for a small original of a large batch: appended to the batch's pack. */
  const toPack = (p: Pending, data: Buffer) => {
    if (pack === undefined && unpacked.length === 0) {
      const tmp = ops.tmpPath();
      try {
        const { fd, writer } = createPack(tmp);
        pack = { tmp, fd, writer, items: [] };
      } catch {
        // no pack here (a full disk, say): every original goes by put, which says why it failed
      }
    }
    if (pack) {
      try {
        pack.writer.add(p.key, data);
        pack.items.push(p);
        return;
      } catch {
        abandon();
      }
    }
    unpacked.push(p);
  };

  /** The pack cannot be had: its items are stored by put instead, and its temp file goes. */
  const abandon = () => {
    if (!pack) return;
    const { fd, tmp, items: lost } = pack;
    pack = undefined;
    try {
      closeSync(fd);
    } catch {
      // closed already
    }
    try {
      unlinkSync(tmp);
    } catch {
      // removed by a concurrent clear
    }
    unpacked.push(...lost);
  };

  /** Completes the pack file; false when it could not be (its items then go by put). */
  const finishPack = (): boolean => {
    if (!pack) return false;
    try {
      pack.writer.finish();
      closeSync(pack.fd);
      return true;
    } catch {
      abandon();
      return false;
    }
  };

  /** Step 3 for the durable pack: linked under a fresh name in the pack directory. */
  const linkPack = async (p: OpenPack) => {
    try {
      await ensureRealDir(join(ops.dir, PACK_DIR));
      linked = basename(linkNew(p.tmp, join(ops.dir, PACK_DIR)));
      for (const item of p.items) results[item.index] = { ok: true, key: item.key, created: true };
    } catch {
      unpacked.push(...p.items); // its temp file goes in the end, as every temp does
    }
  };

  /** Step 3 for one durable temp file: a link, or put's own publish when anything is unusual. */
  const link = async (p: Pending) => {
    try {
      if (!p.replace) {
        try {
          linkSync(p.tmp!, p.path);
          results[p.index] = { ok: true, key: p.key, created: true };
          return;
        } catch {
          // EEXIST (written meanwhile), a shard cleared meanwhile, no hard links here: put's steps
          // decide, with the bytes again to compare with what is there.
        }
      }
      const publish = p.replace ? ops.publishReplacing : ops.publishNew;
      results[p.index] = await publish(p.tmp!, p.key, p.path, bytesOf(items[p.index]!));
    } catch (err) {
      results[p.index] = ops.failure(p.key, err);
    }
  };

  try {
    // The pack's temp file sits in the store directory, which this makes when missing; failing,
    // no pack is made and the originals go by put, which says why they cannot be stored.
    if (packing) await ensureRealDir(join(ops.dir, PACK_DIR)).catch(() => undefined);
    for (let start = 0; start < items.length; start += CHUNK) {
      const chunk: Pending[] = [];
      for (let i = start; i < Math.min(items.length, start + CHUNK); i++) {
        const bytes = bytesOf(items[i]!);
        const key = keyOf(bytes);
        keys[i] = key;
        if (firstOf.has(key)) continue; // answered by its first occurrence
        firstOf.set(key, i);
        chunk.push({ index: i, key, path: join(ops.dir, key.slice(0, 2), key), bytes, replace: false });
      }
      await prepare(chunk);
      await turn();
    }
    const packed = finishPack() ? pack : undefined;
    let durable = written;
    const barrier = ops.barrier ?? syncFilesystem;
    if (bulk && (written.length > 0 || packed) && !(await barrier(ops.dir).catch(() => false))) {
      durable = [];
      await eachLimited(written, async (p) => {
        try {
          await syncFile(p.tmp!);
          durable.push(p);
        } catch (err) {
          results[p.index] = ops.failure(p.key, err);
        }
      });
      if (packed) await syncFile(packed.tmp).catch(() => abandon());
    }
    if (packed && pack) await linkPack(packed);
    for (let start = 0; start < durable.length; start += CHUNK) {
      for (const p of durable.slice(start, start + CHUNK)) await link(p);
      await turn();
    }
    for (const p of unpacked) results[p.index] = await ops.put(items[p.index]!);
  } finally {
    if (pack) {
      try {
        unlinkSync(pack.tmp); // linked under its own name by now, or never published
      } catch {
        // removed by a concurrent clear
      }
    }
    // A linked entry keeps its own name; a temp never published goes with it.
    for (const p of written) {
      try {
        unlinkSync(p.tmp!);
      } catch {
        // already renamed into place, or removed by a concurrent clear
      }
    }
  }
  const created = new Set<string>();
  const out = items.map((_, i): PutResult => {
    const own = results[i];
    if (own) {
      if (own.ok && own.created) created.add(own.key);
      return own;
    }
    // A repeat of an earlier item of the batch: stored once, by that item.
    const first = results[firstOf.get(keys[i]!)!];
    if (!first) return ops.failure(keys[i]!, new Error('not stored'));
    return first.ok ? { ok: true, key: first.key, created: false } : first;
  });
  // The lazy prune never takes what this batch just stored: its keys, and its pack by name.
  const keep = new Set(firstOf.keys());
  if (linked) keep.add(linked);
  if (created.size > 0) await ops.prune(keep).catch(() => undefined);
  return out;
}

/** The store's shard directories (two hex digits) now there; undefined when it cannot be listed. */
function shardDirs(dir: string): Set<string> | undefined {
  try {
    return new Set(readdirSync(dir).filter((n) => /^[0-9a-f]{2}$/.test(n)));
  } catch {
    return undefined;
  }
}
