/**
 * `cg run [options] -- CMD [ARGS…]`: runs CMD (no shell, unless --shell), with stdout and stderr
 * captured together in write order, then compacts that output with the command known to the
 * filters. The exit code is always CMD's own (128+N for a signal; 127 when it cannot start, with the
 * usual one-line message). Output goes out raw when stdout is a regular file, with --raw, or with
 * CG_DISABLE=1; output too large to hold comfortably (> 64 MB) also goes out raw, streamed from the
 * spool, and --verbose says so.
 */
import { UsageError } from '../errors.js';
import { stdoutIsRegularFile, warn, writeOut } from '../io.js';
import { commandLine } from '../run/quote.js';
import { runCommand, type Spool } from '../run/spawn.js';
import { type Spinner, startSpinner } from '../run/spinner.js';
import { type CompressFlags, compactAndWrite, recordReport, terminalFooter } from './compress.js';

export interface RunFlags extends CompressFlags {
  shell?: string;
  raw?: boolean;
}

/** Above this, the output is streamed through raw rather than read into memory. */
export const MAX_IN_MEMORY_BYTES = 64 * 1024 * 1024;

export async function runSubcommand(argv: readonly string[], flags: RunFlags): Promise<number> {
  if (flags.shell !== undefined && argv.length > 0) {
    throw new UsageError('run: give either --shell "…" or a command after --, not both');
  }
  const command = flags.shell ?? (argv.length > 0 ? commandLine(argv) : undefined);
  if (!command) throw new UsageError('run: no command given (cg run -- CMD [ARGS…])');
  const showProgress = process.stderr.isTTY === true;
  let spinner: Spinner | undefined;
  const outcome = await runCommand(flags.shell !== undefined ? [flags.shell] : argv, {
    shell: flags.shell !== undefined,
    onStart: (spool) => {
      if (showProgress) spinner = startSpinner(command, spool);
    },
  });
  spinner?.stop();
  if (outcome.kind === 'not-started') {
    process.stderr.write(`cg: ${outcome.message}\n`);
    return outcome.code;
  }
  const { spool, code } = outcome;
  try {
    const raw =
      flags.raw === true || process.env.CG_DISABLE === '1' || (stdoutIsRegularFile() && !flags.force);
    const size = spool.size();
    if (raw || size > MAX_IN_MEMORY_BYTES) {
      if (flags.verbose && !raw) warn(`output is ${size} bytes (> 64 MB): passed through raw`);
      await streamRaw(spool, size);
      return code;
    }
    const report = await compactAndWrite(spool.read(0, size), { ...flags, command });
    // A broken filter file: the output went through unchanged; say why, keep the command's exit code.
    if (report?.filterError) warn(report.filterError.message);
    if (!report) return code;
    const counts = await terminalFooter(report);
    await recordReport(report, { ...flags, command }, counts);
  } finally {
    spool.close();
  }
  return code;
}

async function streamRaw(spool: Spool, size: number): Promise<void> {
  for (let at = 0; at < size; at += 1 << 20) await writeOut(spool.read(at, Math.min(size, at + (1 << 20))));
}
