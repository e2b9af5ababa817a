/**
 * cg's own writes to stdout, without building Node's stdout stream when nothing needs it.
 *
 * Node builds process.stdout on first use — for a pipe a net.Socket and the stream machinery under
 * it, a few milliseconds of every start-up — while cg writes its output once, at the end. So the
 * launcher (bin/cg.js) turns on direct mode: as long as nothing has asked for process.stdout, a
 * write is write(2) on descriptor 1, done before writeStdout returns. The first use of
 * process.stdout (cg run streams the command's output through it, cg mcp speaks through it) builds
 * the stream as usual, hands it the launcher's error handler, and ends direct mode, so bytes never
 * overtake each other. A descriptor that would block (EAGAIN: a pipe someone made non-blocking)
 * gets the rest through the stream too. A write that fails goes to the same handler the stream's
 * errors go to, which ends cg (see bin/cg.js); its promise never resolves.
 * Without the launcher (the library, tests) every write goes through the stream.
 */
import { writeSync } from 'node:fs';

type OnError = (err: NodeJS.ErrnoException) => void;

let direct: OnError | undefined;

/** Writes to stdout; resolves once the bytes are handed to the kernel (or the stream flushed them). */
export function writeStdout(data: string | Uint8Array): Promise<void> {
  let rest = data;
  if (direct) {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let done = 0;
    try {
      while (done < bytes.length) done += writeSync(1, bytes, done, bytes.length - done);
      return Promise.resolve();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') {
        direct(err as NodeJS.ErrnoException);
        return new Promise(() => {});
      }
      rest = bytes.subarray(done);
    }
  }
  return new Promise((resolve) => {
    process.stdout.write(rest, (err) => {
      if (!err) resolve();
    });
  });
}

/**
 * Direct mode, for the CLI: `onError` handles a failed write, direct or through the stream once it
 * is built. False (and nothing changed) where process.stdout cannot be wrapped.
 */
export function writeStdoutDirectly(onError: OnError): boolean {
  const built = Object.getOwnPropertyDescriptor(process, 'stdout');
  if (!built?.get || !built.configurable) return false;
  direct = onError;
  Object.defineProperty(process, 'stdout', {
    configurable: true,
    enumerable: built.enumerable ?? true,
    get() {
      direct = undefined;
      Object.defineProperty(process, 'stdout', built);
      const stream = process.stdout;
      stream.on('error', onError);
      return stream;
    },
  });
  return true;
}
