/**
 * The Redis store's put paths. put is set-if-absent (SET NX), then compare: the same bytes are a
 * re-use, different bytes that hash to the key a collision (refused), and a value that does not
 * decode to its key corrupt (replaced). A put answers ok only once Redis acknowledged the write; an
 * unreachable or refusing server is `unwritable`, with the reason.
 */
import { encode } from './codec.js';
import { keyOf } from './keys.js';
import { getUsing, PIPELINE_MAX, type RedisContext, setNew, setReplacing } from './redis-context.js';
import type { PutItem, PutResult } from './store.js';
import { compareStored } from './verify.js';

const bytesOf = (original: string, given: Uint8Array | undefined) =>
  given ? Buffer.from(given.buffer, given.byteOffset, given.byteLength) : Buffer.from(original, 'utf8');

export async function putEntry(ctx: RedisContext, original: string, given?: Uint8Array): Promise<PutResult> {
  const { link } = ctx;
  let key = '';
  try {
    const bytes = bytesOf(original, given);
    key = keyOf(bytes);
    if (bytes.length > ctx.maxEntryBytes) return overLimit(ctx, key, bytes.length);
    const data = await encode(bytes, ctx.compress);
    for (let attempt = 0; attempt < 3; attempt++) {
      const set = await link.run((c) => setNew(ctx, c, key, data), data.length);
      if (set === 'OK') return { ok: true, key, created: true };
      const raw = await link.run((c) => getUsing(ctx, c, key), data.length);
      // Missing: it expired between the two commands; set it again.
      if (raw === null) continue;
      const found = await compareStored(raw, key, bytes, ctx.maxEntryBytes);
      if (found.is === 'same') return { ok: true, key, created: false };
      if (found.is === 'different')
        return {
          ok: false,
          key,
          reason: 'collision',
          detail: `a different entry already exists at ${ctx.name(key)}`,
        };
      await link.run((c) => setReplacing(ctx, c, key, data), data.length);
      return { ok: true, key, created: true };
    }
    return {
      ok: false,
      key,
      reason: 'error',
      detail: `${ctx.name(key)} kept vanishing while it was written`,
    };
  } catch (err) {
    // Down, slow, refused (NOPERM, READONLY) or full (OOM): this server cannot persist it now.
    return unwritable(ctx, key, err as Error);
  }
}

/**
 * put for many originals, one pipeline of SET NX per slice of the batch (one round trip where
 * put takes one or two per original). Whatever is not simply new — an entry already there, one
 * that vanished meanwhile — goes through putEntry, which compares, re-uses or replaces it.
 */
export async function putEntries(ctx: RedisContext, items: readonly PutItem[]): Promise<PutResult[]> {
  const results: PutResult[] = new Array(items.length);
  for (let start = 0; start < items.length; start += PIPELINE_MAX) {
    const slice: { i: number; key: string; data: Buffer }[] = [];
    for (let i = start; i < Math.min(items.length, start + PIPELINE_MAX); i++) {
      const bytes = bytesOf(items[i]!.original, items[i]!.bytes);
      const key = keyOf(bytes);
      if (bytes.length > ctx.maxEntryBytes) {
        results[i] = overLimit(ctx, key, bytes.length);
        continue;
      }
      slice.push({ i, key, data: await encode(bytes, ctx.compress) });
    }
    let replies: [Error | null, unknown][] | null;
    const moved = slice.reduce((n, s) => n + s.data.length, 0);
    try {
      replies = await ctx.link.run((c) => {
        const p = c.pipeline();
        for (const { key, data } of slice)
          if (ctx.ttlSeconds) p.set(ctx.name(key), data, 'EX', ctx.ttlSeconds, 'NX');
          else p.set(ctx.name(key), data, 'NX');
        return p.exec();
      }, moved);
    } catch (err) {
      for (const { i, key } of slice) results[i] = unwritable(ctx, key, err as Error);
      continue;
    }
    for (const [n, { i, key }] of slice.entries()) {
      const [err, reply] = replies?.[n] ?? [new Error('no reply'), null];
      if (!err && reply === 'OK') results[i] = { ok: true, key, created: true };
      else if (err) results[i] = unwritable(ctx, key, err);
      else results[i] = await putEntry(ctx, items[i]!.original, items[i]!.bytes);
    }
  }
  return results;
}

function unwritable(ctx: RedisContext, key: string, err: Error): PutResult {
  return { ok: false, key, reason: 'unwritable', detail: `${ctx.link.display}: ${err.message}` };
}

/** A put's refusal of an original larger than any entry this store keeps (or reads back). */
function overLimit(ctx: RedisContext, key: string, length: number): PutResult {
  return {
    ok: false,
    key,
    reason: 'error',
    detail: `an original of ${length} bytes exceeds store.max_entry_mb (${ctx.maxEntryBytes / 2 ** 20} MiB)`,
  };
}
