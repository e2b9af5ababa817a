/**
 * Whether output goes out raw whatever it holds, and why (the line --verbose and --explain print).
 * Raw with CG_DISABLE=1, with `cg run --raw`, and when stdout is a regular file a person redirected
 * to. Where the reader is a model (`--for-model`, CG_READER=model: what cg's own agent integration
 * sets, since agent hosts capture a command's output in files), output is compacted wherever it
 * goes; `--force` does the same.
 *
 * The regular-file case is the one a person did not ask for in so many words (`cmd | cg > out.txt`
 * looks like it compacts), so it is said on stderr even without --verbose, unless --quiet; the
 * other two were asked for by name and pass silently.
 */
import { stdoutIsRegularFile } from '../io.js';

export interface ReaderFlags {
  raw?: boolean;
  force?: boolean;
  forModel?: boolean;
  /** --quiet: no line about raw output into a file. */
  quiet?: boolean;
}

export function readerIsModel(flags: ReaderFlags, env: NodeJS.ProcessEnv = process.env): boolean {
  return flags.forModel === true || env.CG_READER === 'model';
}

export const RAW_FILE_REASON =
  'stdout is a regular file: writing it raw, for a person (--for-model or CG_READER=model compacts it for a model; --quiet hides this line)';

export function rawOutputReason(
  flags: ReaderFlags,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (env.CG_DISABLE === '1') return 'CG_DISABLE=1: passing output through unchanged';
  if (flags.raw) return '--raw: passing output through unchanged';
  if (!flags.force && !readerIsModel(flags, env) && stdoutIsRegularFile()) return RAW_FILE_REASON;
  return undefined;
}

/** The line to print about raw output (`reason` from rawOutputReason), or undefined for none. */
export function rawOutputNotice(
  reason: string,
  flags: ReaderFlags & { verbose?: boolean; explain?: boolean },
): string | undefined {
  if (flags.verbose || flags.explain) return reason;
  return reason === RAW_FILE_REASON && !flags.quiet ? reason : undefined;
}
