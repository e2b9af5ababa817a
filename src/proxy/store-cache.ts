/**
 * The proxy's view of the store, for one long-lived process. Two things a per-run CLI cannot do:
 *   - presence in memory: a key this process stashed (or found) recently is known to be there, so a
 *     later turn's put of the same original, or the check that a replayed marker is still backed,
 *     costs no I/O (the store's own put would read the entry back to compare it);
 *   - one batch per request: the pipeline awaits each put in turn, so a first sight of a large
 *     session would write its thousands of originals one after another. Here put() notes the
 *     original and answers at once, and flush() — which the proxy awaits before anything leaves for
 *     the upstream — stores everything the request noted as one batch (Store.putMany: one
 *     durability barrier on disk, one pipeline on Redis) and waits until it is persisted.
 * A marker still never leaves without its original: if any put of the request failed, flush() says
 * so and the proxy forwards the original body instead (fail open). Presence is bounded (oldest
 * forgotten first), refreshed through the real store once a day (entries in use keep their LRU time
 * and Redis expiry), and forgotten whenever the store says entries were removed since (a prune or a
 * clear, by this process or another: Store.removedAt), so a marker whose entry a prune took is
 * stashed again from the request rather than re-sent unbacked.
 */
import { keyOf } from '../store/keys.js';
import { type PutItem, type PutResult, putAll, type Store } from '../store/store.js';

const PRESENCE_LIMIT = 500_000;
const REFRESH_MS = 86_400_000;

/** One request's view of the store. */
export interface RequestStore extends Store {
  /** Stores this request's noted originals and waits for them; the reasons of failures (empty: all persisted). */
  flush(): Promise<string[]>;
}

export interface StoreCache {
  /** Forgets presence when the store removed entries since the last look (one stat, at most). */
  refresh(): Promise<void>;
  /** A view for one request: its puts are noted, and its flush() stores and waits for exactly those. */
  forRequest(): RequestStore;
}

function failureOf(r: PutResult): string | undefined {
  return r.ok ? undefined : `${r.reason}${r.detail ? `: ${r.detail}` : ''}`;
}

export function storeCache(inner: Store, now: () => number = Date.now): StoreCache {
  /** Key → when it was last known to be in the store. */
  const present = new Map<string, number>();
  /** Key → the batch storing it right now (shared by every request that needs that original). */
  const inFlight = new Map<string, Promise<string | undefined>>();
  let removedAt: number | undefined;

  const remember = (key: string) => {
    present.delete(key);
    present.set(key, now());
    if (present.size > PRESENCE_LIMIT) present.delete(present.keys().next().value as string);
  };
  const known = (key: string) => {
    const seen = present.get(key);
    return seen !== undefined && now() - seen < REFRESH_MS;
  };

  /** Stores items as one batch; each key's promise says whether its original is persisted. */
  const send = (items: Map<string, PutItem>) => {
    const keys = [...items.keys()];
    const batch = putAll(inner, [...items.values()]).then(
      (results) => results.map(failureOf),
      (err: unknown) => keys.map(() => (err instanceof Error ? err.message : String(err))),
    );
    keys.forEach((key, i) => {
      const done = batch.then((failures) => {
        inFlight.delete(key);
        if (failures[i] === undefined) remember(key);
        return failures[i];
      });
      inFlight.set(key, done);
    });
  };

  return {
    async refresh() {
      const at = await inner.removedAt?.().catch(() => undefined);
      if (at !== removedAt) present.clear();
      removedAt = at;
    },

    forRequest(): RequestStore {
      const noted = new Map<string, PutItem>();
      /** The batches this request's originals are in (held here: a batch leaves inFlight when done). */
      const waiting = new Map<string, Promise<string | undefined>>();
      const wait = (key: string) => {
        const p = inFlight.get(key);
        if (p) waiting.set(key, p);
        return p !== undefined;
      };
      const view: RequestStore = {
        get dir() {
          return inner.dir;
        },
        writable: () => inner.writable(),
        put(original: string, bytes?: Uint8Array): Promise<PutResult> {
          const key = keyOf(bytes ?? original);
          if (known(key)) return Promise.resolve({ ok: true, key, created: false });
          if (!wait(key) && !noted.has(key)) noted.set(key, bytes ? { original, bytes } : { original });
          return Promise.resolve({ ok: true, key, created: true });
        },
        async has(key) {
          return (await view.hasMany!([key]))[0]!;
        },
        async hasMany(keys) {
          const found = keys.map((k) => known(k) || noted.has(k) || inFlight.has(k));
          const ask = keys.flatMap((k, i) => (found[i] ? [] : [k]));
          for (const k of keys) if (!noted.has(k)) wait(k);
          if (ask.length === 0 || !(inner.hasMany || inner.has)) return found;
          const there = inner.hasMany
            ? await inner.hasMany(ask)
            : await Promise.all(ask.map((k) => inner.has!(k)));
          let n = 0;
          return found.map((f, i) => {
            if (f) return true;
            const yes = there[n++]!;
            if (yes) remember(keys[i]!);
            return yes;
          });
        },
        async flush() {
          const fresh = new Map<string, PutItem>();
          for (const [key, item] of noted) if (!wait(key) && !known(key)) fresh.set(key, item);
          noted.clear();
          if (fresh.size > 0) {
            send(fresh);
            for (const key of fresh.keys()) wait(key);
          }
          const failures = await Promise.all(waiting.values());
          waiting.clear();
          return failures.filter((f): f is string => f !== undefined);
        },
        get: (key) => inner.get(key),
        ...(inner.removedAt ? { removedAt: () => inner.removedAt!() } : {}),
        info: () => inner.info(),
        prune: (o) => inner.prune(o),
        clear: async () => {
          present.clear();
          return inner.clear();
        },
      };
      return view;
    },
  };
}

/**
 * --observe: a store that keeps nothing and says every put succeeded, so the pipeline decides as it
 * would for real. Safe only because in observe mode no rewritten body ever leaves the proxy.
 */
export function observingStore(inner: Store): RequestStore {
  return {
    get dir() {
      return inner.dir;
    },
    writable: async () => true,
    put: async (original, bytes) => ({ ok: true, key: keyOf(bytes ?? original), created: false }),
    has: async () => true,
    flush: async () => [],
    get: (key) => inner.get(key),
    info: () => inner.info(),
    prune: (o) => inner.prune(o),
    clear: () => inner.clear(),
  };
}
