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
 * Every call goes through one RedisLink (bounded, lazy). put reports an unreachable server as
 * `unwritable` with the reason, reads as `unavailable`: the fleet store decides what happens next.
 */
import { encode } from './codec.js';
import { isKey, keyOf } from './keys.js';
import type { RedisLink } from './redis-link.js';
import {
  type EntryRead,
  type PruneResult,
  type PutResult,
  type ReadLimit,
  type ServerInfo,
  type Store,
  StoreActionError,
  type StoreInfo,
} from './store.js';
import { compareStored, readStored } from './verify.js';

export interface RedisStoreOptions {
  link: RedisLink;
  prefix: string;
  ttlDays: number;
  compress: boolean;
  maxEntryBytes: number;
}

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

const SCAN_COUNT = 1000;
/** Commands of one putMany/hasMany sent in one pipeline (one round trip each). */
const PIPELINE_MAX = 1000;

export function createRedisStore(opts: RedisStoreOptions): RedisStore {
  const { link, prefix, compress, maxEntryBytes } = opts;
  const ttlSeconds = opts.ttlDays > 0 ? Math.round(opts.ttlDays * 86_400) : 0;
  const ttlMs = ttlSeconds * 1000;
  const name = (key: string) => `${prefix}${key}`;
  const pattern = `${prefix}${'[0-9a-f]'.repeat(16)}`;
  type Client = Parameters<Parameters<RedisLink['run']>[0]>[0];
  /** SET with the sliding expiry; `onlyNew`: only if absent (null when it was there). */
  const setEntry = (c: Client, key: string, data: Buffer, onlyNew: boolean): Promise<'OK' | null> => {
    if (ttlSeconds)
      return onlyNew
        ? c.set(name(key), data, 'EX', ttlSeconds, 'NX')
        : c.set(name(key), data, 'EX', ttlSeconds);
    return onlyNew ? c.set(name(key), data, 'NX') : c.set(name(key), data);
  };

  /** What a stored value says about a key: its original, or why it is not one. */
  async function judge(key: string, raw: Buffer | null, limit: number): Promise<EntryRead> {
    if (raw === null) return { found: false, why: 'missing' };
    return readStored(raw, key, limit);
  }

  async function fetch(key: string, refresh: boolean, opts: ReadLimit = {}): Promise<EntryRead> {
    if (typeof key !== 'string' || !isKey(key)) return { found: false, why: 'missing' };
    try {
      const raw = await link.run((c) =>
        refresh && ttlSeconds ? c.getexBuffer(name(key), 'EX', ttlSeconds) : c.getBuffer(name(key)),
      );
      return await judge(key, raw, Math.min(maxEntryBytes, opts.maxBytes ?? maxEntryBytes));
    } catch (err) {
      return { found: false, why: 'unavailable', detail: (err as Error).message };
    }
  }

  /** Every key of this prefix, batch by batch. */
  async function* keys(): AsyncGenerator<string[]> {
    let cursor = '0';
    do {
      const [next, batch] = await link.run((c) => c.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT));
      cursor = next;
      if (batch.length) yield batch;
    } while (cursor !== '0');
  }

  /** Every entry of this prefix with its size and remaining time (-1: none), batch by batch. */
  async function* entries(): AsyncGenerator<{ key: string; len: number; pttl: number }[]> {
    for await (const batch of keys()) {
      const replies = await link.run((c) => {
        const p = c.pipeline();
        for (const k of batch) p.strlen(k).pttl(k);
        return p.exec();
      });
      const found: { key: string; len: number; pttl: number }[] = [];
      batch.forEach((key, i) => {
        const len = replies?.[2 * i]?.[1];
        const pttl = replies?.[2 * i + 1]?.[1];
        // A length of 0 is a key that expired since the scan listed it.
        if (typeof len === 'number' && len > 0)
          found.push({ key, len, pttl: typeof pttl === 'number' ? pttl : -2 });
      });
      yield found;
    }
  }

  /** A put's refusal of an original larger than any entry this store keeps (or reads back). */
  function overLimit(key: string, length: number): PutResult {
    return {
      ok: false,
      key,
      reason: 'error',
      detail: `an original of ${length} bytes exceeds store.max_entry_mb (${maxEntryBytes / 2 ** 20} MiB)`,
    };
  }

  const store: RedisStore = {
    backend: 'redis',
    link,
    dir: `${link.display}#${prefix}`,

    async writable() {
      // Optimistic: asking the server here would cost a connection on every run, most of which
      // stash nothing. A put that cannot persist says so, and its rewrite is reverted.
      return link.downReason() === undefined;
    },

    async put(original, given) {
      let key = '';
      try {
        const bytes = given
          ? Buffer.from(given.buffer, given.byteOffset, given.byteLength)
          : Buffer.from(original, 'utf8');
        key = keyOf(bytes);
        if (bytes.length > maxEntryBytes) return overLimit(key, bytes.length);
        const data = await encode(bytes, compress);
        for (let attempt = 0; attempt < 3; attempt++) {
          const set = await link.run((c) => setEntry(c, key, data, true), data.length);
          if (set === 'OK') return { ok: true, key, created: true };
          const raw = await link.run(
            (c) => (ttlSeconds ? c.getexBuffer(name(key), 'EX', ttlSeconds) : c.getBuffer(name(key))),
            data.length,
          );
          // Missing: it expired between the two commands; set it again.
          if (raw === null) continue;
          const found = await compareStored(raw, key, bytes, maxEntryBytes);
          if (found.is === 'same') return { ok: true, key, created: false };
          if (found.is === 'different')
            return {
              ok: false,
              key,
              reason: 'collision',
              detail: `a different entry already exists at ${name(key)}`,
            };
          await link.run((c) => setEntry(c, key, data, false), data.length);
          return { ok: true, key, created: true };
        }
        return {
          ok: false,
          key,
          reason: 'error',
          detail: `${name(key)} kept vanishing while it was written`,
        };
      } catch (err) {
        // Down, slow, refused (NOPERM, READONLY) or full (OOM): this server cannot persist it now.
        return { ok: false, key, reason: 'unwritable', detail: `${link.display}: ${(err as Error).message}` };
      }
    },

    /**
     * put for many originals, one pipeline of SET NX per slice of the batch (one round trip where
     * put takes one or two per original). Whatever is not simply new — an entry already there, one
     * that vanished meanwhile — goes through put itself, which compares, re-uses or replaces it.
     */
    async putMany(items) {
      const results: PutResult[] = new Array(items.length);
      for (let start = 0; start < items.length; start += PIPELINE_MAX) {
        const slice: { i: number; key: string; data: Buffer }[] = [];
        for (let i = start; i < Math.min(items.length, start + PIPELINE_MAX); i++) {
          const { original, bytes: given } = items[i]!;
          const bytes = given
            ? Buffer.from(given.buffer, given.byteOffset, given.byteLength)
            : Buffer.from(original, 'utf8');
          const key = keyOf(bytes);
          if (bytes.length > maxEntryBytes) {
            results[i] = overLimit(key, bytes.length);
            continue;
          }
          slice.push({ i, key, data: await encode(bytes, compress) });
        }
        let replies: [Error | null, unknown][] | null;
        const moved = slice.reduce((n, s) => n + s.data.length, 0);
        try {
          replies = await link.run((c) => {
            const p = c.pipeline();
            for (const { key, data } of slice)
              if (ttlSeconds) p.set(name(key), data, 'EX', ttlSeconds, 'NX');
              else p.set(name(key), data, 'NX');
            return p.exec();
          }, moved);
        } catch (err) {
          for (const { i, key } of slice)
            results[i] = {
              ok: false,
              key,
              reason: 'unwritable',
              detail: `${link.display}: ${(err as Error).message}`,
            };
          continue;
        }
        for (const [n, { i, key }] of slice.entries()) {
          const [err, reply] = replies?.[n] ?? [new Error('no reply'), null];
          if (!err && reply === 'OK') results[i] = { ok: true, key, created: true };
          else if (err)
            results[i] = { ok: false, key, reason: 'unwritable', detail: `${link.display}: ${err.message}` };
          else results[i] = await store.put(items[i]!.original, items[i]!.bytes);
        }
      }
      return results;
    },

    async hasMany(keys) {
      const found: boolean[] = new Array(keys.length).fill(false);
      const valid = keys.flatMap((k, i) => (isKey(k) ? [i] : []));
      for (let start = 0; start < valid.length; start += PIPELINE_MAX) {
        const slice = valid.slice(start, start + PIPELINE_MAX);
        const replies = await link
          .run((c) => {
            const p = c.pipeline();
            // As has(): EXPIRE slides the expiry of an entry about to be re-sent, and answers 1 if there.
            for (const i of slice)
              if (ttlSeconds) p.expire(name(keys[i]!), ttlSeconds);
              else p.exists(name(keys[i]!));
            return p.exec();
          })
          .catch(() => null);
        slice.forEach((i, n) => {
          const r = replies?.[n];
          found[i] = !!r && !r[0] && r[1] === 1;
        });
      }
      return found;
    },

    async has(key) {
      if (!isKey(key)) return false;
      // A marker about to be re-sent is a use: EXPIRE slides the expiry and answers whether it is there.
      const cmd = (c: Parameters<Parameters<typeof link.run>[0]>[0]) =>
        ttlSeconds ? c.expire(name(key), ttlSeconds) : c.exists(name(key));
      return (await link.run(cmd).catch(() => 0)) === 1;
    },

    read: (key, opts) => fetch(key, true, opts),
    peek: (key, opts) => fetch(key, false, opts),

    async touch(key) {
      if (!ttlSeconds || !isKey(key)) return;
      await link.run((c) => c.expire(name(key), ttlSeconds)).catch(() => undefined);
    },

    async get(key) {
      const found = await fetch(key, true);
      return found.found ? found.bytes : undefined;
    },

    async server() {
      const info: ServerInfo = { url: link.display, prefix };
      try {
        const text = await link.run((c) => c.info('server', 'memory'));
        const field = (k: string) => new RegExp(`^${k}:(.*)$`, 'm').exec(text)?.[1]?.trim();
        const num = (k: string) => {
          const v = Number(field(k));
          return Number.isFinite(v) ? v : undefined;
        };
        const version = field('redis_version') ?? field('valkey_version');
        if (version) info.version = version;
        const used = num('used_memory');
        if (used !== undefined) info.usedMemory = used;
        const max = num('maxmemory');
        if (max !== undefined) info.maxMemory = max;
        const policy = field('maxmemory_policy');
        if (policy) info.maxMemoryPolicy = policy;
      } catch (err) {
        info.error = (err as Error).message;
      }
      return info;
    },

    async info(): Promise<StoreInfo> {
      const info: StoreInfo = {
        dir: store.dir,
        entries: 0,
        bytes: 0,
        ttlDays: opts.ttlDays,
        maxBytes: 0,
        compress,
      };
      const now = Date.now();
      try {
        for await (const batch of entries()) {
          for (const { len, pttl } of batch) {
            info.entries++;
            info.bytes += len;
            // Every put and read sets the full TTL, so what is left of it dates the last use.
            if (pttl > 0 && ttlMs > 0) {
              const used = now - (ttlMs - pttl);
              if (info.oldestMtimeMs === undefined || used < info.oldestMtimeMs) info.oldestMtimeMs = used;
              if (info.newestMtimeMs === undefined || used > info.newestMtimeMs) info.newestMtimeMs = used;
            }
          }
        }
      } catch (err) {
        throw new StoreActionError(`store info: ${link.display}: ${(err as Error).message}`);
      }
      return info;
    },

    async prune(): Promise<PruneResult> {
      // Redis expires entries itself; what is left to do is give an expiry to entries that have
      // none (written while ttl_days was 0, or by hand), so none stays forever.
      let remaining = 0;
      let remainingBytes = 0;
      let expirySet = 0;
      try {
        for await (const batch of entries()) {
          const lasting: string[] = [];
          for (const { key, len, pttl } of batch) {
            remaining++;
            remainingBytes += len;
            if (pttl === -1) lasting.push(key);
          }
          if (ttlSeconds && lasting.length) {
            const set = await link.run((c) => {
              const p = c.pipeline();
              for (const k of lasting) p.expire(k, ttlSeconds);
              return p.exec();
            });
            for (const r of set ?? []) if (r[0]) throw r[0];
            expirySet += lasting.length;
          }
        }
      } catch (err) {
        throw new StoreActionError(`store prune: ${link.display}: ${(err as Error).message}`);
      }
      return { removed: 0, freedBytes: 0, remaining, remainingBytes, ...(expirySet ? { expirySet } : {}) };
    },

    async clear() {
      let removed = 0;
      try {
        for await (const batch of keys()) removed += await link.run((c) => c.unlink(...batch));
      } catch (err) {
        throw new StoreActionError(
          `store clear: ${link.display}: ${(err as Error).message}${removed ? ` (removed ${removed})` : ''}`,
        );
      }
      return removed;
    },
  };
  return store;
}
