/**
 * The proxy's view of the store, for one long-lived process. Two things a per-run CLI cannot do:
 *   - presence in memory: a key this process stashed (or found) recently is known to be there, so a
 *     later turn's put of the same original costs no I/O (the store's own put would read the entry
 *     back to compare it);
 *   - puts in parallel: the pipeline awaits each put in turn, so a first sight of a large session
 *     would write its thousands of originals one after another. Here put() queues the write and
 *     answers at once, and flush() — which the proxy awaits before anything leaves for the upstream
 *     — waits for them all, running a bounded number at a time.
 * A marker still never leaves without its original: if any queued put failed, flush() says so and
 * the proxy forwards the original body instead (fail open). Presence is bounded (oldest forgotten
 * first) and refreshed through the real store once a day, so entries in use keep their mtime (LRU).
 */
import { keyOf } from '../store/keys.js';
import type { PutResult, Store } from '../store/store.js';

const PARALLEL_PUTS = 16;
const PRESENCE_LIMIT = 500_000;
const REFRESH_MS = 86_400_000;

/** One request's view of the store. */
export interface RequestStore extends Store {
  /** Waits for this request's queued puts; the reasons of those that failed (empty: all persisted). */
  flush(): Promise<string[]>;
}

export interface StoreCache {
  /** A view for one request: its puts are queued, and its flush() waits for exactly those. */
  forRequest(): RequestStore;
}

export function storeCache(inner: Store, now: () => number = Date.now): StoreCache {
  /** Key → when it was last known to be in the store. */
  const present = new Map<string, number>();
  /** Key → the put in flight for it (shared by every request that needs that original). */
  const inFlight = new Map<string, Promise<string | undefined>>();
  const queue: (() => void)[] = [];
  let running = 0;

  const remember = (key: string) => {
    present.delete(key);
    present.set(key, now());
    if (present.size > PRESENCE_LIMIT) present.delete(present.keys().next().value as string);
  };
  const pump = () => {
    while (running < PARALLEL_PUTS && queue.length > 0) {
      running++;
      queue.shift()!();
    }
  };
  /** The put of one original, queued; resolves to a failure reason or undefined. */
  const enqueue = (key: string, original: string, bytes?: Uint8Array) =>
    new Promise<string | undefined>((resolve) => {
      queue.push(() => {
        inner
          .put(original, bytes)
          .then(
            (r) => (r.ok ? undefined : `${r.reason}${r.detail ? `: ${r.detail}` : ''}`),
            (err: unknown) => (err instanceof Error ? err.message : String(err)),
          )
          .then((failure) => {
            inFlight.delete(key);
            if (failure === undefined) remember(key);
            running--;
            pump();
            resolve(failure);
          });
      });
      pump();
    });

  return {
    forRequest(): RequestStore {
      const mine: Promise<string | undefined>[] = [];
      return {
        get dir() {
          return inner.dir;
        },
        writable: () => inner.writable(),
        put(original: string, bytes?: Uint8Array): Promise<PutResult> {
          const key = keyOf(bytes ?? original);
          const seen = present.get(key);
          if (seen !== undefined && now() - seen < REFRESH_MS)
            return Promise.resolve({ ok: true, key, created: false });
          let pending = inFlight.get(key);
          if (!pending) {
            pending = enqueue(key, original, bytes);
            inFlight.set(key, pending);
          }
          mine.push(pending);
          return Promise.resolve({ ok: true, key, created: true });
        },
        async flush() {
          const failures = (await Promise.all(mine)).filter((f): f is string => f !== undefined);
          mine.length = 0;
          return failures;
        },
        get: (key) => inner.get(key),
        info: () => inner.info(),
        prune: (o) => inner.prune(o),
        clear: async () => {
          present.clear();
          return inner.clear();
        },
      };
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
    flush: async () => [],
    get: (key) => inner.get(key),
    info: () => inner.info(),
    prune: (o) => inner.prune(o),
    clear: () => inner.clear(),
  };
}
