/**
 * The default command: stdin → compacted stdout. Byte-level gates first (CG_DISABLE, a regular
 * file on stdout, binary or invalid UTF-8 input → the input bytes verbatim), then the engine. An
 * unexpected internal error also passes the input through unchanged: a filter in a pipe must never
 * eat its input.
 */
import { loadConfig } from '../config.js';
import { compactText } from '../engine.js';
import type { FormatChoice } from '../input/transcript.js';
import { isRewritableText, readStdin, stdoutIsRegularFile, warn, writeOut } from '../io.js';
import type { PipelineEvent } from '../pipeline.js';
import { openStore } from '../store/open.js';
import type { TokenizerName } from '../tokens.js';
import { explainTable, verboseLine } from './report.js';

export interface CompressFlags {
  preset?: string;
  components?: string;
  config?: string;
  format?: FormatChoice;
  command?: string;
  query?: string;
  lang?: string;
  tokenizer?: TokenizerName;
  /** commander's --no-store sets this false */
  store?: boolean;
  verbose?: boolean;
  explain?: boolean;
  force?: boolean;
}

export async function compressCommand(flags: CompressFlags): Promise<number> {
  const input = await readStdin();
  if (process.env.CG_DISABLE === '1') return passthrough(input, flags, 'CG_DISABLE=1: passing input through');
  if (stdoutIsRegularFile() && !flags.force) {
    return passthrough(input, flags, 'stdout is a regular file: writing raw (use --force to compact)');
  }
  await compactAndWrite(input, flags);
  return 0;
}

/** What a compaction did, for callers that report on it (cg run's footer). */
export interface CompactReport {
  events: PipelineEvent[];
  input: string;
  output: string;
  changed: boolean;
}

/**
 * Compacts one input buffer and writes the result (or the input itself) to stdout. Shared by the
 * default command and `cg run`; the caller has already handled CG_DISABLE and raw output.
 */
export async function compactAndWrite(
  input: Buffer,
  flags: CompressFlags,
): Promise<CompactReport | undefined> {
  if (input.length === 0) return undefined;
  if (!isRewritableText(input)) {
    await passthrough(input, flags, 'input is binary or not UTF-8: passing through');
    return undefined;
  }

  const config = await loadConfig(flags.config);
  const text = input.toString('utf8');
  const events: PipelineEvent[] = [];
  let result: Awaited<ReturnType<typeof compactText>>;
  try {
    result = await compactText(text, {
      ...(flags.preset !== undefined ? { preset: flags.preset } : {}),
      ...(flags.components !== undefined ? { components: flags.components } : {}),
      config,
      inputBytes: input,
      format: flags.format ?? 'auto',
      ...(flags.command !== undefined ? { command: flags.command } : {}),
      ...(flags.query !== undefined ? { query: flags.query } : {}),
      ...(flags.lang !== undefined ? { lang: flags.lang } : {}),
      ...(flags.tokenizer !== undefined ? { tokenizer: flags.tokenizer } : {}),
      store: flags.store === false ? null : openStore(config.store),
      onPlan: (plan) => {
        if (!flags.verbose) return;
        warn(`${plan.format} input; ${plan.source}: ${plan.components.join(', ') || '(no components)'}`);
        for (const note of plan.notes) warn(note);
      },
      onEvent: (e) => {
        events.push(e);
        if (flags.verbose) warn(verboseLine(e));
      },
    });
  } catch (err) {
    if (err instanceof Error && 'exitCode' in err) throw err;
    warn(
      `internal error, input passed through unchanged: ${err instanceof Error ? err.message : String(err)}`,
    );
    await writeOut(input);
    return undefined;
  }
  if (result.changed) await writeOut(result.output);
  else await writeOut(input);
  if (flags.explain)
    process.stderr.write(await explainTable(events, text, result.output, config.tokenizer, flags.tokenizer));
  return { events, input: text, output: result.output, changed: result.changed };
}

async function passthrough(input: Buffer, flags: CompressFlags, why: string): Promise<number> {
  if (flags.verbose) warn(why);
  await writeOut(input);
  return 0;
}
