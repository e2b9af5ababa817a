/**
 * File primitives of the disk store that never follow a symbolic link inside it (DESIGN §5): an
 * entry, shard or stamp that is a link — planted, say, in a store that once sat in a cloned
 * repository — is never read through, written through or touched through. Reads open with
 * O_NOFOLLOW and accept only a regular file; times are set with lutimes; new files are created with
 * O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600, so an existing name (link or not) is never reused.
 *
 * It also holds the one safe way to delete an entry that another process may be re-using at the
 * same moment (evict), and the matching half on the re-use side (refresh).
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  lutimesSync,
  openSync,
  readFile,
  readFileSync,
} from 'node:fs';
import { link, lstat, lutimes, mkdir, rename, rm, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { makeDirs } from '../make-dirs.js';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;
/** Create a new private file; fail if the name exists in any form (O_EXCL never follows a link). */
export const CREATE_FLAGS = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;
/** link(2) refused by the filesystem itself (FAT, some FUSE and network mounts): fall back to rename. */
export const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK']);

export function codeOf(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string')
    return err.code;
  return undefined;
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** An error with a code, as fs raises them, for refusals of our own (a link where a file belongs). */
export function refusal(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

/**
 * Entries up to this size are read with synchronous calls: open, fstat and one read cost less than
 * handing each to libuv's thread pool (which a `cg expand` would otherwise start for them alone,
 * and wait on four times); a larger one is read on the pool so a long-lived process (the MCP
 * server, the proxy) keeps answering while it loads.
 */
const SYNC_READ_MAX = 1 << 20;

/**
 * The bytes of a regular file of at most `max` bytes, never through a link: a link (ELOOP from
 * O_NOFOLLOW) or a non-regular file (a FIFO, a device, a directory) reads as EINVAL rather than
 * blocking or streaming forever, and a larger file (a huge sparse one, say) as EFBIG without a byte
 * of it read. O_NONBLOCK keeps the open itself from waiting on a FIFO before fstat can refuse it.
 */
export async function readRegular(path: string, max = Number.POSITIVE_INFINITY): Promise<Buffer> {
  let fd: number;
  try {
    fd = openSync(path, O_RDONLY | O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if (codeOf(err) === 'ELOOP') throw refusal('EINVAL', `${path} is a symbolic link, not a store entry`);
    throw err;
  }
  let large = false;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw refusal('EINVAL', `${path} is not a regular file`);
    if (st.size > max)
      throw refusal('EFBIG', `${path} is larger than store.max_entry_mb, the largest original kept`);
    large = st.size > SYNC_READ_MAX;
    if (!large) return readFileSync(fd);
  } finally {
    if (!large) closeSync(fd);
  }
  return new Promise((resolve, reject) =>
    readFile(fd, (err, bytes) => {
      closeSync(fd);
      if (err) reject(err);
      else resolve(bytes);
    }),
  );
}

/**
 * Clears a directory planted where a file of the store belongs, so that name can be written: it is
 * renamed aside (atomically, within the store) and removed there with what it holds. Removal never
 * follows a link inside it (fs.rm unlinks links), so nothing outside the store is touched; a name
 * that is not a directory, or is no longer there, is left alone.
 */
export async function clearDirectory(path: string, aside: string): Promise<void> {
  const st = await lstat(path).catch(() => undefined);
  if (!st?.isDirectory()) return;
  try {
    await rename(path, aside);
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return; // another process cleared it first
    throw err;
  }
  await rm(aside, { recursive: true, force: true });
}

/**
 * A directory that is really one: mkdir, then lstat to be sure. A link planted in its place is
 * removed (the link, never what it points to) and the directory made; anything else there that is
 * not a directory is refused.
 */
export async function ensureRealDir(path: string): Promise<void> {
  await makeDirs(path);
  let st = await lstat(path);
  if (st.isSymbolicLink()) {
    await unlink(path);
    await mkdir(path, { mode: 0o700 }).catch((err) => {
      if (codeOf(err) !== 'EEXIST') throw err; // another process made it first
    });
    st = await lstat(path);
  }
  if (!st.isDirectory()) {
    throw refusal(
      'ENOTDIR',
      `${path} is not a directory; cg never writes through anything else in its store`,
    );
  }
}

/**
 * Marks an entry as just used, and proves it is still there afterwards: `true` only if its name
 * still exists once its time is set. That second look is what makes re-use safe against evict():
 * either the eviction's rename came after our lutimes finished (it then sees the new time and puts
 * the entry back), or our lstat finds the name gone and the caller writes the entry again. Without
 * it a re-used key's marker could outlive its entry. A time that cannot be set for another reason
 * (a read-only store, which no prune can change either) does not make the entry unusable.
 */
export async function refresh(path: string, now = new Date()): Promise<boolean> {
  // Two system calls that return at once: synchronous, so a read needs no thread-pool round trip.
  try {
    lutimesSync(path, now, now);
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return false;
  }
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** Sets a file's times without following a link; errors are the caller's to judge. */
export function setTimes(path: string, atime: Date, mtime: Date): Promise<void> {
  return lutimes(path, atime, mtime);
}

export interface Eviction {
  outcome: 'removed' | 'kept' | 'gone' | 'failed';
  error?: unknown;
}

/**
 * Deletes an entry only if nobody used it since `seenMtimeMs` (its time when the prune scanned it).
 * Checking the time and then unlinking would leave a gap in which a re-use lands and is lost, so the
 * entry is first renamed aside (atomic: from then on no re-use can reach it by name), its time read
 * again there, and then either unlinked, or linked back because a re-use refreshed it in the
 * meantime. A put that arrives while the name is away finds it absent and writes the entry anew;
 * link(2) never overwrites that fresh copy when this one is put back.
 */
export async function evict(path: string, seenMtimeMs: number, aside: string): Promise<Eviction> {
  try {
    await rename(path, aside);
  } catch (err) {
    return codeOf(err) === 'ENOENT' ? { outcome: 'gone' } : { outcome: 'failed', error: err };
  }
  let used: boolean;
  try {
    used = (await lstat(aside)).mtimeMs !== seenMtimeMs;
  } catch {
    return { outcome: 'gone' }; // a concurrent clear took it from the aside name
  }
  if (used) {
    await putBack(aside, path);
    return { outcome: 'kept' };
  }
  const removal = await remove(aside);
  return removal.outcome === 'failed' ? removal : { outcome: removal.outcome };
}

async function putBack(aside: string, path: string): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await link(aside, path);
      break;
    } catch (err) {
      const code = codeOf(err);
      if (code === 'EEXIST') break; // a put wrote the same content again meanwhile
      if (code && NO_HARD_LINKS.has(code)) {
        await rename(aside, path).catch(() => undefined);
        return;
      }
      // A concurrent clear removed the (then empty) shard directory: make it again, once.
      if (code === 'ENOENT' && attempt === 0) await ensureRealDir(dirname(path)).catch(() => undefined);
      else break;
    }
  }
  await unlink(aside).catch(() => undefined);
}

export interface Removal {
  /** 'removed' by us, 'gone' (someone else removed it first), or 'failed' (still there). */
  outcome: 'removed' | 'gone' | 'failed';
  error?: unknown;
}

/** Unlinks a name (a link itself, never its target). */
export async function remove(path: string): Promise<Removal> {
  try {
    await unlink(path);
    return { outcome: 'removed' };
  } catch (err) {
    return codeOf(err) === 'ENOENT' ? { outcome: 'gone' } : { outcome: 'failed', error: err };
  }
}
