/**
 * Byte-level I/O for commands: read all of stdin, write without losing data on EPIPE, and tell
 * whether stdout is a regular file (then cg writes raw unless the reader is a model). A stdin cg
 * cannot read (a directory) is a one-line error, exit 2.
 */

import { isUtf8 } from 'node:buffer';
import { fstatSync, readSync } from 'node:fs';
import { UsageError } from './errors.js';
import { writeStdout } from './stdout.js';

/**
 * One growing buffer: chunks are copied in as they arrive instead of being kept and concatenated.
 * It doubles as it fills, but never past `limit` unless one push needs more.
 */
export class Accumulator {
  buf: Buffer;
  used = 0;
  constructor(
    initial: number,
    private readonly limit = Number.POSITIVE_INFINITY,
  ) {
    this.buf = Buffer.allocUnsafe(initial);
  }
  /** Makes room for at least n more bytes. */
  reserve(n: number): void {
    if (this.used + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(Math.min(this.buf.length * 2, this.limit), this.used + n));
    this.buf.copy(grown, 0, 0, this.used);
    this.buf = grown;
  }
  push(chunk: Buffer): void {
    this.reserve(chunk.length);
    chunk.copy(this.buf, this.used);
    this.used += chunk.length;
  }
  result(): Buffer {
    return this.buf.subarray(0, this.used);
  }
}

/**
 * All of stdin as one Buffer, never held twice: a regular file is sized up front; a pipe is read
 * synchronously while its descriptor blocks (the usual shell pipe), which spares loading Node's
 * stream machinery on every start; a non-blocking descriptor (EAGAIN) falls back to the stream.
 */
export async function readStdin(): Promise<Buffer> {
  try {
    return await readStdinBytes();
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read standard input: ${(err as Error).message}`);
  }
}

async function readStdinBytes(): Promise<Buffer> {
  let size = -1;
  try {
    const st = fstatSync(0);
    if (st.isDirectory()) throw new UsageError('standard input is a directory');
    if (st.isFile()) size = st.size;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    // no stdin to stat: read whatever the stream gives
  }
  if (size >= 0) return readRegularFile(size);
  const acc = new Accumulator(64 * 1024);
  try {
    for (;;) {
      acc.reserve(64 * 1024);
      const n = readSync(0, acc.buf, acc.used, acc.buf.length - acc.used, null);
      if (n === 0) return acc.result();
      acc.used += n;
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EOF') return acc.result();
    if (code !== 'EAGAIN' && code !== 'EWOULDBLOCK') throw err;
  }
  for await (const chunk of process.stdin) acc.push(chunk as Buffer);
  return acc.result();
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

/**
 * Writes to stdout (stdout.ts: straight to the descriptor in the CLI while nothing has built
 * process.stdout) and resolves once flushed. A write that fails never resolves: the launcher's
 * stdout handler (bin/cg.js) ends cg first, quietly when the reader is gone (EPIPE, with the exit
 * code already set: cg run's is the command's), with one line `cg: cannot write output: …` otherwise.
 */
export function writeOut(data: string | Uint8Array): Promise<void> {
  return writeStdout(data);
}

export function warn(line: string): void {
  process.stderr.write(`cg: ${line}\n`);
}
