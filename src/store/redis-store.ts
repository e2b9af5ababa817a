/**
 * The Redis store: the disk store's contract on a server many machines share (DESIGN §5).
 *
 * - One string per original under `<prefix><key>` (same content keys as on disk), its value the
 *   original packed by codec.ts. No operation touches two keys, so Redis Cluster needs no change.
 * - TTL is Redis's own expiry, sliding: every put and read sets it again (SET … EX, GETEX … EX).
 * - put is set-if-absent (SET NX), then compare: the same bytes are a re-use, different bytes that
 *   hash to the key a collision (refused), and a value that does not decode to its key corrupt
 *   (replaced). A put answers ok only once Redis acknowledged the write.
 * - Anyone who can write the prefix can put anything under a key, so a value is never trusted
 *   before it is checked (verify.ts): a read inflates at most max_entry_mb, a put's compare at most
 *   the original's length, and neither holds what has not proved to be the key's original.
 * - The total size is Redis's business (maxmemory, `allkeys-lru`); each original is capped here
 *   (max_entry_mb, uncompressed, the same limit a read inflates to).
 * - prune leaves expiry to the server and gives an expiry to entries that have none; clear removes
 *   exactly the keys of this prefix (SCAN … MATCH <prefix>[0-9a-f]×16, then UNLINK).
 *
 * The paths are modules: reads (redis-read.ts), puts (redis-put.ts), upkeep (redis-maintain.ts),
 * over what they share (redis-context.ts). Every call goes through one RedisLink (bounded, lazy). put reports an unreachable server as
 * `unwritable` with the reason, reads as `unavailable`: the fleet store decides what happens next.
 */
import { type RedisStoreOptions, redisContext } from './redis-context.js';
import type { RedisLink } from './redis-link.js';
import { clearStore, pruneStore, serverInfo, storeInfo } from './redis-maintain.js';
import { putEntries, putEntry } from './redis-put.js';
import { hasEntries, hasEntry, peekEntry, readEntry, touchEntry } from './redis-read.js';
import type { EntryRead, ReadLimit, ServerInfo, Store } from './store.js';

export type { RedisStoreOptions };

export interface RedisStore extends Store {
  readonly backend: 'redis';
  readonly link: RedisLink;
  has(key: string): Promise<boolean>;
  read(key: string, opts?: ReadLimit): Promise<EntryRead>;
  peek(key: string, opts?: ReadLimit): Promise<EntryRead>;
  /** Refreshes an entry's expiry (an expand served from the local cache is a use too); never throws. */
  touch(key: string): Promise<void>;
  server(): Promise<ServerInfo>;
}

export function createRedisStore(opts: RedisStoreOptions): RedisStore {
  const ctx = redisContext(opts);
  const { link } = ctx;
  const dir = `${link.display}#${ctx.prefix}`;
  return {
    backend: 'redis',
    link,
    dir,
    async writable() {
      // Optimistic: asking the server here would cost a connection on every run, most of which
      // stash nothing. A put that cannot persist says so, and its rewrite is reverted.
      return link.downReason() === undefined;
    },
    put: (original, given) => putEntry(ctx, original, given),
    putMany: (items) => putEntries(ctx, items),
    hasMany: (keys) => hasEntries(ctx, keys),
    has: (key) => hasEntry(ctx, key),
    read: (key, readOpts) => readEntry(ctx, key, readOpts),
    peek: (key, readOpts) => peekEntry(ctx, key, readOpts),
    touch: (key) => touchEntry(ctx, key),
    async get(key) {
      const found = await readEntry(ctx, key);
      return found.found ? found.bytes : undefined;
    },
    server: () => serverInfo(ctx),
    info: () => storeInfo(ctx, dir),
    prune: () => pruneStore(ctx),
    clear: () => clearStore(ctx),
  };
}
