/**
 * Byte-level I/O for commands: read all of stdin (src/stdin.ts; a stdin cg cannot read, such as a
 * directory, is a one-line error, exit 2), write without losing data on EPIPE, and tell whether
 * stdout is a regular file (then cg writes raw unless the reader is a model).
 */

import { isUtf8 } from 'node:buffer';
import { fstatSync } from 'node:fs';
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

export { readStdin } from './stdin.js';

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
