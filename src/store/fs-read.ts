/**
 * The on-disk store's read path: the original under a key, inflated within the entry limit (and
 * the reader's own), checked against the key. A read counts as a use (its LRU time is refreshed,
 * fs-touch.ts); a peek does not.
 */
import type { FsContext } from './fs-context.js';
import { type Judge, locate } from './fs-locate.js';
import { touch } from './fs-touch.js';
import { isKey } from './keys.js';
import type { EntryRead, ReadLimit } from './store.js';
import { readStored } from './verify.js';

export async function readEntry(ctx: FsContext, key: string, opts: ReadLimit = {}): Promise<EntryRead> {
  const found = await find(ctx, key, opts);
  if (found.found) await touch(ctx, found.where);
  return answer(found);
}

export async function peekEntry(ctx: FsContext, key: string, opts: ReadLimit = {}): Promise<EntryRead> {
  return answer(await find(ctx, key, opts));
}

type Found =
  | Awaited<ReturnType<typeof locate<Buffer>>>
  | { found: false; why: 'missing'; detail?: undefined };

function find(ctx: FsContext, key: string, opts: ReadLimit): Promise<Found> | Found {
  // The only gate between user input and a path: `../../etc/passwd` never reaches the filesystem.
  if (typeof key !== 'string' || !isKey(key)) return { found: false, why: 'missing' };
  return locate(ctx, key, original(key, Math.min(ctx.entryLimit, opts.maxBytes ?? ctx.entryLimit)));
}

function answer(found: Found): EntryRead {
  if (found.found) return { found: true, bytes: found.value };
  return { found: false, why: found.why, ...(found.detail === undefined ? {} : { detail: found.detail }) };
}

/** The original under a key, inflated within `limit` and checked against the key. */
const original =
  (key: string, limit: number): Judge<Buffer> =>
  async (raw) => {
    const v = await readStored(raw, key, limit);
    return v.found ? { found: true, value: v.bytes } : v;
  };
