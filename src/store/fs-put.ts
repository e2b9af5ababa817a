/**
 * The on-disk store's put path: an original hashed to its key, refused when larger than any entry
 * the store keeps or than its cap, re-used when its entry is there, written otherwise (then the lazy
 * prune, at most every few minutes, never of that entry). No ordinary fs failure throws: the result
 * says what went wrong, `unwritable` when this store cannot persist here at all.
 */
import { encode, encodeText } from './codec.js';
import type { BatchOps } from './fs-batch.js';
import { entryPath, type FsContext, heldIn } from './fs-context.js';
import { codeOf, messageOf } from './fs-entry.js';
import { claimPrune, pruneStore } from './fs-prune.js';
import { publishNew, publishReplacing, reuse, reusePacked, writeEntry } from './fs-publish.js';
import { keyOf } from './keys.js';
import type { PutItem, PutResult } from './store.js';

/** Errors meaning "this store cannot persist here" rather than a bug or a transient oddity. */
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'ENOSPC', 'EDQUOT', 'EEXIST', 'EISDIR']);

/** put of bytes (given, or the original's UTF-8). */
export async function putBytes(
  ctx: FsContext,
  original: string,
  given: Buffer | Uint8Array | undefined,
): Promise<PutResult> {
  let key = '';
  try {
    // Hash the bytes, not the string: V8 would encode a large string a second time inside update().
    // A Buffer given is used as it is: keyOf knows its key already when the pipeline placed the
    // marker (a view made here would be a new object, and hash 100 MB a second time).
    const bytes = given
      ? Buffer.isBuffer(given)
        ? given
        : Buffer.from(given.buffer, given.byteOffset, given.byteLength)
      : Buffer.from(original, 'utf8');
    key = keyOf(bytes);
    const beyond = overLimit(ctx, key, bytes.length);
    if (beyond) return beyond;
    const found = await reuse(ctx, key, bytes);
    if (typeof found === 'object') return found;
    const data = await encode(bytes, ctx.compress);
    return await stored(ctx, key, bytes, data, found === 'corrupt');
  } catch (err) {
    return failure(key, err);
  }
}

/**
 * put of a large text whose bytes nobody holds: hashed, compressed and (when an entry is already
 * there) compared a slice at a time, so the text's whole encoding never exists beside it — on a
 * 56 MB original, 58 MB less at the run's peak. Only where something is unusual (gzip does not
 * pay, a link race) are the bytes encoded whole, as putBytes does.
 */
export async function putText(ctx: FsContext, original: string): Promise<PutResult> {
  let key = '';
  try {
    key = keyOf(original);
    const beyond = overLimit(ctx, key, Buffer.byteLength(original, 'utf8'));
    if (beyond) return beyond;
    const found = await reuse(ctx, key, original);
    if (typeof found === 'object') return found;
    const data = (await encodeText(original)) ?? Buffer.from(original, 'utf8');
    return await stored(ctx, key, original, data, found === 'corrupt');
  } catch (err) {
    return failure(key, err);
  }
}

/** The entry written (over a corrupt one, or new), then the lazy prune. */
async function stored(
  ctx: FsContext,
  key: string,
  bytes: Buffer | string,
  data: Buffer,
  corrupt: boolean,
): Promise<PutResult> {
  const tooLarge = overCap(ctx, key, data);
  if (tooLarge) return tooLarge;
  const path = entryPath(ctx.dir, key);
  const result = await writeEntry(ctx, key, path, bytes, data, corrupt ? publishReplacing : publishNew);
  // The entry is safely in place: a failing prune must not turn this put into a failure.
  if (result.ok && result.created) await lazyPrune(ctx, new Set([key])).catch(() => undefined);
  return result;
}

/** After entries were created: the lazy prune, at most every few minutes, never of `keep`. */
async function lazyPrune(ctx: FsContext, keep: ReadonlySet<string>): Promise<void> {
  const now = Date.now();
  if (await claimPrune(ctx.dir, now)) await pruneStore(ctx.dir, ctx.limits, now, keep, ctx.tmpPath);
}

/**
 * A put's failed result when the original is larger than any entry this store keeps: what is
 * stored must read back within the limit every read inflates to.
 */
function overLimit(ctx: FsContext, key: string, length: number): PutResult | undefined {
  if (length <= ctx.entryLimit) return undefined;
  return {
    ok: false,
    key,
    reason: 'error',
    detail: `an original of ${length} bytes exceeds store.max_entry_mb (${ctx.entryLimit / 2 ** 20} MiB)`,
  };
}

/** A put's failed result when an entry's stored form is over the store's cap. */
function overCap(ctx: FsContext, key: string, data: Buffer): PutResult | undefined {
  if (data.length <= ctx.limits.capBytes) return undefined;
  return {
    ok: false,
    key,
    reason: 'error',
    detail: `entry of ${data.length} bytes exceeds the store cap of ${ctx.maxBytes} bytes`,
  };
}

/** A put's failed result for an error thrown while storing key. */
function failure(key: string, err: unknown): PutResult {
  const code = codeOf(err);
  return {
    ok: false,
    key,
    reason: code && UNWRITABLE.has(code) ? 'unwritable' : 'error',
    detail: messageOf(err),
  };
}

/** put's own steps, for putMany (fs-batch.ts); `put` is the store's own. */
export function batchOps(ctx: FsContext, put: (item: PutItem) => Promise<PutResult>): BatchOps {
  return {
    dir: ctx.dir,
    compress: ctx.compress,
    capBytes: ctx.limits.capBytes,
    maxBytes: ctx.maxBytes,
    tmpPath: ctx.tmpPath,
    overLimit: (key, length) => overLimit(ctx, key, length),
    reuse: (key, bytes) => reuse(ctx, key, bytes),
    reusePacked: (key, bytes) => reusePacked(ctx, key, bytes),
    publishNew: (tmp, key, path, bytes) => publishNew(ctx, tmp, key, path, bytes),
    publishReplacing: (tmp, key, path, bytes) => publishReplacing(ctx, tmp, key, path, bytes),
    failure,
    prune: (keep) => lazyPrune(ctx, keep),
    presence(count) {
      ctx.packs.refresh();
      return heldIn(ctx, count);
    },
    put,
  };
}
