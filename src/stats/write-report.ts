/**
 * Where `cg stats --html FILE` puts its page. `-` is stdout. FILE is replaced atomically: the page
 * is written to a new file beside it, flushed, and renamed over it, so a reader never sees half a
 * page and a failed write leaves the old one as it was. A FILE that exists and is not a regular
 * file (a directory, a FIFO, a device such as /dev/stdout) is refused before anything is read or
 * written: renaming over it would replace it. A symlink to a regular file is followed (the file it
 * names is replaced, the link stays). A replaced file keeps its permission bits.
 */
import { randomBytes } from 'node:crypto';
import { chmod, open, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../errors.js';

export const STDOUT = '-';

/** The path to replace (symlinks resolved), STDOUT, or a UsageError for a target cg must not touch. */
export async function checkTarget(file: string): Promise<string> {
  if (file === STDOUT) return STDOUT;
  if (file === '') throw new UsageError('stats --html: expected a file name, or - for stdout');
  let st: Awaited<ReturnType<typeof stat>>;
  try {
    st = await stat(file);
  } catch (err) {
    if (code(err) === 'ENOENT') return file; // a new file (its directory is checked when it is written)
    throw new Error(`stats --html: cannot write ${file}: ${reason(err)}`);
  }
  if (!st.isFile()) {
    throw new UsageError(
      `stats --html: ${file} is ${kind(st)}, not a regular file; give a file name, or - for stdout`,
    );
  }
  return realpath(file);
}

/** Writes text to `path` (from checkTarget, not STDOUT) atomically; returns the bytes written. */
export async function writeAtomically(path: string, text: string): Promise<number> {
  const data = Buffer.from(text, 'utf8');
  const tmp = join(
    dirname(path),
    `.${basename(path)}.cg-${process.pid}-${randomBytes(4).toString('hex')}.tmp`,
  );
  let mode: number | undefined;
  try {
    const st = await stat(path);
    if (!st.isFile()) throw new UsageError(`stats --html: ${path} is ${kind(st)}, not a regular file`);
    mode = st.mode & 0o7777;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    // Not there (yet): a new file, with the usual permissions.
  }
  let created = false;
  try {
    const fh = await open(tmp, 'wx', 0o666);
    created = true;
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    if (mode !== undefined) await chmod(tmp, mode);
    await rename(tmp, path);
    created = false;
    return data.length;
  } catch (err) {
    throw new Error(`stats --html: cannot write ${path}: ${reason(err)}`);
  } finally {
    if (created) await unlink(tmp).catch(() => {});
  }
}

function kind(st: Awaited<ReturnType<typeof stat>>): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a pipe';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'a special file';
}

function code(err: unknown): string | undefined {
  return err instanceof Error ? (err as NodeJS.ErrnoException).code : undefined;
}

function reason(err: unknown): string {
  switch (code(err)) {
    case 'ENOENT':
      return 'its directory does not exist';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}
