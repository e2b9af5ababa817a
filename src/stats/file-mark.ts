/**
 * How far a ledger file was read, and whether it is still that file: the stats checkpoint
 * (read-cache.ts) resumes a read only from files that are byte for byte what it read.
 *
 * A ledger file is append-only (ledger.ts) and keeps its inode when rotation renames it, so a file is
 * told by device, inode and birth time, not by name; the bytes read of it are checked by a hash of
 * their first and last CHECK_BYTES (cheap however long the file), which also tells a file a reset
 * removed from a new one that got its inode back. A mark's size always ends on a newline.
 */
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

const CHECK_BYTES = 4096;

export interface FileMark {
  dev: number;
  ino: number;
  birth: number;
  /** Bytes read of the file, up to and including a newline. */
  size: number;
  /** sha1 of the first and the last CHECK_BYTES of those bytes. */
  check: string;
}

/** The mark of a file read up to `size`. */
export async function fileMark(fh: FileHandle, st: Stats, size: number): Promise<FileMark> {
  return { dev: st.dev, ino: st.ino, birth: st.birthtimeMs, size, check: await checkOf(fh, size) };
}

/**
 * Whether the open file is the one marked and still holds the bytes it was read up to: the same
 * size, or (`mayGrow`, the last file a checkpoint covers) at least as many bytes.
 */
export async function stillMarked(
  fh: FileHandle,
  st: Stats,
  mark: FileMark,
  mayGrow: boolean,
): Promise<boolean> {
  if (st.dev !== mark.dev || st.ino !== mark.ino || st.birthtimeMs !== mark.birth) return false;
  if (mayGrow ? st.size < mark.size : st.size !== mark.size) return false;
  return (await checkOf(fh, mark.size)) === mark.check;
}

async function checkOf(fh: FileHandle, size: number): Promise<string> {
  const head = Math.min(size, CHECK_BYTES);
  const tail = Math.min(size - head, CHECK_BYTES);
  const buf = Buffer.alloc(head + tail);
  await readFully(fh, buf, 0, head, 0);
  await readFully(fh, buf, head, tail, size - tail);
  return createHash('sha1').update(buf).digest('hex');
}

async function readFully(fh: FileHandle, buf: Buffer, at: number, length: number, position: number) {
  let done = 0;
  while (done < length) {
    const { bytesRead } = await fh.read(buf, at + done, length - done, position + done);
    if (bytesRead === 0) throw new Error('ledger file shorter than its mark');
    done += bytesRead;
  }
}
