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
 *
 * (max_entry_mb, the largest original either store keeps, is the store section's own: config.ts.)
 * These say where originals go, so like store.dir they belong to the user's own config only.
 */
import { boolean, type ConfigOf, integer, section, string } from '../config/fields.js';
import { parseRedisUrl, RedisUrlError } from './redis-url.js';

/** Printable, no spaces, no glob characters (the prefix is part of a SCAN pattern). */
const PREFIX_RE = /^[!-)+->@-Z^-~]{1,64}$/;

/** The keys, merged into config.ts's store section. */
export const REDIS_FIELDS = {
  url: string().check(redisUrlProblem).optional().doc('a shared Redis store (CG_STORE_URL wins)', '— (disk)'),
  prefix: string()
    .check((p) =>
      PREFIX_RE.test(p) ? undefined : 'expected 1 to 64 printable characters without spaces or * ? [ ] \\',
    )
    .or('cg:')
    .doc('Redis key prefix (one per team on a shared server)'),
  timeoutMs: integer({ min: 50, max: 600_000 })
    .key('timeout_ms')
    .or(2000)
    .doc('bound on connecting and each command (+100 ms a MiB)'),
  fallback: boolean().or(false).doc('stash locally while Redis is unreachable'),
  cache: boolean().or(false).doc('keep what expand read from Redis locally too'),
};

const REDIS = section(REDIS_FIELDS);
export type RedisSettings = ConfigOf<typeof REDIS>;
export const REDIS_DEFAULTS: RedisSettings = REDIS.defaults;

function redisUrlProblem(url: string): string | undefined {
  try {
    parseRedisUrl(url);
    return undefined;
  } catch (err) {
    if (err instanceof RedisUrlError) return err.message;
    throw err;
  }
}
