/**
 * Runs a command with its stdout and stderr both connected to one unlinked temp file (the spool).
 * One open file description shared by both streams keeps them in exactly the order they were
 * written, and the output lives on disk, not in memory, however large it grows. stdin is passed
 * through untouched. SIGINT/SIGTERM/SIGHUP sent to cg are forwarded to the child.
 */
import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Spool {
  fd: number;
  size(): number;
  /** Bytes [start, end) of the spool. */
  read(start?: number, end?: number): Buffer;
  close(): void;
}

export type RunOutcome =
  | { kind: 'exited'; code: number; signal?: NodeJS.Signals; spool: Spool; ms: number }
  | { kind: 'not-started'; code: number; message: string };

function openSpool(): Spool {
  const dir = mkdtempSync(join(tmpdir(), 'cg-run-'));
  const path = join(dir, 'out');
  const fd = openSync(path, 'w+', 0o600);
  // Unlinked at once: nothing is left behind if cg is killed, and no one else can read it.
  rmSync(dir, { recursive: true, force: true });
  return {
    fd,
    size: () => fstatSync(fd).size,
    read(start = 0, end?: number) {
      const stop = end ?? fstatSync(fd).size;
      const buf = Buffer.allocUnsafe(Math.max(0, stop - start));
      let got = 0;
      while (got < buf.length) {
        const n = readSync(fd, buf, got, buf.length - got, start + got);
        if (n === 0) break;
        got += n;
      }
      return got === buf.length ? buf : buf.subarray(0, got);
    },
    close: () => closeSync(fd),
  };
}

/** 128 + the signal's number, as shells report a child killed by a signal. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

export interface SpawnOptions {
  /** Run `command` through /bin/sh -c instead of as argv. */
  shell?: boolean;
  onStart?: (spool: Spool) => void;
}

export async function runCommand(argv: readonly string[], opts: SpawnOptions = {}): Promise<RunOutcome> {
  // Imported here, not at the top: in the one-file bundle a top-level import would load
  // node:child_process on every `cmd | cg` start, which never spawns anything.
  const { spawn } = await import('node:child_process');
  const spool = openSpool();
  const [file, ...args] = opts.shell ? ['/bin/sh', '-c', argv.join(' ')] : argv;
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(file!, args, { stdio: ['inherit', spool.fd, spool.fd] });
    const forward = (sig: NodeJS.Signals) => () => {
      child.kill(sig);
    };
    const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((sig) => [sig, forward(sig)] as const);
    for (const [sig, h] of handlers) process.on(sig, h);
    const done = (outcome: RunOutcome) => {
      for (const [sig, h] of handlers) process.off(sig, h);
      resolve(outcome);
    };
    child.once('error', (err: NodeJS.ErrnoException) => {
      spool.close();
      const name = argv[0] ?? '';
      if (err.code === 'ENOENT')
        return done({ kind: 'not-started', code: 127, message: `${name}: command not found` });
      if (err.code === 'EACCES')
        return done({ kind: 'not-started', code: 126, message: `${name}: Permission denied` });
      done({ kind: 'not-started', code: 126, message: `${name}: ${err.message}` });
    });
    child.once('spawn', () => opts.onStart?.(spool));
    child.once('exit', (code, signal) => {
      const ms = performance.now() - started;
      if (signal) done({ kind: 'exited', code: signalExitCode(signal), signal, spool, ms });
      else done({ kind: 'exited', code: code ?? 1, spool, ms });
    });
  });
}
