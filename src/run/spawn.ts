/**
 * Starts the command `cg run` wraps and reports how it ended.
 *
 * - Its stdout and stderr are one pipe (the wrapper shell puts both on it, then execs the command),
 *   so the two streams keep exactly the order they were written in. The output is read into a
 *   Capture (memory, bounded): no temp file, so a read-only temp directory changes nothing.
 * - It runs detached, in its own session and process group; the signals cg gets are relayed to
 *   that group (signals.ts), and if cg exits while the command still runs, the group gets SIGTERM.
 *   If cg is killed outright (SIGKILL: an agent host killing cg's own process group on a timeout),
 *   a watcher sees cg's end of its pipe close and SIGKILLs the group.
 * - When the reader goes away while output streams (EPIPE), cg stops reading and sends the group
 *   SIGPIPE, which is how the command would have ended in a shell pipeline: 141. Another write
 *   failure (a full disk) stops the reading only: the command's next write fails as its own write
 *   to that stdout would have, it finishes as it sees fit, and the failure is reported.
 * - After the command exits, output still arriving from what it left running in the background is
 *   read while it keeps coming; once the pipe is quiet, cg stops reading and reports the exit.
 * A command that cannot start is answered as a shell would (program.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { Capture } from './capture.js';
import { findProgram } from './program.js';
import { relaySignals, signalGroup } from './signals.js';

export interface Exit {
  code: number;
  signal?: NodeJS.Signals;
  /** Streamed output that could not be written (not a reader gone: that ends cg at once). */
  writeError?: Error;
}

export type Started =
  | { kind: 'running'; capture: Capture; exit: Promise<Exit> }
  | { kind: 'not-started'; code: number; message: string };

export interface StartOptions {
  /** Run `argv.join(' ')` as a /bin/sh script instead of as argv. */
  shell?: boolean;
  /** The most output held for compaction; past it, the output streams through raw. */
  cap: number;
  /** Stream from the first byte (the output will not be compacted anyway). */
  stream?: boolean;
  /** Where streamed output goes (default stdout). */
  sink?: Writable;
}

/** After the command exits, the pipe counts as drained once this long passes without a byte. */
const QUIET_MS = 100;

/** The wrapper shell puts stdout and stderr on one pipe, then the command replaces it. */
const MERGED = 'exec "$@" 2>&1';

/**
 * The watcher: a tiny shell of its own session (so a kill of cg's process group misses it), and
 * cg's child (so cg reaps it). It reads its stdin, a pipe only cg writes: first the command's
 * process group, then "done" once the command has exited, or nothing but the end of the pipe when
 * cg died first, and then it SIGKILLs that group, so nothing the command started outlives cg. It is
 * started before the command, which it learns of on its stdin, so its own start overlaps the
 * command's run instead of following it.
 */
const WATCHER = `trap '' INT TERM HUP QUIT; read -r group; read -r end; [ "$end" = done ] || kill -s KILL -- "-$group"`;

/** 128 + the signal's number, as shells report a child killed by a signal. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

export async function startCommand(argv: readonly string[], opts: StartOptions): Promise<Started> {
  const target = opts.shell ? ['/bin/sh', '-c', argv.join(' ')] : [...argv];
  if (!opts.shell) {
    const found = findProgram(target[0] ?? '');
    if (!found.ok) return { kind: 'not-started', code: found.code, message: found.message };
    // A name starting with '-' would read as an option to some shells' exec: give the path found.
    if (target[0]!.startsWith('-')) target[0] = found.path;
  }
  // Imported here, not at the top: in the one-file bundle a top-level import would load
  // node:child_process on every `cmd | cg` start, which never spawns anything.
  const { spawn } = await import('node:child_process');
  const watcher = spawn('/bin/sh', ['-c', WATCHER, 'cg-run-watch'], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  // Without a watcher (it could not start) only a cg killed outright leaves the command running.
  watcher.on('error', () => {});
  watcher.stdin!.on('error', () => {});
  // Relayed from before the first moment: a signal before the relay would end cg and leave the command.
  const relay = relaySignals();
  const unrelay = () => relay.remove();
  const child = spawn('/bin/sh', ['-c', MERGED, 'cg-run', ...target], {
    stdio: ['inherit', 'pipe', 'inherit'],
    detached: true,
  });
  if (child.pid !== undefined) relay.to(child.pid);
  const failed = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', resolve);
  });
  if (failed) {
    unrelay();
    watcher.stdin!.end('\ndone\n');
    const code = failed.code === 'ENOENT' ? 127 : 126;
    return { kind: 'not-started', code, message: `/bin/sh: ${failed.message}` };
  }
  const sink = new LazySink(opts.sink);
  const source = child.stdout!;
  const capture = new Capture(source, () => sink.get(), opts.cap);
  if (opts.stream) capture.stream();
  watcher.stdin!.write(`${child.pid}\n`);
  const exit = supervise({ pgid: child.pid!, child, capture, sink, watcher: watcher.stdin!, unrelay });
  return { kind: 'running', capture, exit };
}

/**
 * Where streamed output goes, built on first use: process.stdout is a stream Node builds only when
 * asked (for a pipe, a socket and the stream machinery), and output held for compaction is written
 * at the end without it (src/stdout.ts). Error handlers wait for it to exist.
 */
class LazySink {
  private built: Writable | undefined;
  private readonly handlers = new Set<(err: NodeJS.ErrnoException & { handled?: boolean }) => void>();

  constructor(private readonly given: Writable | undefined) {}

  get(): Writable {
    if (!this.built) {
      this.built = this.given ?? process.stdout;
      for (const h of this.handlers) this.built.prependListener('error', h);
    }
    return this.built;
  }

  /** Puts `h` first in line for the sink's errors (now, or once it is built); returns its removal. */
  onError(h: (err: NodeJS.ErrnoException & { handled?: boolean }) => void): () => void {
    this.handlers.add(h);
    this.built?.prependListener('error', h);
    return () => {
      this.handlers.delete(h);
      this.built?.off('error', h);
    };
  }
}

interface Supervised {
  /** The command's process group (its pid: it leads its own session). */
  pgid: number;
  child: ChildProcess;
  capture: Capture;
  sink: LazySink;
  /** The watcher's stdin: "done" tells it the command ended while cg lives. */
  watcher: Writable;
  /** Removes the signal relay (installed as the command started). */
  unrelay: () => void;
}

/** Relays signals while the command runs, handles a vanished reader, and waits for the end. */
async function supervise({ pgid, child, capture, sink, watcher, unrelay }: Supervised): Promise<Exit> {
  let running = true;
  const onCgExit = () => {
    if (running) signalGroup(pgid, 'SIGTERM');
  };
  let writeError: Error | undefined;
  // First in line, before the launcher's handler (bin/cg.js), which ends cg on EPIPE and on any
  // failure nobody marked handled: the command must hear of it first.
  const onSinkError = (err: NodeJS.ErrnoException & { handled?: boolean }) => {
    capture.abandon();
    if (err.code !== 'EPIPE') {
      err.handled = true;
      writeError ??= err;
    } else if (running) {
      running = false;
      signalGroup(pgid, 'SIGPIPE');
      process.exitCode = signalExitCode('SIGPIPE');
    }
  };
  process.on('exit', onCgExit);
  const offSinkError = sink.onError(onSinkError);
  try {
    const exit = await new Promise<Exit>((resolve) =>
      child.once('exit', (code, signal) =>
        resolve(signal ? { code: signalExitCode(signal), signal } : { code: code ?? 1 }),
      ),
    );
    running = false;
    // The command ended while cg lives: what it left in the background may stay.
    watcher.end('done\n');
    await drained(child.stdout!, capture);
    await capture.flushed();
    return writeError ? { ...exit, writeError } : exit;
  } finally {
    unrelay();
    process.off('exit', onCgExit);
    offSinkError();
  }
}

/** Resolves at the pipe's end, or once it has been quiet (and not held back by a slow reader). */
function drained(source: Readable, capture: Capture): Promise<void> {
  return new Promise((resolve) => {
    let seen = capture.bytes;
    const finish = () => {
      clearInterval(timer);
      capture.abandon();
      resolve();
    };
    const timer = setInterval(() => {
      if (source.isPaused() || capture.bytes !== seen) {
        seen = capture.bytes;
        return;
      }
      finish();
    }, QUIET_MS);
    if (source.destroyed) finish();
    else source.once('close', finish);
  });
}
