/**
 * The on-disk store (DESIGN §5): one file per entry at `<dir>/<key[0..2]>/<key>`; the directory is the
 * index. Writes land in a temp file in the store and are moved into place atomically, so a key never
 * names half-written bytes, and an existing key is never overwritten (different bytes = collision;
 * see publish for the one filesystem caveat).
 * Reads validate the key before it becomes a path and verify the content hash, so a corrupt entry
 * reads as absent. No method throws for an ordinary fs failure: put reports it, get reads "absent".
 * Entries are private to the user (0700 dirs, 0600 files): they hold raw tool output, secrets included.
 */
import type { Dirent } from 'node:fs';
import {
  link,
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rmdir,
  stat,
  unlink,
  utimes,
} from 'node:fs/promises';
import { join } from 'node:path';
import { isKey, keyOf } from './keys.js';
import type { PruneResult, PutResult, Store, StoreInfo, StoreOptions } from './store.js';

export const STORE_DEFAULTS: Readonly<Omit<StoreOptions, 'dir'>> = {
  ttlDays: 14,
  maxBytes: 512 * 1024 * 1024,
  compress: true,
};

/**
 * gzip level 1, chosen by measurement on a generated 100 MB build log (Node 20, 2 vCPUs, async gzip
 * with 1 MiB chunks, 4 runs each): level 1 took 308–528 ms (best ≈ 325 MB/s) and kept 7.2 % of the
 * bytes; level 6 took 1103–1138 ms (≈ 91 MB/s) and kept 5.7 %. Level 6 alone would blow the CLI's
 * ≥ 100 MB/s end-to-end budget; level 1 leaves room for hashing, writing and the rest of the
 * pipeline, and 1.5 % more disk is nothing next to that.
 */
const GZIP_LEVEL = 1;
/** Below this, gzip's header and dictionary warm-up cost more than they save. */
const COMPRESS_MIN_BYTES = 1024;
/**
 * zlib's 16 KiB default chunk means thousands of thread-pool round trips on a big entry; on 100 MB,
 * 1 MiB chunks measured 10–20 % faster to compress and about a third faster to decompress.
 */
const BIG_CHUNK = 1 << 20;
const PRUNE_EVERY_MS = 5 * 60_000;
const STALE_TMP_MS = 60 * 60_000;
/**
 * The size cap never evicts an entry touched this recently: its marker may still be on its way to a
 * model, and evicting it would break "every marker expands" for a store that is simply too small.
 */
const IN_FLIGHT_MS = 60_000;
const DAY_MS = 86_400_000;
const STAMP = '.last-prune';
const TMP_PREFIX = '.tmp-';
const SHARD_RE = /^[0-9a-f]{2}$/;
/** Errors meaning "this store cannot persist here" rather than a bug or a transient oddity. */
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'ENOSPC', 'EDQUOT', 'EEXIST', 'EISDIR']);
/** link(2) refused by the filesystem itself (FAT, some FUSE and network mounts): fall back to rename. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK']);

/** zlib and crypto load on first use: most cg runs never stash or expand anything. */
type Zlib = typeof import('node:zlib');
let zlib: Promise<Zlib> | undefined;
const loadZlib = () => (zlib ??= import('node:zlib'));
async function gzipAsync(data: Buffer, opts: import('node:zlib').ZlibOptions): Promise<Buffer> {
  const { gzip } = await loadZlib();
  return new Promise((resolve, reject) => gzip(data, opts, (err, out) => (err ? reject(err) : resolve(out))));
}
async function gunzipAsync(data: Buffer, opts: import('node:zlib').ZlibOptions = {}): Promise<Buffer> {
  const { gunzip } = await loadZlib();
  return new Promise((resolve, reject) =>
    gunzip(data, opts, (err, out) => (err ? reject(err) : resolve(out))),
  );
}
let tmpCounter = 0;

/**
 * Entries above this are gzipped as several members at once on the thread pool; concatenated gzip
 * members are one valid gzip stream, and gunzip reads them back as one. On a 108 MB log here, four
 * parallel members took 326 ms against 563 ms for one stream, for 0.004 % more bytes.
 */
const PARALLEL_MIN_BYTES = 8 << 20;
const PARALLEL_PARTS = 4;

async function gzipParallel(bytes: Buffer): Promise<Buffer> {
  const step = Math.ceil(bytes.length / PARALLEL_PARTS);
  const parts = await Promise.all(
    Array.from({ length: PARALLEL_PARTS }, (_, i) =>
      gzipAsync(bytes.subarray(i * step, Math.min(bytes.length, (i + 1) * step)), {
        level: GZIP_LEVEL,
        chunkSize: BIG_CHUNK,
      }),
    ),
  );
  return Buffer.concat(parts);
}

/** The path an entry lives at; callers must have checked isKey(key). */
export function entryPath(dir: string, key: string): string {
  return join(dir, key.slice(0, 2), key);
}

interface Entry {
  key: string;
  path: string;
  size: number;
  mtimeMs: number;
}

interface Scan {
  entries: Entry[];
  temps: Entry[];
  shards: string[];
}

function codeOf(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string')
    return err.code;
  return undefined;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * An original is valid UTF-8 text, and 0x8b is a continuation byte that can never follow the ASCII
 * byte 0x1f, so no stored original starts with gzip's magic 1f 8b: the two bytes alone tell the formats
 * apart, and small or incompressible entries can be stored raw with no header of our own.
 */
function isGzip(raw: Buffer): boolean {
  return raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b;
}

async function decode(raw: Buffer): Promise<Buffer> {
  if (!isGzip(raw)) return raw;
  return raw.length > BIG_CHUNK ? gunzipAsync(raw, { chunkSize: BIG_CHUNK }) : gunzipAsync(raw);
}

async function touch(path: string): Promise<void> {
  const now = new Date();
  await utimes(path, now, now).catch(() => undefined);
}

/** 'removed' by us, 'gone' (someone else removed it first), or 'failed' (still there). */
async function remove(path: string): Promise<'removed' | 'gone' | 'failed'> {
  try {
    await unlink(path);
    return 'removed';
  } catch (err) {
    return codeOf(err) === 'ENOENT' ? 'gone' : 'failed';
  }
}

export function createFsStore(opts: StoreOptions): Store {
  const { dir, ttlDays, maxBytes, compress } = opts;
  const ttlMs = ttlDays > 0 ? ttlDays * DAY_MS : Number.POSITIVE_INFINITY;
  const capBytes = maxBytes > 0 ? maxBytes : Number.POSITIVE_INFINITY;
  let writableAnswer: Promise<boolean> | undefined;

  // pid + time + counter is unique on this host, and the 'wx' open refuses any clash anyway.
  const tmpPath = () =>
    join(
      dir,
      `${TMP_PREFIX}${process.pid}-${Date.now().toString(36)}-${(tmpCounter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
    );
  const shardDir = (key: string) => join(dir, key.slice(0, 2));

  /** How the entry already on disk under this key relates to `bytes`. Throws on unexpected read errors. */
  async function compare(path: string, bytes: Buffer): Promise<'absent' | 'same' | 'different'> {
    let raw: Buffer;
    try {
      raw = await readFile(path);
    } catch (err) {
      if (codeOf(err) === 'ENOENT') return 'absent';
      throw err;
    }
    try {
      return (await decode(raw)).equals(bytes) ? 'same' : 'different';
    } catch {
      return 'different'; // an unreadable gzip stream is not our bytes either: never overwrite it
    }
  }

  async function encode(bytes: Buffer): Promise<Buffer> {
    if (!compress || bytes.length < COMPRESS_MIN_BYTES) return bytes;
    const packed =
      bytes.length > PARALLEL_MIN_BYTES
        ? await gzipParallel(bytes)
        : await gzipAsync(bytes, { level: GZIP_LEVEL });
    return packed.length < bytes.length ? packed : bytes;
  }

  async function existing(key: string, path: string, bytes: Buffer): Promise<PutResult | undefined> {
    const state = await compare(path, bytes);
    if (state === 'absent') return undefined;
    if (state === 'different') {
      return { ok: false, key, reason: 'collision', detail: `a different entry already exists at ${path}` };
    }
    await touch(path);
    return { ok: true, key, created: false };
  }

  /**
   * Publishes a fully written temp file under the key. link(2) is atomic and fails with EEXIST instead
   * of replacing, so even two processes racing with different bytes can never overwrite an entry; the
   * rename fallback (only where hard links are unsupported) keeps the atomicity but not that guarantee.
   */
  async function publish(tmp: string, key: string, path: string, bytes: Buffer): Promise<PutResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        await link(tmp, path);
        return { ok: true, key, created: true };
      } catch (err) {
        const code = codeOf(err);
        if (code && NO_HARD_LINKS.has(code)) {
          await rename(tmp, path);
          return { ok: true, key, created: true };
        }
        if (attempt >= 3 || (code !== 'EEXIST' && code !== 'ENOENT')) throw err;
        if (code === 'EEXIST') {
          const found = await existing(key, path, bytes);
          if (found) return found;
          // It vanished between link and read (a concurrent prune): try again.
        } else {
          // A concurrent clear removed the empty shard directory between our mkdir and link.
          await mkdir(shardDir(key), { recursive: true, mode: 0o700 });
        }
      }
    }
  }

  async function write(key: string, path: string, bytes: Buffer, data: Buffer): Promise<PutResult> {
    await mkdir(shardDir(key), { recursive: true, mode: 0o700 });
    const tmp = tmpPath();
    let made = false;
    try {
      const fh = await open(tmp, 'wx', 0o600);
      made = true;
      try {
        await fh.writeFile(data);
        // Without this a power cut after the link could leave an empty file under the key.
        await fh.datasync();
      } finally {
        await fh.close();
      }
      return await publish(tmp, key, path, bytes);
    } finally {
      // After a successful link the entry keeps its own name; after rename this is a harmless ENOENT.
      if (made) await unlink(tmp).catch(() => undefined);
    }
  }

  async function scan(): Promise<Scan> {
    const out: Scan = { entries: [], temps: [], shards: [] };
    let top: Dirent[];
    try {
      top = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      const code = codeOf(err);
      if (code === 'ENOENT' || code === 'ENOTDIR') return out;
      throw err;
    }
    const statEntry = async (key: string, path: string): Promise<Entry | undefined> => {
      try {
        const st = await lstat(path);
        return st.isFile() ? { key, path, size: st.size, mtimeMs: st.mtimeMs } : undefined;
      } catch {
        return undefined; // vanished under us (another process pruned it): simply not there
      }
    };
    for (const d of top) {
      if (d.isDirectory() && SHARD_RE.test(d.name)) {
        out.shards.push(d.name);
        const shard = join(dir, d.name);
        const names = await readdir(shard).catch((): string[] => []);
        const found = await Promise.all(
          names.filter((n) => isKey(n) && n.startsWith(d.name)).map((n) => statEntry(n, join(shard, n))),
        );
        for (const e of found) if (e) out.entries.push(e);
      } else if (d.name.startsWith(TMP_PREFIX)) {
        const e = await statEntry(d.name, join(dir, d.name));
        if (e) out.temps.push(e);
      }
    }
    return out;
  }

  /** Removes stale temps, expired entries, then least-recently-used ones until under the cap. */
  async function runPrune(now: number, keep: ReadonlySet<string>): Promise<PruneResult> {
    const { entries, temps } = await scan();
    for (const t of temps) if (now - t.mtimeMs > STALE_TMP_MS) await remove(t.path);
    let removed = 0;
    let freedBytes = 0;
    const live: Entry[] = [];
    for (const e of entries) {
      if (!keep.has(e.key) && now - e.mtimeMs > ttlMs) {
        const r = await remove(e.path);
        if (r === 'removed') {
          removed++;
          freedBytes += e.size;
        }
        if (r !== 'failed') continue;
      }
      live.push(e);
    }
    let total = live.reduce((n, e) => n + e.size, 0);
    let remaining = live.length;
    if (total > capBytes) {
      live.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.key < b.key ? -1 : 1));
      for (const e of live) {
        if (total <= capBytes) break;
        if (keep.has(e.key) || now - e.mtimeMs < IN_FLIGHT_MS) continue;
        const r = await remove(e.path);
        if (r === 'failed') continue;
        if (r === 'removed') {
          removed++;
          freedBytes += e.size;
        }
        total -= e.size;
        remaining--;
      }
    }
    return { removed, freedBytes, remaining, remainingBytes: total };
  }

  /** Sets the prune stamp to now, creating it when missing. */
  async function stampNow(now: number): Promise<void> {
    const stamp = join(dir, STAMP);
    const t = new Date(now);
    try {
      await utimes(stamp, t, t);
    } catch (err) {
      if (codeOf(err) !== 'ENOENT') throw err;
      const fh = await open(stamp, 'a', 0o600);
      await fh.close();
    }
  }

  /**
   * Claims the prune slot when the stamp is older than the interval (or missing, or far in the future
   * after a clock change). The stamp is touched before pruning starts, so processes checking after that
   * instant skip; two that check in the same instant both prune, which is wasted work, not harm.
   */
  async function claimPrune(now: number): Promise<boolean> {
    try {
      const age = now - (await stat(join(dir, STAMP))).mtimeMs;
      // |age|, not age: a stamp created this very millisecond can read as a fraction of a ms in the
      // future (Date.now() truncates), while one far in the future means the clock was set back.
      if (Math.abs(age) < PRUNE_EVERY_MS) return false;
    } catch (err) {
      if (codeOf(err) !== 'ENOENT') return false;
    }
    await stampNow(now);
    return true;
  }

  const store: Store = {
    dir,

    writable() {
      writableAnswer ??= (async () => {
        // Sessions and CI run as root, which ignores permission bits: only an actual write tells.
        try {
          await mkdir(dir, { recursive: true, mode: 0o700 });
          const probe = tmpPath();
          const fh = await open(probe, 'wx', 0o600);
          try {
            await fh.write('probe');
          } finally {
            await fh.close();
            await unlink(probe).catch(() => undefined);
          }
          return true;
        } catch {
          return false;
        }
      })();
      return writableAnswer;
    },

    async has(key) {
      if (typeof key !== 'string' || !isKey(key)) return false;
      return lstat(entryPath(dir, key)).then(
        (st) => st.isFile(),
        () => false,
      );
    },

    async put(original, given) {
      let key = '';
      try {
        // Hash the bytes, not the string: V8 would encode a large string a second time inside update().
        const bytes = given
          ? Buffer.from(given.buffer, given.byteOffset, given.byteLength)
          : Buffer.from(original, 'utf8');
        key = keyOf(bytes);
        const path = entryPath(dir, key);
        const found = await existing(key, path, bytes);
        if (found) return found;
        const data = await encode(bytes);
        if (data.length > capBytes) {
          return {
            ok: false,
            key,
            reason: 'error',
            detail: `entry of ${data.length} bytes exceeds the store cap of ${maxBytes} bytes`,
          };
        }
        const result = await write(key, path, bytes, data);
        if (result.ok && result.created) {
          // The entry is safely in place: a failing prune must not turn this put into a failure.
          const now = Date.now();
          await claimPrune(now)
            .then((due) => (due ? runPrune(now, new Set([key])) : undefined))
            .catch(() => undefined);
        }
        return result;
      } catch (err) {
        const code = codeOf(err);
        return {
          ok: false,
          key,
          reason: code && UNWRITABLE.has(code) ? 'unwritable' : 'error',
          detail: messageOf(err),
        };
      }
    },

    async get(key) {
      // The only gate between user input and a path: `../../etc/passwd` never reaches the filesystem.
      if (typeof key !== 'string' || !isKey(key)) return undefined;
      const path = entryPath(dir, key);
      try {
        const bytes = await decode(await readFile(path));
        if (keyOf(bytes) !== key) return undefined;
        await touch(path);
        return bytes;
      } catch {
        return undefined;
      }
    },

    async info(): Promise<StoreInfo> {
      const { entries } = await scan();
      const info: StoreInfo = {
        dir,
        entries: entries.length,
        bytes: entries.reduce((n, e) => n + e.size, 0),
        ttlDays,
        maxBytes,
        compress,
      };
      // A loop, not Math.min(...spread): a large store would overflow the argument limit.
      for (const e of entries) {
        if (info.oldestMtimeMs === undefined || e.mtimeMs < info.oldestMtimeMs)
          info.oldestMtimeMs = e.mtimeMs;
        if (info.newestMtimeMs === undefined || e.mtimeMs > info.newestMtimeMs)
          info.newestMtimeMs = e.mtimeMs;
      }
      return info;
    },

    async prune(pruneOpts = {}) {
      const now = Date.now();
      if (!pruneOpts.force && !(await claimPrune(now).catch(() => false))) {
        const { entries } = await scan();
        const remainingBytes = entries.reduce((n, e) => n + e.size, 0);
        return { removed: 0, freedBytes: 0, remaining: entries.length, remainingBytes };
      }
      // A forced prune also restarts the lazy interval: the store was just brought into shape.
      if (pruneOpts.force) await stampNow(now).catch(() => undefined);
      return runPrune(now, new Set());
    },

    async clear() {
      const { entries, temps, shards } = await scan();
      let removed = 0;
      for (const e of entries) if ((await remove(e.path)) === 'removed') removed++;
      for (const t of temps) await remove(t.path);
      // Empty shard directories go too; one still holding something we did not write stays.
      for (const s of shards) await rmdir(join(dir, s)).catch(() => undefined);
      return removed;
    },
  };
  return store;
}
