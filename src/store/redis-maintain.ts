/**
 * The Redis store's upkeep: what the server says of itself, info over every entry of the prefix,
 * prune (Redis expires entries itself: only an entry without an expiry gets one) and clear (exactly
 * the keys of this prefix, SCAN … MATCH then UNLINK). info, prune and clear throw
 * StoreActionError when the server fails them: the user asked and must hear it.
 */
import { prefixEntries, prefixKeys, type RedisContext } from './redis-context.js';
import { type PruneResult, type ServerInfo, StoreActionError, type StoreInfo } from './store.js';

export async function serverInfo(ctx: RedisContext): Promise<ServerInfo> {
  const info: ServerInfo = { url: ctx.link.display, prefix: ctx.prefix };
  try {
    const text = await ctx.link.run((c) => c.info('server', 'memory'));
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
}

export async function storeInfo(ctx: RedisContext, dir: string): Promise<StoreInfo> {
  const info: StoreInfo = {
    dir,
    entries: 0,
    bytes: 0,
    ttlDays: ctx.opts.ttlDays,
    maxBytes: 0,
    compress: ctx.compress,
  };
  const now = Date.now();
  try {
    for await (const batch of prefixEntries(ctx)) {
      for (const { len, pttl } of batch) {
        info.entries++;
        info.bytes += len;
        // Every put and read sets the full TTL, so what is left of it dates the last use.
        if (pttl > 0 && ctx.ttlMs > 0) {
          const used = now - (ctx.ttlMs - pttl);
          if (info.oldestMtimeMs === undefined || used < info.oldestMtimeMs) info.oldestMtimeMs = used;
          if (info.newestMtimeMs === undefined || used > info.newestMtimeMs) info.newestMtimeMs = used;
        }
      }
    }
  } catch (err) {
    throw new StoreActionError(`store info: ${ctx.link.display}: ${(err as Error).message}`);
  }
  return info;
}

export async function pruneStore(ctx: RedisContext): Promise<PruneResult> {
  // Redis expires entries itself; what is left to do is give an expiry to entries that have
  // none (written while ttl_days was 0, or by hand), so none stays forever.
  let remaining = 0;
  let remainingBytes = 0;
  let expirySet = 0;
  try {
    for await (const batch of prefixEntries(ctx)) {
      const lasting: string[] = [];
      for (const { key, len, pttl } of batch) {
        remaining++;
        remainingBytes += len;
        if (pttl === -1) lasting.push(key);
      }
      if (ctx.ttlSeconds && lasting.length) {
        const set = await ctx.link.run((c) => {
          const p = c.pipeline();
          for (const k of lasting) p.expire(k, ctx.ttlSeconds);
          return p.exec();
        });
        for (const r of set ?? []) if (r[0]) throw r[0];
        expirySet += lasting.length;
      }
    }
  } catch (err) {
    throw new StoreActionError(`store prune: ${ctx.link.display}: ${(err as Error).message}`);
  }
  return { removed: 0, freedBytes: 0, remaining, remainingBytes, ...(expirySet ? { expirySet } : {}) };
}

export async function clearStore(ctx: RedisContext): Promise<number> {
  let removed = 0;
  try {
    for await (const batch of prefixKeys(ctx)) removed += await ctx.link.run((c) => c.unlink(...batch));
  } catch (err) {
    throw new StoreActionError(
      `store clear: ${ctx.link.display}: ${(err as Error).message}${removed ? ` (removed ${removed})` : ''}`,
    );
  }
  return removed;
}
