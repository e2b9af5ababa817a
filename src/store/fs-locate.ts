/**
 * Where the on-disk store holds a key: the loose entry first, then any pack holding it. A damaged
 * copy in one place does not hide a good one in another; with none good, the loose entry's state is
 * the answer (missing, corrupt, unavailable). What "good" means is the caller's judge: the original
 * itself (fs-read.ts) or how it compares with the one a put brings (fs-publish.ts).
 */

import { entryPath, type FsContext } from './fs-context.js';
import { codeOf, messageOf, readRegular } from './fs-entry.js';
import { type PackSlot, readSlot } from './fs-pack.js';

/** What a judge makes of one stored form: its value (the original, or how it compares), or corrupt. */
export type Judged<T> = { found: true; value: T } | { found: false; why: 'corrupt'; detail: string };
/** What is under a key once every place that could hold it was looked at; `where` is its LRU file. */
export type Located<T> = (
  | Judged<T>
  | { found: false; why: 'missing' | 'unavailable'; detail?: string; error?: unknown }
) & { where: string };
export type Judge<T> = (raw: Buffer) => Promise<Judged<T>>;

/** What is stored under a key as `judge` finds it, loose entry or pack. */
export async function locate<T>(ctx: FsContext, key: string, judge: Judge<T>): Promise<Located<T>> {
  const path = entryPath(ctx.dir, key);
  const raw = await rawEntry(path, ctx.entryLimit);
  const loose: Located<T> = 'raw' in raw ? { ...(await judge(raw.raw)), where: path } : raw;
  if (loose.found || loose.why === 'unavailable') return loose;
  return inPacks(ctx, key, judge, loose);
}

/**
 * locate for a key a batch knows from its lstat has no loose file: the packs alone, without a
 * failed open (an exception each).
 */
export function locatePacked<T>(ctx: FsContext, key: string, judge: Judge<T>): Promise<Located<T>> {
  return inPacks(ctx, key, judge, { found: false, why: 'missing', where: entryPath(ctx.dir, key) });
}

/**
 * The packs as last listed first (a pack gone since reads as missing: harmless here, since the
 * bytes are read and checked), then listed again only if none of them has it; `loose` otherwise.
 */
async function inPacks<T>(
  ctx: FsContext,
  key: string,
  judge: Judge<T>,
  loose: Located<T>,
): Promise<Located<T>> {
  for (let listed = false; ; listed = true) {
    if (listed) ctx.packs.refresh();
    for (const slot of ctx.packs.find(key)) {
      const raw = rawSlot(slot, ctx.entryLimit);
      if (!('raw' in raw)) continue;
      const found = await judge(raw.raw);
      if (found.found) return { ...found, where: slot.path };
    }
    if (listed) return loose;
  }
}

/**
 * The stored form of a loose entry, read only if it is a regular file no larger than `limit` (a
 * stored form is never larger than its original). `corrupt` covers a link, a directory or another
 * non-regular file there (EINVAL from readRegular) and a file too large to be an entry (EFBIG).
 */
async function rawEntry(
  path: string,
  limit: number,
): Promise<{ raw: Buffer } | Exclude<Located<never>, { found: true }>> {
  try {
    return { raw: await readRegular(path, limit) };
  } catch (err) {
    const code = codeOf(err);
    if (code === 'ENOENT') return { found: false, why: 'missing', where: path };
    if (code === 'EINVAL' || code === 'EFBIG')
      return { found: false, why: 'corrupt', detail: messageOf(err), where: path };
    return { found: false, why: 'unavailable', detail: messageOf(err), error: err, where: path };
  }
}

/** The stored form at one pack slot (a pack gone: missing; a slot larger than any entry: corrupt). */
function rawSlot(
  slot: PackSlot,
  limit: number,
): { raw: Buffer } | { found: false; why: 'missing' | 'corrupt'; detail?: string } {
  if (slot.length > limit)
    return {
      found: false,
      why: 'corrupt',
      detail: `${slot.path} holds a slot larger than store.max_entry_mb`,
    };
  try {
    return { raw: readSlot(slot) };
  } catch (err) {
    return codeOf(err) === 'ENOENT'
      ? { found: false, why: 'missing' }
      : { found: false, why: 'corrupt', detail: messageOf(err) };
  }
}
