/**
 * The store a Redis URL selects: the shared Redis store, with the local disk store behind it in the
 * roles the user chose (store.fallback, store.cache). It keeps the one rule of every store — never
 * a marker without a persisted original — when the server is down or slow:
 *
 *   put   Redis; if Redis cannot persist (down, slow, refused, full) and fallback is on, the local
 *         disk store (that marker then expands on this machine only); else the put fails and the
 *         pipeline reverts that rewrite, so only lossless rewrites reach the output.
 *   read  the local cache first when cache is on (then Redis's expiry is refreshed); Redis; then
 *         the local store, whatever the roles: it holds what was stashed there while Redis was
 *         down, or before Redis was set up. Without the fallback role, a Redis that cannot be
 *         reached is one line on stderr when the local store answers instead (fail open: the
 *         original is the user's either way).
 *
 * A collision is never "fallen back" from: it is an answer, not an outage. The first time Redis
 * fails in a process, one line says so on stderr (the reason, never a value); `--verbose` shows the
 * rest.
 */
import type { RedisStore } from './redis-store.js';
import {
  type EntryRead,
  hasAll,
  type PruneResult,
  type PutResult,
  putAll,
  readEntry,
  type Store,
  type StoreInfo,
} from './store.js';

export interface FleetOptions {
  redis: RedisStore;
  /** The local disk store; used only in the roles below. */
  local: Store;
  fallback: boolean;
  cache: boolean;
  /** Prints one line (without the `cg: ` prefix). */
  warn: (line: string) => void;
}

export function createFleetStore(opts: FleetOptions): Store {
  const { redis, local, fallback, cache } = opts;
  const useLocal = fallback || cache;
  let warned = false;
  const warnOnce = (line: string) => {
    if (warned) return;
    warned = true;
    opts.warn(line);
  };

  /**
   * Redis's miss, unless the local store has the original. Reaching past an unreachable Redis is
   * said once, unless the user chose the local store as the fallback (then it is the plan).
   */
  function fromLocal(r: EntryRead, l: EntryRead): EntryRead {
    if (!l.found) return r;
    if (!fallback && !r.found && r.why === 'unavailable')
      warnOnce(
        `store ${redis.link.display}: ${r.detail ?? 'unavailable'}; read from the local store at ${local.dir}`,
      );
    return l;
  }

  async function cacheCopy(bytes: Buffer): Promise<void> {
    // The cache is a convenience: a failure to fill it changes nothing.
    await local.put(bytes.toString('utf8'), bytes).catch(() => undefined);
  }

  const store: Store = {
    dir: redis.dir,

    async writable() {
      if (await redis.writable()) return true;
      const why = `store ${redis.link.display}: ${redis.link.downReason() ?? 'unavailable'}`;
      if (fallback && (await local.writable())) {
        warnOnce(`${why}; stashing in the local store at ${local.dir} (markers expand on this machine only)`);
        return true;
      }
      warnOnce(`${why}; lossless rewrites only`);
      return false;
    },

    async put(original, bytes): Promise<PutResult> {
      const r = await redis.put(original, bytes);
      if (r.ok || r.reason !== 'unwritable') return r;
      if (fallback) {
        const l = await local.put(original, bytes);
        if (l.ok) {
          warnOnce(
            `store ${r.detail ?? redis.dir}; stashing in the local store at ${local.dir} (markers expand on this machine only)`,
          );
          return l;
        }
      }
      warnOnce(`store ${r.detail ?? redis.dir}; lossless rewrites only`);
      return r;
    },

    /** put for many: one Redis batch; what Redis could not persist goes to the fallback as a batch. */
    async putMany(items): Promise<PutResult[]> {
      const results = await putAll(redis, items);
      const down = results.flatMap((r, i) => (!r.ok && r.reason === 'unwritable' ? [i] : []));
      if (down.length === 0) return results;
      const first = results[down[0]!] as Extract<PutResult, { ok: false }>;
      if (fallback) {
        const stashed = await putAll(
          local,
          down.map((i) => items[i]!),
        );
        down.forEach((i, n) => {
          if (stashed[n]!.ok) results[i] = stashed[n]!;
        });
        if (stashed.some((r) => r.ok))
          warnOnce(
            `store ${first.detail ?? redis.dir}; stashing in the local store at ${local.dir} (markers expand on this machine only)`,
          );
      }
      if (down.some((i) => !results[i]!.ok))
        warnOnce(`store ${first.detail ?? redis.dir}; lossless rewrites only`);
      return results;
    },

    async hasMany(keys) {
      const there = (await hasAll(redis, keys)) ?? keys.map(() => false);
      const missing = there.flatMap((t, i) => (t ? [] : [i]));
      if (!fallback || missing.length === 0) return there;
      const found = await hasAll(
        local,
        missing.map((i) => keys[i]!),
      );
      missing.forEach((i, n) => {
        there[i] = !!found?.[n];
      });
      return there;
    },

    // Redis expires entries by itself, unseen; what the fallback store removes is told.
    ...(fallback && local.removedAt ? { removedAt: () => local.removedAt!() } : {}),

    async has(key) {
      // A local cache copy does not count: other machines could not expand the marker. A fallback
      // entry does, as it would have at its put.
      if (await redis.has(key)) return true;
      return fallback && !!(await local.has?.(key));
    },

    async read(key, limit): Promise<EntryRead> {
      if (cache) {
        const hit = await readEntry(local, key, limit);
        if (hit.found) {
          await redis.touch(key);
          return hit;
        }
      }
      const r = await redis.read(key, limit);
      if (r.found) {
        if (cache) await cacheCopy(r.bytes);
        return r;
      }
      if (cache) return r; // the local store was asked first
      return fromLocal(r, await readEntry(local, key, limit));
    },

    async peek(key, limit): Promise<EntryRead> {
      const r = await redis.peek(key, limit);
      if (r.found) return r;
      return fromLocal(r, local.peek ? await local.peek(key, limit) : await readEntry(local, key, limit));
    },

    async get(key) {
      const r = await store.read!(key);
      return r.found ? r.bytes : undefined;
    },

    async info(): Promise<StoreInfo> {
      const [info, server] = await Promise.all([redis.info(), redis.server()]);
      const out: StoreInfo = { ...info, backend: 'redis', server };
      if (useLocal) out.local = { ...(await local.info()), fallback, cache };
      return out;
    },

    async prune(pruneOpts): Promise<PruneResult> {
      const r = await redis.prune(pruneOpts);
      if (useLocal) r.local = await local.prune({ force: true });
      return r;
    },

    async clear() {
      const n = await redis.clear();
      return useLocal ? n + (await local.clear()) : n;
    },
  };

  return store;
}
