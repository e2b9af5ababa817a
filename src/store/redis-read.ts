/**
 * The Redis store's read paths: an entry's original (a read slides its expiry, a peek does not),
 * whether entries are there (a use too: EXPIRE slides the expiry and answers whether it is there),
 * and a touch. A value is never trusted before it is checked against its key (verify.ts).
 */
import { isKey } from './keys.js';
import { type Client, getUsing, PIPELINE_MAX, type RedisContext } from './redis-context.js';
import type { EntryRead, ReadLimit } from './store.js';
import { readStored } from './verify.js';

export function readEntry(ctx: RedisContext, key: string, opts: ReadLimit = {}): Promise<EntryRead> {
  return fetched(ctx, key, opts, (c) => getUsing(ctx, c, key));
}

export function peekEntry(ctx: RedisContext, key: string, opts: ReadLimit = {}): Promise<EntryRead> {
  return fetched(ctx, key, opts, (c) => c.getBuffer(ctx.name(key)));
}

async function fetched(
  ctx: RedisContext,
  key: string,
  opts: ReadLimit,
  get: (c: Client) => Promise<Buffer | null>,
): Promise<EntryRead> {
  if (typeof key !== 'string' || !isKey(key)) return { found: false, why: 'missing' };
  try {
    const raw = await ctx.link.run(get);
    if (raw === null) return { found: false, why: 'missing' };
    return await readStored(raw, key, Math.min(ctx.maxEntryBytes, opts.maxBytes ?? ctx.maxEntryBytes));
  } catch (err) {
    return { found: false, why: 'unavailable', detail: (err as Error).message };
  }
}

/** A marker about to be re-sent is a use: EXPIRE slides the expiry and answers whether it is there. */
const used = (ctx: RedisContext, c: Client, key: string) =>
  ctx.ttlSeconds ? c.expire(ctx.name(key), ctx.ttlSeconds) : c.exists(ctx.name(key));

export async function hasEntry(ctx: RedisContext, key: string): Promise<boolean> {
  if (!isKey(key)) return false;
  return (await ctx.link.run((c) => used(ctx, c, key)).catch(() => 0)) === 1;
}

export async function hasEntries(ctx: RedisContext, keys: readonly string[]): Promise<boolean[]> {
  const found: boolean[] = new Array(keys.length).fill(false);
  const valid = keys.flatMap((k, i) => (isKey(k) ? [i] : []));
  for (let start = 0; start < valid.length; start += PIPELINE_MAX) {
    const slice = valid.slice(start, start + PIPELINE_MAX);
    const replies = await ctx.link
      .run((c) => {
        const p = c.pipeline();
        for (const i of slice)
          if (ctx.ttlSeconds) p.expire(ctx.name(keys[i]!), ctx.ttlSeconds);
          else p.exists(ctx.name(keys[i]!));
        return p.exec();
      })
      .catch(() => null);
    slice.forEach((i, n) => {
      const r = replies?.[n];
      found[i] = !!r && !r[0] && r[1] === 1;
    });
  }
  return found;
}

/** Refreshes an entry's expiry; never throws. */
export async function touchEntry(ctx: RedisContext, key: string): Promise<void> {
  if (!ctx.ttlSeconds || !isKey(key)) return;
  await ctx.link.run((c) => c.expire(ctx.name(key), ctx.ttlSeconds)).catch(() => undefined);
}
