/**
 * The on-disk store (DESIGN §5): one file per entry at `<dir>/<key[0..2]>/<key>`; the directory is the
 * index. Writes land in a temp file in the store and are moved into place atomically, so a key never
 * names half-written bytes, and an entry holding its original is never overwritten (different bytes
 * that hash to the same key = collision; see fs-publish.ts for the one filesystem caveat). Something under
 * a key that is not that key's original (damaged, truncated, a planted link) is corrupt: reads say
 * so, and the next put of the original replaces it.
 * Reads validate the key before it becomes a path and verify the content hash. No method throws for
 * an ordinary fs failure: put reports it, reads say "unavailable"; only clear and a forced prune
 * throw (StoreActionError), because a user asked for them and must hear that they failed.
 * Entries are private to the user (0700 dirs, 0600 files): they hold raw tool output, secrets
 * included. Links inside the store are never followed (fs-entry.ts).
 */
import { closeSync, lstatSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { makeDirsSync } from '../make-dirs.js';
import { putBatch } from './fs-batch.js';
import { entryPath, fsContext, heldIn } from './fs-context.js';
import { CREATE_FLAGS } from './fs-entry.js';
import { clearStore, pruneNow, pruneWhenDue, storeInfo } from './fs-maintain.js';
import { lastRemoval } from './fs-prune.js';
import { batchOps, putBytes, putText } from './fs-put.js';
import { peekEntry, readEntry } from './fs-read.js';
import { isKey, SLICED_MIN } from './keys.js';
import type { Store, StoreOptions } from './store.js';

export { entryPath, STORE_DEFAULTS } from './fs-context.js';

/**
 * The store over its paths: reads (fs-read.ts), puts one by one (fs-put.ts: where an entry is,
 * fs-locate.ts; how it is published, fs-publish.ts; its LRU time, fs-touch.ts) and in batches
 * (fs-batch.ts), and upkeep (fs-maintain.ts).
 */
export function createFsStore(opts: StoreOptions): Store {
  const ctx = fsContext(opts);
  const { dir, compress } = ctx;
  let writableAnswer: Promise<boolean> | undefined;

  const store: Store = {
    dir,

    writable() {
      // Sessions and CI run as root, which ignores permission bits: only an actual write tells.
      // Synchronous (probeWrite): a few system calls, cheaper than starting libuv's thread pool for
      // them, which the cheapest runs (nothing stashed) would otherwise do for this probe alone.
      writableAnswer ??= Promise.resolve(probeWrite(dir, ctx.tmpPath()));
      return writableAnswer;
    },

    async has(key) {
      return (await store.hasMany!([key]))[0]!;
    },

    put: (original, given) =>
      !given && compress && original.length >= SLICED_MIN
        ? putText(ctx, original)
        : putBytes(ctx, original, given),

    putMany: (items) => putBatch(items, ops),

    async hasMany(keys) {
      // Synchronous lstat: a call that returns at once costs less than a thread-pool round trip.
      ctx.packs.refresh();
      const held = heldIn(ctx, keys.length);
      return keys.map((key) => {
        if (typeof key !== 'string' || !isKey(key)) return false;
        return isFile(entryPath(dir, key)) || held(key);
      });
    },

    read: (key, readOpts) => readEntry(ctx, key, readOpts),
    peek: (key, readOpts) => peekEntry(ctx, key, readOpts),

    async get(key) {
      const found = await readEntry(ctx, key);
      return found.found ? found.bytes : undefined;
    },

    info: () => storeInfo(ctx),
    prune: (pruneOpts = {}) => (pruneOpts.force ? pruneNow(ctx) : pruneWhenDue(ctx)),
    removedAt: () => lastRemoval(dir),
    clear: () => clearStore(ctx),
  };
  const ops = batchOps(ctx, ({ original, bytes }) => store.put(original, bytes));
  return store;
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
