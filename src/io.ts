/**
 * Byte-level I/O for commands: read all of stdin, write without losing data on EPIPE, and tell
 * whether stdout is a regular file (then cg writes raw: the reader is not a model).
 */

import { isUtf8 } from 'node:buffer';
import { fstatSync, readSync } from 'node:fs';

/**
 * All of stdin as one Buffer. Chunks are copied into one growing buffer as they arrive (rather than
 * kept and concatenated at the end), so a 100 MB input never sits in memory twice; a regular file
 * on stdin is sized up front.
 */
export async function readStdin(): Promise<Buffer> {
  let size = -1;
  try {
    const st = fstatSync(0);
    if (st.isFile()) size = st.size;
  } catch {
    // no stdin to stat: read whatever the stream gives
  }
  if (size >= 0) return readRegularFile(size);
  let buf = Buffer.allocUnsafe(Math.max(size + 1, 64 * 1024));
  let used = 0;
  for await (const chunk of process.stdin) {
    const c = chunk as Buffer;
    if (used + c.length > buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(buf.length * 2, used + c.length));
      buf.copy(grown, 0, 0, used);
      buf = grown;
    }
    c.copy(buf, used);
    used += c.length;
  }
  return buf.subarray(0, used);
}

/** A regular file on stdin: read straight into one buffer of its size, no stream chunks. */
function readRegularFile(size: number): Buffer {
  let buf = Buffer.allocUnsafe(size + 1);
  let used = 0;
  for (;;) {
    if (used === buf.length) {
      const grown = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(grown, 0, 0, used);
      buf = grown;
    }
    const n = readSync(0, buf, used, buf.length - used, null);
    if (n === 0) return buf.subarray(0, used);
    used += n;
  }
}

export function stdoutIsRegularFile(): boolean {
  try {
    return fstatSync(1).isFile();
  } catch {
    return false;
  }
}

/** Text cg may rewrite: valid UTF-8 with no NUL byte. Anything else passes through verbatim. */
export function isRewritableText(buf: Buffer): boolean {
  return buf.indexOf(0) === -1 && isUtf8(buf);
}

/** Writes and resolves once flushed; a closed pipe (EPIPE) ends quietly like other Unix filters. */
export function writeOut(
  data: string | Uint8Array,
  stream: NodeJS.WritableStream = process.stdout,
): Promise<void> {
  return new Promise((resolve) => {
    const onError = (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      resolve();
    };
    stream.once('error', onError);
    stream.write(data, () => {
      stream.removeListener('error', onError);
      resolve();
    });
  });
}

export function warn(line: string): void {
  process.stderr.write(`cg: ${line}\n`);
}
