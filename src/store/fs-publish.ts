/**
 * The on-disk store's write path for one entry: what is under the key already (re-used, a
 * collision, corrupt, or nothing), and a fully written temp file published under the key.
 *
 * link(2) is atomic and fails with EEXIST instead of replacing, so even two processes racing with
 * different bytes can never overwrite an entry; the rename fallback (only where hard links are
 * unsupported) keeps the atomicity but not that guarantee. A corrupt entry is replaced by rename,
 * which swaps the name atomically (a link there is replaced itself, never written through); a
 * directory planted there is cleared first (clearDirectory), or rename could never replace it and
 * that output would pass raw for ever.
 */
import { link, open, rename, unlink } from 'node:fs/promises';
import { type FsContext, shardDir } from './fs-context.js';
import { CREATE_FLAGS, clearDirectory, codeOf, ensureRealDir, NO_HARD_LINKS } from './fs-entry.js';
import { type Judge, type Located, locate, locatePacked } from './fs-locate.js';
import { touch } from './fs-touch.js';
import type { PutResult } from './store.js';
import { compareStored } from './verify.js';

/** How the bytes under a key relate to the original a put brings, when no final result is due. */
export type Existing = 'absent' | 'corrupt';

/**
 * The entry already under the key (loose or packed), if it can serve this put: `same` is re-used
 * after touch proves its file is still in place (a concurrent prune may be removing it: then it is
 * written anew). `corrupt` means the loose entry is damaged (it is replaced). The compare is bounded
 * by the original's length: a planted value that inflates to gigabytes is never inflated.
 */
export async function reuse(
  ctx: FsContext,
  key: string,
  bytes: Buffer | string,
): Promise<PutResult | Existing> {
  return reused(ctx, key, await locate(ctx, key, against(ctx, key, bytes)));
}

/** reuse for a key a batch knows has no loose file (fs-locate.ts: locatePacked). */
export async function reusePacked(ctx: FsContext, key: string, bytes: Buffer): Promise<PutResult | Existing> {
  return reused(ctx, key, await locatePacked(ctx, key, against(ctx, key, bytes)));
}

async function reused(
  ctx: FsContext,
  key: string,
  found: Located<'same' | 'different'>,
): Promise<PutResult | Existing> {
  if (found.found) {
    if (found.value === 'different')
      return {
        ok: false,
        key,
        reason: 'collision',
        detail: `a different entry already exists at ${found.where}`,
      };
    return (await touch(ctx, found.where)) ? { ok: true, key, created: false } : 'absent';
  }
  if (found.why === 'missing') return 'absent';
  if (found.why === 'corrupt') return 'corrupt';
  throw found.error;
}

/** How the stored form under a key compares with the original a put brings (bounded by it). */
const against =
  (ctx: FsContext, key: string, bytes: Buffer | string): Judge<'same' | 'different'> =>
  async (raw) => {
    const c = await compareStored(raw, key, bytes, ctx.entryLimit);
    return c.is === 'corrupt'
      ? { found: false, why: 'corrupt', detail: c.detail }
      : { found: true, value: c.is };
  };

/** Publishes a durable temp file under the key, as new (link) or over a corrupt entry (rename). */
export type Publish = (
  ctx: FsContext,
  tmp: string,
  key: string,
  path: string,
  bytes: Buffer | string,
) => Promise<PutResult>;

/** Publishes under a key nothing is under: link, or re-use or replace what appeared meanwhile. */
export const publishNew: Publish = (ctx, tmp, key, path, bytes) =>
  published(ctx, tmp, key, path, bytes, linkIn);

/** Publishes over a corrupt entry: rename, clearing a directory planted there. */
export const publishReplacing: Publish = (ctx, tmp, key, path, bytes) =>
  published(ctx, tmp, key, path, bytes, renameIn);

type Step = (ctx: FsContext, tmp: string, path: string) => Promise<void>;

const linkIn: Step = async (_ctx, tmp, path) => {
  try {
    await link(tmp, path);
  } catch (err) {
    const code = codeOf(err);
    if (!code || !NO_HARD_LINKS.has(code)) throw err;
    await rename(tmp, path);
  }
};

const renameIn: Step = (_ctx, tmp, path) => rename(tmp, path);

async function published(
  ctx: FsContext,
  tmp: string,
  key: string,
  path: string,
  bytes: Buffer | string,
  first: Step,
): Promise<PutResult> {
  let step = first;
  for (let attempt = 1; ; attempt++) {
    try {
      await step(ctx, tmp, path);
      return { ok: true, key, created: true };
    } catch (err) {
      const code = codeOf(err);
      const replacing = step === renameIn;
      if (replacing && attempt < 3 && (code === 'EISDIR' || code === 'ENOTEMPTY' || code === 'EEXIST')) {
        await clearDirectory(path, ctx.tmpPath());
        continue;
      }
      if (attempt >= 3 || (code !== 'EEXIST' && code !== 'ENOENT')) throw err;
      if (code === 'EEXIST') {
        const found = await reuse(ctx, key, bytes);
        if (typeof found === 'object') return found;
        step = found === 'corrupt' ? renameIn : linkIn;
        // 'absent': it vanished between link and read (a concurrent prune): try again.
      } else {
        // A concurrent clear removed the empty shard directory between our mkdir and link.
        await ensureRealDir(shardDir(ctx, key));
      }
    }
  }
}

/** Writes `data` (the stored form of `bytes`) to a durable temp file and publishes it. */
export async function writeEntry(
  ctx: FsContext,
  key: string,
  path: string,
  bytes: Buffer | string,
  data: Buffer,
  publish: Publish,
): Promise<PutResult> {
  await ensureRealDir(shardDir(ctx, key));
  const tmp = ctx.tmpPath();
  let made = false;
  try {
    const fh = await open(tmp, CREATE_FLAGS, 0o600);
    made = true;
    try {
      await fh.writeFile(data);
      // Without this a power cut after the link could leave an empty file under the key.
      await fh.datasync();
    } finally {
      await fh.close();
    }
    return await publish(ctx, tmp, key, path, bytes);
  } finally {
    // After a successful link the entry keeps its own name; after rename this is a harmless ENOENT.
    if (made) await unlink(tmp).catch(() => undefined);
  }
}
