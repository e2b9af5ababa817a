/**
 * Whether output goes out raw whatever it holds, and why (the line --verbose and --explain print).
 * Raw with CG_DISABLE=1, with `cg run --raw`, and when stdout is a regular file a person redirected
 * to. Where the reader is a model (`--for-model`, CG_READER=model: what cg's own agent integration
 * sets, since agent hosts capture a command's output in files), output is compacted wherever it
 * goes; `--force` does the same.
 */
import { stdoutIsRegularFile } from '../io.js';

export interface ReaderFlags {
  raw?: boolean;
  force?: boolean;
  forModel?: boolean;
}

export function readerIsModel(flags: ReaderFlags, env: NodeJS.ProcessEnv = process.env): boolean {
  return flags.forModel === true || env.CG_READER === 'model';
}

export function rawOutputReason(
  flags: ReaderFlags,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (env.CG_DISABLE === '1') return 'CG_DISABLE=1: passing output through unchanged';
  if (flags.raw) return '--raw: passing output through unchanged';
  if (!flags.force && !readerIsModel(flags, env) && stdoutIsRegularFile()) {
    return 'stdout is a regular file: writing it raw, for a person (--for-model or CG_READER=model compacts it for a model)';
  }
  return undefined;
}
