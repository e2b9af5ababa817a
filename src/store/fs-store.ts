/**
 * The on-disk store (DESIGN §5): one file per entry at `<dir>/<key[0..2]>/<key>`; the directory is the
 * index. Writes land in a temp file in the store and are moved into place atomically, so a key never
 * names half-written bytes, and an entry holding its original is never overwritten (different bytes
 * that hash to the same key = collision; see publish for the one filesystem caveat). Something under
 * a key that is not that key's original (damaged, truncated, a planted link) is corrupt: reads say
 * so, and the next put of the original replaces it.
 * Reads validate the key before it becomes a path and verify the content hash. No method throws for
 * an ordinary fs failure: put reports it, reads say "unavailable"; only clear and a forced prune
 * throw (StoreActionError), because a user asked for them and must hear that they failed.
 * Entries are private to the user (0700 dirs, 0600 files): they hold raw tool output, secrets
 * included. Links inside the store are never followed (fs-entry.ts).
 */
import { closeSync, lstatSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { link, open, rename, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDirsSync } from '../make-dirs.js';
import { encode, encodeText } from './codec.js';
import { type BatchOps, putBatch } from './fs-batch.js';
import {
  CREATE_FLAGS,
  clearDirectory,
  codeOf,
  ensureRealDir,
  messageOf,
  NO_HARD_LINKS,
  readRegular,
  refresh,
  remove,
} from './fs-entry.js';
import { PACK_DIR, PackSet, type PackSlot, readSlot } from './fs-pack.js';
import {
  claimPrune,
  lastRemoval,
  markRemoval,
  pruneStore,
  scanStore,
  stampNow,
  TMP_PREFIX,
} from './fs-prune.js';
import { isKey, keyOf, SLICED_MIN } from './keys.js';
import {
  type EntryRead,
  type PruneResult,
  type PutResult,
  type ReadLimit,
  type Store,
  StoreActionError,
  type StoreInfo,
  type StoreOptions,
} from './store.js';
import { compareStored, readStored } from './verify.js';

export const STORE_DEFAULTS: Readonly<Required<Omit<StoreOptions, 'dir'>>> = {
  ttlDays: 14,
  maxBytes: 512 * 1024 * 1024,
  compress: true,
  maxEntryBytes: 1024 * 1024 * 1024,
};

const DAY_MS = 86_400_000;
/** How long one refresh of a pack stands for every re-use of its originals (well under IN_FLIGHT_MS). */
const TOUCH_MS = 5_000;
/** Errors meaning "this store cannot persist here" rather than a bug or a transient oddity. */
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'ENOSPC', 'EDQUOT', 'EEXIST', 'EISDIR']);

let tmpCounter = 0;

/** The path an entry lives at; callers must have checked isKey(key). */
export function entryPath(dir: string, key: string): string {
  return join(dir, key.slice(0, 2), key);
}

/** Whether a file can be created and written in the store (which is made if missing). */
function probeWrite(dir: string, probe: string): boolean {
  try {
    // The store directory itself may be a link (the user's own choice: a cache on another disk);
    // only what is inside it is never followed.
    makeDirsSync(dir);
    const fd = openSync(probe, CREATE_FLAGS, 0o600);
    try {
      writeSync(fd, 'probe');
    } finally {
      closeSync(fd);
      try {
        unlinkSync(probe);
      } catch {
        // gone already
      }
    }
    return true;
  } catch {
    return false;
  }
}

/** Whether a regular file (not a link) is at path. */
function isFile(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}

/** How the bytes under a key relate to the original a put brings. */
type Existing = 'absent' | 'same' | 'corrupt' | 'different';

/** What a judge makes of one stored form: its value (the original, or how it compares), or corrupt. */
type Judged<T> = { found: true; value: T } | { found: false; why: 'corrupt'; detail: string };
/** What is under a key once every place that could hold it was looked at. */
type Located<T> = (
  | Judged<T>
  | { found: false; why: 'missing' | 'unavailable'; detail?: string; error?: unknown }
) & { where: string };

/**
 * The stored form of a loose entry, read only if it is a regular file no larger than `limit` (a
 * stored form is never larger than its original). `corrupt` covers a link, a directory or another
 * non-regular file there (EINVAL from readRegular) and a file too large to be an entry (EFBIG).
 */
async function rawEntry(
  path: string,
  limit: number,
): Promise<{ raw: Buffer } | Exclude<Located<never>, { found: true }>> {
  try {
    return { raw: await readRegular(path, limit) };
  } catch (err) {
    const code = codeOf(err);
    if (code === 'ENOENT') return { found: false, why: 'missing', where: path };
    if (code === 'EINVAL' || code === 'EFBIG')
      return { found: false, why: 'corrupt', detail: messageOf(err), where: path };
    return { found: false, why: 'unavailable', detail: messageOf(err), error: err, where: path };
  }
}

/** The stored form at one pack slot (a pack gone: missing; a slot larger than any entry: corrupt). */
function rawSlot(
  slot: PackSlot,
  limit: number,
): { raw: Buffer } | { found: false; why: 'missing' | 'corrupt'; detail?: string } {
  if (slot.length > limit)
    return {
      found: false,
      why: 'corrupt',
      detail: `${slot.path} holds a slot larger than store.max_entry_mb`,
    };
  try {
    return { raw: readSlot(slot) };
  } catch (err) {
    return codeOf(err) === 'ENOENT'
      ? { found: false, why: 'missing' }
      : { found: false, why: 'corrupt', detail: messageOf(err) };
  }
}

export function createFsStore(opts: StoreOptions): Store {
  const { dir, ttlDays, maxBytes, compress } = opts;
  /** The largest original this store keeps, and so the most any read of it inflates. */
  const entryLimit = opts.maxEntryBytes ?? STORE_DEFAULTS.maxEntryBytes;
  const limits = {
    ttlMs: ttlDays > 0 ? ttlDays * DAY_MS : Number.POSITIVE_INFINITY,
    capBytes: maxBytes > 0 ? maxBytes : Number.POSITIVE_INFINITY,
  };
  let writableAnswer: Promise<boolean> | undefined;

  // pid + time + counter is unique on this host, and the exclusive open refuses any clash anyway.
  const tmpPath = () =>
    join(
      dir,
      `${TMP_PREFIX}${process.pid}-${Date.now().toString(36)}-${(tmpCounter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
    );
  const shardDir = (key: string) => join(dir, key.slice(0, 2));
  const packs = new PackSet(dir);
  /**
   * Whether the packs listed last hold a key, for about `count` keys. Many: one lookup in every
   * pack's keys merged (made again after a pack came or went: 17,000 keys read and sorted); a few:
   * each looked up pack by pack, so a next turn's one new original after a first sight's pack does
   * not pay for the merge.
   */
  const heldIn = (count: number) =>
    count > 16 ? packs.holder() : (key: string) => packs.find(key).length > 0;

  /**
   * What is stored under a key as `judge` finds it, and the file whose time is its LRU time
   * (`where`): the loose entry first, then any pack holding the key. A damaged copy in one place
   * does not hide a good one in another; with none good, the loose entry's state is the answer
   * (missing, corrupt, unavailable).
   */
  async function locate<T>(
    key: string,
    judge: (raw: Buffer) => Promise<Judged<T>>,
    looseThere = true,
  ): Promise<Located<T>> {
    const path = entryPath(dir, key);
    // A batch knows from its lstat that no loose file is there: no failed open (an exception each).
    const rawLoose = looseThere
      ? await rawEntry(path, entryLimit)
      : ({ found: false, why: 'missing', where: path } as const);
    const loose: Located<T> = 'raw' in rawLoose ? { ...(await judge(rawLoose.raw)), where: path } : rawLoose;
    if (loose.found || loose.why === 'unavailable') return loose;
    // The packs as last listed first (a pack gone since reads as missing: harmless here, since the
    // bytes are read and checked), then listed again only if none of them has it.
    for (let listed = false; ; listed = true) {
      if (listed) packs.refresh();
      for (const slot of packs.find(key)) {
        const raw = rawSlot(slot, entryLimit);
        if (!('raw' in raw)) continue;
        const found = await judge(raw.raw);
        if (found.found) return { ...found, where: slot.path };
      }
      if (listed) return loose;
    }
  }

  /** The original under a key, inflated within the entry limit and checked against the key. */
  const original =
    (key: string, limit: number) =>
    async (raw: Buffer): Promise<Judged<Buffer>> => {
      const v = await readStored(raw, key, limit);
      return v.found ? { found: true, value: v.bytes } : v;
    };

  /** How the stored form under a key compares with the original a put brings (bounded by it). */
  const against =
    (key: string, bytes: Buffer | string) =>
    async (raw: Buffer): Promise<Judged<'same' | 'different'>> => {
      const c = await compareStored(raw, key, bytes, entryLimit);
      return c.is === 'corrupt'
        ? { found: false, why: 'corrupt', detail: c.detail }
        : { found: true, value: c.is };
    };

  /** Packs this process refreshed, and when: one refresh serves every original of a pack for a while. */
  const touched = new Map<string, number>();

  /**
   * refresh() of the file whose time is an entry's LRU time. A pack re-used for thousands of
   * originals (a proxy restarted on a session it stashed) is refreshed once per TOUCH_MS, not once
   * per original: a prune that scanned before that refresh sees the new time when it comes to evict
   * (evict re-checks it), and one that scans after it finds the pack in use (the cap spares what was
   * used within a minute; TTL is days).
   */
  async function touch(where: string): Promise<boolean> {
    const isPack = where.endsWith('.pack');
    const at = isPack ? touched.get(where) : undefined;
    // Never for as long as a prune could take the pack as expired (a TTL of minutes, say).
    if (at !== undefined && Date.now() - at < Math.min(TOUCH_MS, limits.ttlMs / 4)) return true;
    const ok = await refresh(where);
    if (ok && isPack) {
      touched.set(where, Date.now());
      if (touched.size > 1024) touched.delete(touched.keys().next().value as string);
    }
    return ok;
  }

  /**
   * The entry already under the key (loose or packed), if it can serve this put: `same` is re-used
   * after refresh() proves its file is still in place (a concurrent prune may be removing it: then it
   * is written anew). `corrupt` means the loose entry is damaged (it is replaced). The compare is
   * bounded by the original's length: a planted value that inflates to gigabytes is never inflated.
   */
  async function reuse(
    key: string,
    _path: string,
    bytes: Buffer | string,
    looseThere = true,
  ): Promise<PutResult | Existing> {
    const found = await locate(key, against(key, bytes), looseThere);
    if (found.found) {
      if (found.value === 'different')
        return {
          ok: false,
          key,
          reason: 'collision',
          detail: `a different entry already exists at ${found.where}`,
        };
      return (await touch(found.where)) ? { ok: true, key, created: false } : 'absent';
    }
    if (found.why === 'missing') return 'absent';
    if (found.why === 'corrupt') return 'corrupt';
    throw found.error;
  }

  /**
   * Publishes a fully written temp file under the key. link(2) is atomic and fails with EEXIST instead
   * of replacing, so even two processes racing with different bytes can never overwrite an entry; the
   * rename fallback (only where hard links are unsupported) keeps the atomicity but not that guarantee.
   * A corrupt entry is replaced by rename, which swaps the name atomically (a link there is replaced
   * itself, never written through); a directory planted there is cleared first (clearDirectory),
   * or rename could never replace it and that output would pass raw for ever.
   */
  async function publish(
    tmp: string,
    key: string,
    path: string,
    bytes: Buffer | string,
    replace: boolean,
  ): Promise<PutResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        if (replace) await rename(tmp, path);
        else await link(tmp, path);
        return { ok: true, key, created: true };
      } catch (err) {
        const code = codeOf(err);
        if (code && NO_HARD_LINKS.has(code) && !replace) {
          await rename(tmp, path);
          return { ok: true, key, created: true };
        }
        if (replace && attempt < 3 && (code === 'EISDIR' || code === 'ENOTEMPTY' || code === 'EEXIST')) {
          await clearDirectory(path, tmpPath());
          continue;
        }
        if (attempt >= 3 || (code !== 'EEXIST' && code !== 'ENOENT')) throw err;
        if (code === 'EEXIST') {
          const found = await reuse(key, path, bytes);
          if (typeof found === 'object') return found;
          replace = found === 'corrupt';
          // 'absent': it vanished between link and read (a concurrent prune): try again.
        } else {
          // A concurrent clear removed the empty shard directory between our mkdir and link.
          await ensureRealDir(shardDir(key));
        }
      }
    }
  }

  async function write(
    key: string,
    path: string,
    bytes: Buffer | string,
    data: Buffer,
    replace: boolean,
  ): Promise<PutResult> {
    await ensureRealDir(shardDir(key));
    const tmp = tmpPath();
    let made = false;
    try {
      const fh = await open(tmp, CREATE_FLAGS, 0o600);
      made = true;
      try {
        await fh.writeFile(data);
        // Without this a power cut after the link could leave an empty file under the key.
        await fh.datasync();
      } finally {
        await fh.close();
      }
      return await publish(tmp, key, path, bytes, replace);
    } finally {
      // After a successful link the entry keeps its own name; after rename this is a harmless ENOENT.
      if (made) await unlink(tmp).catch(() => undefined);
    }
  }

  /**
   * A put's failed result when the original is larger than any entry this store keeps: what is
   * stored must read back within the limit every read inflates to.
   */
  function overLimit(key: string, length: number): PutResult | undefined {
    if (length <= entryLimit) return undefined;
    return {
      ok: false,
      key,
      reason: 'error',
      detail: `an original of ${length} bytes exceeds store.max_entry_mb (${entryLimit / 2 ** 20} MiB)`,
    };
  }

  /** A put's failed result when an entry's stored form is over the store's cap. */
  function overCap(key: string, data: Buffer): PutResult | undefined {
    if (data.length <= limits.capBytes) return undefined;
    return {
      ok: false,
      key,
      reason: 'error',
      detail: `entry of ${data.length} bytes exceeds the store cap of ${maxBytes} bytes`,
    };
  }

  /**
   * put of a large text whose bytes nobody holds: hashed, compressed and (when an entry is already
   * there) compared a slice at a time, so the text's whole encoding never exists beside it — on a
   * 56 MB original, 58 MB less at the run's peak. Only where something is unusual (gzip does not
   * pay, a link race) are the bytes encoded whole, as put does.
   */
  async function putText(original: string): Promise<PutResult> {
    let key = '';
    try {
      key = keyOf(original);
      const path = entryPath(dir, key);
      const beyond = overLimit(key, Buffer.byteLength(original, 'utf8'));
      if (beyond) return beyond;
      const found = await reuse(key, path, original);
      if (typeof found === 'object') return found;
      const data = (await encodeText(original)) ?? Buffer.from(original, 'utf8');
      const tooLarge = overCap(key, data);
      if (tooLarge) return tooLarge;
      const result = await write(key, path, original, data, found === 'corrupt');
      if (result.ok && result.created) await lazyPrune(key).catch(() => undefined);
      return result;
    } catch (err) {
      return failure(key, err);
    }
  }

  /** After a put created an entry: the lazy prune, at most every few minutes, never of that entry. */
  async function lazyPrune(key: string): Promise<void> {
    const now = Date.now();
    if (await claimPrune(dir, now)) await pruneStore(dir, limits, now, new Set([key]), tmpPath);
  }

  /** A put's failed result for an error thrown while storing key. */
  function failure(key: string, err: unknown): PutResult {
    const code = codeOf(err);
    return {
      ok: false,
      key,
      reason: code && UNWRITABLE.has(code) ? 'unwritable' : 'error',
      detail: messageOf(err),
    };
  }

  /** put's own steps, for putMany (fs-batch.ts). */
  const batchOps: BatchOps = {
    dir,
    compress,
    capBytes: limits.capBytes,
    overLimit,
    maxBytes,
    tmpPath,
    reuse,
    publish,
    failure,
    async prune(keep) {
      const now = Date.now();
      if (await claimPrune(dir, now)) await pruneStore(dir, limits, now, keep, tmpPath);
    },
    presence(count) {
      packs.refresh();
      return heldIn(count);
    },
    put: ({ original, bytes }) => store.put(original, bytes),
  };

  async function read(key: string, use: boolean, opts: ReadLimit = {}): Promise<EntryRead> {
    // The only gate between user input and a path: `../../etc/passwd` never reaches the filesystem.
    if (typeof key !== 'string' || !isKey(key)) return { found: false, why: 'missing' };
    const limit = Math.min(entryLimit, opts.maxBytes ?? entryLimit);
    const found = await locate(key, original(key, limit));
    if (!found.found)
      return {
        found: false,
        why: found.why,
        ...(found.detail === undefined ? {} : { detail: found.detail }),
      };
    if (use) await touch(found.where);
    return { found: true, bytes: found.value };
  }

  const store: Store = {
    dir,

    writable() {
      // Sessions and CI run as root, which ignores permission bits: only an actual write tells.
      // Synchronous (probeWrite): a few system calls, cheaper than starting libuv's thread pool for
      // them, which the cheapest runs (nothing stashed) would otherwise do for this probe alone.
      writableAnswer ??= Promise.resolve(probeWrite(dir, tmpPath()));
      return writableAnswer;
    },

    async has(key) {
      return (await store.hasMany!([key]))[0]!;
    },

    async put(original, given) {
      if (!given && compress && original.length >= SLICED_MIN) return putText(original);
      let key = '';
      try {
        // Hash the bytes, not the string: V8 would encode a large string a second time inside update().
        // A Buffer given is used as it is: keyOf knows its key already when the pipeline placed the
        // marker (a view made here would be a new object, and hash 100 MB a second time).
        const bytes = given
          ? Buffer.isBuffer(given)
            ? given
            : Buffer.from(given.buffer, given.byteOffset, given.byteLength)
          : Buffer.from(original, 'utf8');
        key = keyOf(bytes);
        const path = entryPath(dir, key);
        const beyond = overLimit(key, bytes.length);
        if (beyond) return beyond;
        const found = await reuse(key, path, bytes);
        if (typeof found === 'object') return found;
        const data = await encode(bytes, compress);
        const tooLarge = overCap(key, data);
        if (tooLarge) return tooLarge;
        const result = await write(key, path, bytes, data, found === 'corrupt');
        // The entry is safely in place: a failing prune must not turn this put into a failure.
        if (result.ok && result.created) await lazyPrune(key).catch(() => undefined);
        return result;
      } catch (err) {
        return failure(key, err);
      }
    },

    putMany: (items) => putBatch(items, batchOps),

    async hasMany(keys) {
      // Synchronous lstat: a call that returns at once costs less than a thread-pool round trip.
      packs.refresh();
      const held = heldIn(keys.length);
      return keys.map((key) => {
        if (typeof key !== 'string' || !isKey(key)) return false;
        return isFile(entryPath(dir, key)) || held(key);
      });
    },

    read: (key, opts) => read(key, true, opts),
    peek: (key, opts) => read(key, false, opts),

    async get(key) {
      const found = await read(key, true);
      return found.found ? found.bytes : undefined;
    },

    async info(): Promise<StoreInfo> {
      const { entries } = await scanStore(dir);
      const info: StoreInfo = {
        dir,
        entries: entries.reduce((n, e) => n + e.count, 0),
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

    async prune(pruneOpts = {}): Promise<PruneResult> {
      const now = Date.now();
      if (!pruneOpts.force && !(await claimPrune(dir, now).catch(() => false))) {
        const { entries } = await scanStore(dir);
        const remainingBytes = entries.reduce((n, e) => n + e.size, 0);
        const remaining = entries.reduce((n, e) => n + e.count, 0);
        return { removed: 0, freedBytes: 0, remaining, remainingBytes };
      }
      if (pruneOpts.force) {
        // A forced prune also restarts the lazy interval; failing to, it has found a store it cannot
        // change, which the user asked about and must hear.
        try {
          await stampNow(dir, now);
        } catch (err) {
          if (codeOf(err) !== 'ENOENT') throw cannot('prune', err);
        }
      }
      const { error, ...result } = await pruneStore(dir, limits, now, new Set(), tmpPath);
      if (pruneOpts.force && result.failed) throw cannot('prune', error, result.failed, result.removed);
      return result;
    },

    removedAt: () => lastRemoval(dir),

    async clear() {
      const { entries, temps, shards, links } = await scanStore(dir);
      if (entries.length > 0) await markRemoval(dir, Date.now()).catch(() => undefined);
      let removed = 0;
      let failed = 0;
      let error: unknown;
      for (const e of entries) {
        const r = await remove(e.path);
        if (r.outcome === 'removed') removed += e.count;
        if (r.outcome === 'failed') {
          failed++;
          error ??= r.error;
        }
      }
      for (const t of [...temps.map((t) => t.path), ...links]) await remove(t);
      // Empty shard directories go too; one still holding something we did not write stays.
      for (const s of [...shards, PACK_DIR]) await rmdir(join(dir, s)).catch(() => undefined);
      if (failed) throw cannot('clear', error, failed, removed);
      return removed;
    },
  };

  /** The one-line failure of a clear or prune the user asked for. */
  function cannot(action: string, err: unknown, failed = 0, removed = 0): StoreActionError {
    const what = failed ? `could not remove ${failed} ${failed === 1 ? 'entry' : 'entries'}` : 'cannot write';
    const done = removed ? ` (removed ${removed})` : '';
    return new StoreActionError(`store ${action}: ${what} in ${dir}${done}: ${messageOf(err)}`);
  }
  return store;
}
