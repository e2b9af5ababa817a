/**
 * The on-disk store's upkeep a user asks for: info (what is there), prune (TTL and cap; the lazy
 * one after a put is fs-put.ts) and clear. A forced prune and a clear throw StoreActionError when
 * they fail: the user asked for them and must hear it.
 */
import { rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FsContext } from './fs-context.js';
import { codeOf, messageOf, remove } from './fs-entry.js';
import { PACK_DIR } from './fs-pack.js';
import { claimPrune, markRemoval, pruneStore, scanStore, stampNow } from './fs-prune.js';
import { type PruneResult, StoreActionError, type StoreInfo } from './store.js';

export async function storeInfo(ctx: FsContext): Promise<StoreInfo> {
  const { entries } = await scanStore(ctx.dir);
  const info: StoreInfo = {
    dir: ctx.dir,
    entries: entries.reduce((n, e) => n + e.count, 0),
    bytes: entries.reduce((n, e) => n + e.size, 0),
    ttlDays: ctx.ttlDays,
    maxBytes: ctx.maxBytes,
    compress: ctx.compress,
  };
  // A loop, not Math.min(...spread): a large store would overflow the argument limit.
  for (const e of entries) {
    if (info.oldestMtimeMs === undefined || e.mtimeMs < info.oldestMtimeMs) info.oldestMtimeMs = e.mtimeMs;
    if (info.newestMtimeMs === undefined || e.mtimeMs > info.newestMtimeMs) info.newestMtimeMs = e.mtimeMs;
  }
  return info;
}

/** A prune when its interval is due (another process may have claimed it: then what remains). */
export async function pruneWhenDue(ctx: FsContext): Promise<PruneResult> {
  const now = Date.now();
  if (!(await claimPrune(ctx.dir, now).catch(() => false))) {
    const { entries } = await scanStore(ctx.dir);
    const remainingBytes = entries.reduce((n, e) => n + e.size, 0);
    const remaining = entries.reduce((n, e) => n + e.count, 0);
    return { removed: 0, freedBytes: 0, remaining, remainingBytes };
  }
  const { error: _error, ...result } = await pruneStore(ctx.dir, ctx.limits, now, new Set(), ctx.tmpPath);
  return result;
}

/** A prune now, whatever the interval; it restarts the lazy interval and throws when it fails. */
export async function pruneNow(ctx: FsContext): Promise<PruneResult> {
  const now = Date.now();
  // Failing to restart the interval, it has found a store it cannot change, which the user asked
  // about and must hear.
  try {
    await stampNow(ctx.dir, now);
  } catch (err) {
    if (codeOf(err) !== 'ENOENT') throw cannot(ctx, 'prune', err);
  }
  const { error, ...result } = await pruneStore(ctx.dir, ctx.limits, now, new Set(), ctx.tmpPath);
  if (result.failed) throw cannot(ctx, 'prune', error, result.failed, result.removed);
  return result;
}

/** Removes every entry (and temp file, planted link, empty shard); the count removed. */
export async function clearStore(ctx: FsContext): Promise<number> {
  const { entries, temps, shards, links } = await scanStore(ctx.dir);
  if (entries.length > 0) await markRemoval(ctx.dir, Date.now()).catch(() => undefined);
  let removed = 0;
  let failed = 0;
  let error: unknown;
  for (const e of entries) {
    const r = await remove(e.path);
    if (r.outcome === 'removed') removed += e.count;
    if (r.outcome === 'failed') {
      failed++;
      error ??= r.error;
    }
  }
  for (const t of [...temps.map((t) => t.path), ...links]) await remove(t);
  // Empty shard directories go too; one still holding something we did not write stays.
  for (const s of [...shards, PACK_DIR]) await rmdir(join(ctx.dir, s)).catch(() => undefined);
  if (failed) throw cannot(ctx, 'clear', error, failed, removed);
  return removed;
}

/** The one-line failure of a clear or prune the user asked for. */
function cannot(ctx: FsContext, action: string, err: unknown, failed = 0, removed = 0): StoreActionError {
  const what = failed ? `could not remove ${failed} ${failed === 1 ? 'entry' : 'entries'}` : 'cannot write';
  const done = removed ? ` (removed ${removed})` : '';
  return new StoreActionError(`store ${action}: ${what} in ${ctx.dir}${done}: ${messageOf(err)}`);
}
