/**
 * What every path of the Redis store shares (redis-store.ts): the link, the prefix and its key
 * names, the sliding expiry, and the walks over every key of the prefix.
 */
import type { RedisLink } from './redis-link.js';

export interface RedisStoreOptions {
  link: RedisLink;
  prefix: string;
  ttlDays: number;
  compress: boolean;
  maxEntryBytes: number;
}

export type Client = Parameters<Parameters<RedisLink['run']>[0]>[0];

export interface RedisContext {
  readonly opts: RedisStoreOptions;
  readonly link: RedisLink;
  readonly prefix: string;
  readonly compress: boolean;
  readonly maxEntryBytes: number;
  /** The sliding expiry in seconds (0: none) and in ms. */
  readonly ttlSeconds: number;
  readonly ttlMs: number;
  /** The Redis key of an entry. */
  name(key: string): string;
  /** The SCAN pattern of every entry of this prefix. */
  readonly pattern: string;
}

const SCAN_COUNT = 1000;
/** Commands of one putMany/hasMany sent in one pipeline (one round trip each). */
export const PIPELINE_MAX = 1000;

export function redisContext(opts: RedisStoreOptions): RedisContext {
  const { link, prefix, compress, maxEntryBytes } = opts;
  const ttlSeconds = opts.ttlDays > 0 ? Math.round(opts.ttlDays * 86_400) : 0;
  return {
    opts,
    link,
    prefix,
    compress,
    maxEntryBytes,
    ttlSeconds,
    ttlMs: ttlSeconds * 1000,
    name: (key) => `${prefix}${key}`,
    pattern: `${prefix}${'[0-9a-f]'.repeat(16)}`,
  };
}

/** SET with the sliding expiry, only if absent (null when it was there). */
export function setNew(ctx: RedisContext, c: Client, key: string, data: Buffer): Promise<'OK' | null> {
  return ctx.ttlSeconds
    ? c.set(ctx.name(key), data, 'EX', ctx.ttlSeconds, 'NX')
    : c.set(ctx.name(key), data, 'NX');
}

/** SET with the sliding expiry, over whatever is there. */
export function setReplacing(ctx: RedisContext, c: Client, key: string, data: Buffer): Promise<'OK'> {
  return ctx.ttlSeconds ? c.set(ctx.name(key), data, 'EX', ctx.ttlSeconds) : c.set(ctx.name(key), data);
}

/** GET that slides the expiry (a use). */
export function getUsing(ctx: RedisContext, c: Client, key: string): Promise<Buffer | null> {
  return ctx.ttlSeconds ? c.getexBuffer(ctx.name(key), 'EX', ctx.ttlSeconds) : c.getBuffer(ctx.name(key));
}

/** Every key of this prefix, batch by batch. */
export async function* prefixKeys(ctx: RedisContext): AsyncGenerator<string[]> {
  let cursor = '0';
  do {
    const [next, batch] = await ctx.link.run((c) =>
      c.scan(cursor, 'MATCH', ctx.pattern, 'COUNT', SCAN_COUNT),
    );
    cursor = next;
    if (batch.length) yield batch;
  } while (cursor !== '0');
}

/** Every entry of this prefix with its size and remaining time (-1: none), batch by batch. */
export async function* prefixEntries(
  ctx: RedisContext,
): AsyncGenerator<{ key: string; len: number; pttl: number }[]> {
  for await (const batch of prefixKeys(ctx)) {
    const replies = await ctx.link.run((c) => {
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
