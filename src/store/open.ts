/**
 * Opens the store the CLI and library use. The disk store: CG_STORE_DIR, else the config's store.dir,
 * else the XDG cache location; limits from the config file. A default location under a home
 * directory that does not exist is no store at all (lossless rewrites only, said in one line). A
 * Redis URL (CG_STORE_URL, else the config's store.url; the password may come from
 * CG_STORE_PASSWORD) selects the fleet store: Redis, with that disk store as fallback and cache
 * where the config says so; CG_STORE_URL=none selects the disk store whatever the config says.
 *
 * Opening never connects and never throws: a URL that does not parse gives a store whose Redis part
 * fails every call with that reason, so a mistyped variable costs lossless-only runs and one line on
 * stderr, never the command's output.
 */
import { resolve } from 'node:path';
import type { StoreConfig } from '../config.js';
import { warn as warnLine } from '../io.js';
import { createFleetStore } from './fleet-store.js';
import { createFsStore } from './fs-store.js';
import { resolveStoreDir, storeDirProblem } from './location.js';
import { createNoStore } from './no-store.js';
import { createRedisLink, RedisFailure, type RedisLink } from './redis-link.js';
import { createRedisStore } from './redis-store.js';
import { parseRedisUrl } from './redis-url.js';
import type { Store } from './store.js';

export function openStore(
  cfg: StoreConfig,
  env: NodeJS.ProcessEnv = process.env,
  warn: (line: string) => void = warnLine,
): Store {
  const named = !env.CG_STORE_DIR && cfg.dir;
  const dir = named ? resolve(cfg.dir!) : resolveStoreDir(env);
  const homeless = named ? undefined : storeDirProblem(env);
  const { ttlDays, maxBytes, compress, maxEntryBytes } = cfg;
  const disk = homeless
    ? createNoStore({ dir, reason: homeless, ttlDays, maxBytes, compress, warn })
    : createFsStore({ dir, ttlDays, maxBytes, compress, maxEntryBytes });
  // CG_STORE_URL=none: the disk store even where the config names a Redis server (cg doctor's probe).
  const url = env.CG_STORE_URL === 'none' ? undefined : env.CG_STORE_URL || cfg.url;
  if (!url) return disk;
  const redis = createRedisStore({
    link: linkFor(url, env.CG_STORE_URL ? 'CG_STORE_URL' : 'store.url', cfg.timeoutMs, env.CG_STORE_PASSWORD),
    prefix: cfg.prefix,
    ttlDays: cfg.ttlDays,
    compress: cfg.compress,
    maxEntryBytes: cfg.maxEntryBytes,
  });
  return createFleetStore({ redis, local: disk, fallback: cfg.fallback, cache: cfg.cache, warn });
}

function linkFor(url: string, source: string, timeoutMs: number, password?: string): RedisLink {
  try {
    return createRedisLink(parseRedisUrl(url, password), timeoutMs);
  } catch (err) {
    const reason = (err as Error).message;
    return {
      display: source,
      run: () => Promise.reject(new RedisFailure('down', reason)),
      downReason: () => reason,
      close: () => undefined,
    };
  }
}
