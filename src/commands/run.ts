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
import { type CompactReport, type CompressFlags, compactAndWrite } from './compress.js';

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
    if (showProgress && report?.changed) process.stderr.write(await footer(report, flags));
  } finally {
    spool.close();
  }
  return code;
}

async function streamRaw(spool: Spool, size: number): Promise<void> {
  for (let at = 0; at < size; at += 1 << 20) await writeOut(spool.read(at, Math.min(size, at + (1 << 20))));
}

/** One line on a terminal: what the run saved, counted with the real tokenizer. */
async function footer(report: CompactReport, flags: RunFlags): Promise<string> {
  const { createTokens } = await import('../tokens.js');
  const tokens = createTokens(flags.tokenizer ?? 'o200k');
  const before = await tokens.count(report.input);
  const after = await tokens.count(report.output);
  const pct = before > 0 ? Math.round(((before - after) / before) * 100) : 0;
  const keys = [...new Set(report.events.flatMap((e) => (e.key ? [e.key] : [])))];
  const expand = keys.length ? ` · cg expand ${keys.join(' ')}` : '';
  return `cg: ${before.toLocaleString('en-US')} → ${after.toLocaleString('en-US')} tokens (−${pct}%)${expand}\n`;
}
