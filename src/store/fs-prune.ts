/**
 * Listing and pruning the disk store. The directory is the index: `<dir>/<2 hex>/<16 hex>` entries,
 * `<dir>/packs/<16 hex>.pack` packs of many entries (fs-pack.ts: listed as one entry each, with its
 * count, since a pack is kept and removed whole), `.tmp-*` files being written (or set aside by an
 * eviction), and the `.last-prune` stamp. Anything
 * else is not ours and is left alone, except links planted where entries, shards or the stamp belong:
 * they are listed as `links` so clear and prune remove them (the link, never what it points to).
 *
 * Pruning removes stale temps, expired entries (TTL by mtime), then least-recently-used entries
 * until the store fits its cap. Every removal goes through evict(), which re-checks the entry's time
 * at the moment it deletes it: an entry re-used by another process while the prune runs stays.
 * The lazy prune (after a put) runs at most every PRUNE_EVERY_MS, claimed through the stamp.
 */
import type { Dirent } from 'node:fs';
import { lstat, open, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { CREATE_FLAGS, codeOf, evict, remove, setTimes } from './fs-entry.js';
import { PACK_DIR, PACK_RE, packCount } from './fs-pack.js';
import { isKey } from './keys.js';
import type { PruneResult } from './store.js';

export const PRUNE_EVERY_MS = 5 * 60_000;
const STALE_TMP_MS = 60 * 60_000;
/**
 * The size cap never evicts an entry touched this recently: its marker may still be on its way to a
 * model, and evicting it would break "every marker expands" for a store that is simply too small.
 */
const IN_FLIGHT_MS = 60_000;
export const STAMP = '.last-prune';
/** Set just before a prune or clear removes an entry: whoever remembers what is stored forgets it. */
export const REMOVAL_STAMP = '.last-removal';
export const TMP_PREFIX = '.tmp-';
const SHARD_RE = /^[0-9a-f]{2}$/;

export interface Entry {
  /** An entry's key, or a pack's file name (`<16 hex>.pack`). */
  key: string;
  path: string;
  size: number;
  mtimeMs: number;
  /** How many originals it holds: 1 for a loose entry, its index's count for a pack. */
  count: number;
}

export interface Scan {
  entries: Entry[];
  temps: Entry[];
  shards: string[];
  /** Links (or other non-regular things) where an entry, shard or the stamp belongs. */
  links: string[];
}

export interface PruneLimits {
  ttlMs: number;
  capBytes: number;
}

export async function scanStore(dir: string): Promise<Scan> {
  const out: Scan = { entries: [], temps: [], shards: [], links: [] };
  let top: Dirent[];
  try {
    top = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    const code = codeOf(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') return out;
    throw err;
  }
  for (const d of top) {
    const path = join(dir, d.name);
    if (SHARD_RE.test(d.name)) {
      if (d.isSymbolicLink()) out.links.push(path);
      if (!d.isDirectory()) continue;
      out.shards.push(d.name);
      const names = await readdir(path, { withFileTypes: true }).catch((): Dirent[] => []);
      const mine = names.filter((n) => isKey(n.name) && n.name.startsWith(d.name));
      for (const n of mine) if (!n.isFile() && !n.isDirectory()) out.links.push(join(path, n.name));
      const found = await Promise.all(
        mine.filter((n) => n.isFile()).map((n) => statEntry(n.name, join(path, n.name))),
      );
      for (const e of found) if (e) out.entries.push(e);
    } else if (d.name === PACK_DIR) {
      if (!d.isDirectory()) {
        if (d.isSymbolicLink()) out.links.push(path);
        continue;
      }
      const names = await readdir(path, { withFileTypes: true }).catch((): Dirent[] => []);
      for (const n of names) {
        if (!PACK_RE.test(n.name)) continue;
        const at = join(path, n.name);
        if (!n.isFile()) {
          if (!n.isDirectory()) out.links.push(at);
          continue;
        }
        const e = await statEntry(n.name, at);
        if (e) out.entries.push({ ...e, count: packCount(at) });
      }
    } else if (d.name.startsWith(TMP_PREFIX)) {
      const e = await statEntry(d.name, path);
      if (e) out.temps.push(e);
      else if (d.isSymbolicLink()) out.links.push(path);
    } else if ((d.name === STAMP || d.name === REMOVAL_STAMP) && !d.isFile()) {
      out.links.push(path);
    }
  }
  return out;
}

async function statEntry(key: string, path: string): Promise<Entry | undefined> {
  try {
    const st = await lstat(path);
    return st.isFile() ? { key, path, size: st.size, mtimeMs: st.mtimeMs, count: 1 } : undefined;
  } catch {
    return undefined; // vanished under us (another process pruned it): simply not there
  }
}

/**
 * Removes stale temps, expired entries, then least-recently-used ones until under the cap. `keep`
 * holds keys never to remove (the entry whose put triggered a lazy prune); `aside` names a fresh
 * temp for each eviction. Failures are counted, with the first error kept for the report.
 */
export async function pruneStore(
  dir: string,
  limits: PruneLimits,
  now: number,
  keep: ReadonlySet<string>,
  aside: () => string,
): Promise<PruneResult & { error?: unknown }> {
  const { entries, temps, links } = await scanStore(dir);
  for (const t of temps) if (now - t.mtimeMs > STALE_TMP_MS) await remove(t.path);
  for (const l of links) await remove(l);
  let removed = 0;
  let freedBytes = 0;
  let failed = 0;
  let error: unknown;
  let marked = false;
  const tally = async (e: Entry): Promise<boolean> => {
    if (!marked) {
      marked = true;
      await markRemoval(dir, now).catch(() => undefined);
    }
    const r = await evict(e.path, e.mtimeMs, aside());
    if (r.outcome === 'removed') {
      removed += e.count;
      freedBytes += e.size;
    } else if (r.outcome === 'failed') {
      failed++;
      error ??= r.error;
    }
    return r.outcome === 'removed' || r.outcome === 'gone';
  };
  const live: Entry[] = [];
  for (const e of entries) {
    if (!keep.has(e.key) && now - e.mtimeMs > limits.ttlMs && (await tally(e))) continue;
    live.push(e);
  }
  let total = live.reduce((n, e) => n + e.size, 0);
  let remaining = live.reduce((n, e) => n + e.count, 0);
  if (total > limits.capBytes) {
    live.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.key < b.key ? -1 : 1));
    for (const e of live) {
      if (total <= limits.capBytes) break;
      if (keep.has(e.key) || now - e.mtimeMs < IN_FLIGHT_MS) continue;
      if (!(await tally(e))) continue;
      total -= e.size;
      remaining -= e.count;
    }
  }
  return {
    removed,
    freedBytes,
    remaining,
    remainingBytes: total,
    ...(failed ? { failed, error } : {}),
  };
}

/** Marks entries as being removed now (REMOVAL_STAMP). */
export function markRemoval(dir: string, now: number): Promise<void> {
  return stampNow(dir, now, REMOVAL_STAMP);
}

/** When entries were last removed (REMOVAL_STAMP's time), or undefined when never. */
export async function lastRemoval(dir: string): Promise<number | undefined> {
  const st = await lstat(join(dir, REMOVAL_STAMP)).catch(() => undefined);
  return st?.isFile() ? st.mtimeMs : undefined;
}

/** Sets a stamp (the prune stamp by default) to now, creating it when missing; a link planted there is replaced. */
export async function stampNow(dir: string, now: number, name = STAMP): Promise<void> {
  const stamp = join(dir, name);
  const t = new Date(now);
  const st = await lstat(stamp).catch((err) => {
    if (codeOf(err) === 'ENOENT') return undefined;
    throw err;
  });
  if (st?.isFile()) return setTimes(stamp, t, t);
  if (st) await unlink(stamp);
  try {
    const fh = await open(stamp, CREATE_FLAGS, 0o600);
    await fh.close();
  } catch (err) {
    if (codeOf(err) !== 'EEXIST') throw err; // another process created it first: that is the stamp
  }
}

/**
 * Claims the prune slot when the stamp is older than the interval (or missing, or far in the future
 * after a clock change). The stamp is touched before pruning starts, so processes checking after that
 * instant skip; two that check in the same instant both prune, which is wasted work, not harm.
 */
export async function claimPrune(dir: string, now: number): Promise<boolean> {
  try {
    const st = await lstat(join(dir, STAMP));
    // |age|, not age: a stamp created this very millisecond can read as a fraction of a ms in the
    // future (Date.now() truncates), while one far in the future means the clock was set back.
    if (st.isFile() && Math.abs(now - st.mtimeMs) < PRUNE_EVERY_MS) return false;
  } catch (err) {
    if (codeOf(err) !== 'ENOENT') return false;
  }
  await stampNow(dir, now);
  return true;
}
