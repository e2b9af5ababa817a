/**
 * `cg run [options] -- CMD [ARGS…]`: runs CMD (no shell, unless --shell) with stdout and stderr
 * captured together in write order, then compacts that output with the command known to the
 * filters. The exit code is always CMD's own (128+N for a signal; 127 or 126 when it cannot start,
 * with a shell's one-line message).
 *
 * cg run never costs the user the command: whatever fails inside cg — a broken config, an unknown
 * component or preset name, a filter file that fails to load, a temp directory or store it cannot
 * write — the command runs, its output gets through unchanged and its exit code is kept; cg's own
 * problem is one line on stderr, after the output.
 *
 * The output is held in memory, at most SPOOL_CAP bytes, for compaction. It streams through raw,
 * as it comes, instead: from the start when it goes out raw anyway (--raw, CG_DISABLE=1, a regular
 * file a person redirected to: said in one stderr line, unless --quiet, and a broken config is still
 * reported), from the moment the config turns out broken, and from the moment it outgrows the cap
 * (what was held goes first, so the reader still gets every byte; one line on stderr says so at the end).
 */
import type { CgConfig } from '../config.js';
import { isCodedError, UsageError } from '../errors.js';
import { warn } from '../io.js';
import { commandLine } from '../run/quote.js';
import { startCommand } from '../run/spawn.js';
import { type Spinner, startSpinner } from '../run/spinner.js';
import { isTerminal } from '../terminal.js';
import type { CompressFlags } from './compress.js';
import { rawOutputNotice, rawOutputReason } from './raw-output.js';

export interface RunFlags extends CompressFlags {
  shell?: string;
  raw?: boolean;
}

/** The most output held for compaction; past it the output streams through raw. */
export const SPOOL_CAP = 64 * 1024 * 1024;

type Prepared = { config: CgConfig } | { problem: string };

type Compress = typeof import('./compress.js');

/** The config and names, loaded while the command runs; a failure becomes the line to print. */
async function prepare(compress: Promise<Compress>, flags: RunFlags): Promise<Prepared> {
  const { prepareCompaction } = await compress;
  try {
    return { config: await prepareCompaction(flags) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return {
      problem: isCodedError(err) ? message : `internal error, output passed through unchanged: ${message}`,
    };
  }
}

export async function runSubcommand(argv: readonly string[], flags: RunFlags): Promise<number> {
  if (flags.shell !== undefined && argv.length > 0) {
    throw new UsageError('run: give either --shell "…" or a command after --, not both');
  }
  if (flags.shell === '' || (flags.shell === undefined && argv.length === 0)) {
    throw new UsageError('run: no command given (cg run -- CMD [ARGS…])');
  }
  const command = flags.shell ?? commandLine(argv);
  const raw = rawOutputReason(flags);
  const started = await startCommand(flags.shell !== undefined ? [flags.shell] : argv, {
    shell: flags.shell !== undefined,
    cap: SPOOL_CAP,
    stream: raw !== undefined,
  });
  if (started.kind === 'not-started') {
    process.stderr.write(`cg: ${started.message}\n`);
    return started.code;
  }
  const { capture } = started;
  // The compaction's modules (config, components, engine) initialise while the command runs, not
  // before it starts: imported with this module, they held up every command's start.
  const compress = import('./compress.js');
  // Checked when output goes raw too (CG_DISABLE=1 aside): a typo is a problem wherever stdout points.
  const prepared = process.env.CG_DISABLE !== '1' ? prepare(compress, flags) : undefined;
  // A broken config means raw output: let it flow now rather than after the command ends.
  void prepared?.then((p) => {
    if ('problem' in p) capture.stream();
  });
  let spinner: Spinner | undefined;
  if (isTerminal(2) && !capture.streaming) {
    const shown = startSpinner(command, capture);
    capture.whenStreaming(() => shown.stop());
    spinner = shown;
  }
  const { code, writeError } = await started.exit;
  spinner?.stop();
  if (writeError) {
    warn(`cannot write output: ${writeError.message}`);
    return code || 1;
  }
  // From here a reader gone (EPIPE) ends cg with the command's code; a failed write keeps it if non-zero.
  process.exitCode = code;

  if (raw !== undefined) {
    const notice = capture.bytes > 0 ? rawOutputNotice(raw, flags) : undefined;
    if (notice) warn(notice);
    const problem = await prepared;
    if (problem && 'problem' in problem) warn(problem.problem);
    return code;
  }
  const ready = await prepared!;
  if ('problem' in ready) {
    await capture.flushed();
    warn(ready.problem);
    return code;
  }
  if (capture.streaming) {
    // Said whatever the flags: the reader expected a compaction and got every byte instead.
    warn(`output passed ${SPOOL_CAP / (1024 * 1024)} MB (${capture.bytes} bytes): streamed through raw`);
    return code;
  }
  const { compactAndWrite, recordReport, terminalFooter } = await compress;
  const report = await compactAndWrite({ bytes: capture.takeOutput() }, { ...flags, command }, ready.config);
  // A broken filter file: the output went through unchanged; say why, keep the command's exit code.
  if (report?.error) warn(report.error.message);
  if (!report) return code;
  const counts = await terminalFooter(report);
  await recordReport(report, { ...flags, command }, counts);
  return code;
}
