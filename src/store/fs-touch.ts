/**
 * The on-disk store's LRU time: refresh() of the file whose time is an entry's (its loose file or
 * its pack). A pack re-used for thousands of originals (a proxy restarted on a session it stashed)
 * is refreshed once per TOUCH_MS, not once per original: a prune that scanned before that refresh
 * sees the new time when it comes to evict (evict re-checks it), and one that scans after it finds
 * the pack in use (the cap spares what was used within a minute; TTL is days).
 */
import type { FsContext } from './fs-context.js';
import { refresh } from './fs-entry.js';

/** How long one refresh of a pack stands for every re-use of its originals (well under IN_FLIGHT_MS). */
const TOUCH_MS = 5_000;

/** Whether the file is still in place, its time now refreshed (false: gone, say to a prune). */
export async function touch(ctx: FsContext, where: string): Promise<boolean> {
  const isPack = where.endsWith('.pack');
  const at = isPack ? ctx.touched.get(where) : undefined;
  // Never for as long as a prune could take the pack as expired (a TTL of minutes, say).
  if (at !== undefined && Date.now() - at < Math.min(TOUCH_MS, ctx.limits.ttlMs / 4)) return true;
  const ok = await refresh(where);
  if (ok && isPack) {
    ctx.touched.set(where, Date.now());
    if (ctx.touched.size > 1024) ctx.touched.delete(ctx.touched.keys().next().value as string);
  }
  return ok;
}
