/**
 * The store-section keys that select and tune the Redis backend, parsed strictly like the rest of
 * the config (config.ts merges them into `store`):
 *
 *   url            redis://… or rediss://… (CG_STORE_URL wins); absent: the disk store
 *   prefix         key namespace, default `cg:` (one per team on a shared server)
 *   timeout_ms     bound on connecting and on each command (2000; a big entry gets more, by size)
 *   fallback       stash in the local disk store while Redis is unreachable (default false: then
 *                  only lossless rewrites happen)
 *   cache          keep what expand read from Redis in the local disk store too (default false)
 *   max_entry_mb   largest entry Redis is sent, compressed (64)
 *
 * These say where originals go, so like store.dir they belong to the user's own config only.
 */
import { ConfigError } from '../errors.js';
import { boolean, integer, string } from '../validate.js';
import { parseRedisUrl, RedisUrlError } from './redis-url.js';

export interface RedisSettings {
  url?: string;
  prefix: string;
  timeoutMs: number;
  fallback: boolean;
  cache: boolean;
  maxEntryBytes: number;
}

export const REDIS_STORE_KEYS = ['url', 'prefix', 'timeout_ms', 'fallback', 'cache', 'max_entry_mb'] as const;

export const REDIS_DEFAULTS: RedisSettings = {
  prefix: 'cg:',
  timeoutMs: 2000,
  fallback: false,
  cache: false,
  maxEntryBytes: 64 * 2 ** 20,
};

/** Printable, no spaces, no glob characters (the prefix is part of a SCAN pattern). */
const PREFIX_RE = /^[!-)+->@-Z^-~]{1,64}$/;

export function parseRedisSettings(store: Record<string, unknown>): RedisSettings {
  const settings: RedisSettings = {
    prefix: string(store.prefix, 'store.prefix', REDIS_DEFAULTS.prefix),
    timeoutMs: integer(store.timeout_ms, 'store.timeout_ms', REDIS_DEFAULTS.timeoutMs, 50, 600_000),
    fallback: boolean(store.fallback, 'store.fallback', REDIS_DEFAULTS.fallback),
    cache: boolean(store.cache, 'store.cache', REDIS_DEFAULTS.cache),
    maxEntryBytes:
      integer(store.max_entry_mb, 'store.max_entry_mb', REDIS_DEFAULTS.maxEntryBytes / 2 ** 20, 1, 512) *
      2 ** 20,
  };
  if (!PREFIX_RE.test(settings.prefix)) {
    throw new ConfigError(
      'store.prefix',
      'expected 1 to 64 printable characters without spaces or * ? [ ] \\',
    );
  }
  if (store.url !== undefined) {
    const url = string(store.url, 'store.url', '');
    try {
      parseRedisUrl(url);
    } catch (err) {
      if (err instanceof RedisUrlError) throw new ConfigError('store.url', err.message);
      throw err;
    }
    settings.url = url;
  }
  return settings;
}
