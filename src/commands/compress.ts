/**
 * The default command: stdin → compacted stdout. Byte-level gates first (CG_DISABLE, a regular
 * file on stdout, binary or invalid UTF-8 input → the input bytes verbatim), then the engine. An
 * unexpected internal error also passes the input through unchanged: a filter in a pipe must never
 * eat its input.
 */

import type { InputFormat } from '../component.js';
import { loadConfig } from '../config.js';
import { createFilterSource } from '../dsl/registry.js';
import { compactText } from '../engine.js';
import type { ConfigError } from '../errors.js';
import type { FormatChoice } from '../input/transcript.js';
import { isRewritableText, readStdin, stdoutIsRegularFile, warn, writeOut } from '../io.js';
import type { PipelineEvent } from '../pipeline/run.js';
import type { RunCounts } from '../stats/index.js';
import { openStore } from '../store/open.js';
import { createTokens, type TokenizerName, type Tokens } from '../tokens.js';
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
  /** --filters FILE: a filter file tried before all others. */
  filters?: string;
  /** --session <id> gives a string, --no-session false; absent means CG_SESSION or a derived id. */
  session?: string | boolean;
}

export async function compressCommand(flags: CompressFlags): Promise<number> {
  const input = await readStdin();
  if (process.env.CG_DISABLE === '1') return passthrough(input, flags, 'CG_DISABLE=1: passing input through');
  if (stdoutIsRegularFile() && !flags.force) {
    return passthrough(input, flags, 'stdout is a regular file: writing raw (use --force to compact)');
  }
  const report = await compactAndWrite(input, flags);
  if (report?.filterError) throw report.filterError;
  if (report) await recordReport(report, flags, await terminalFooter(report));
  return 0;
}

/** What a compaction did, for callers that report on it (cg run's footer). */
export interface CompactReport {
  events: PipelineEvent[];
  input: string;
  output: string;
  changed: boolean;
  /** A filter file that failed to load: the output is the input, and the caller should report this. */
  filterError?: ConfigError;
  format: InputFormat;
  tokenizer: TokenizerName;
  storeDir?: string;
  /** The run's token counter: the footer reuses its cached counts. */
  tokens: Tokens;
  /** The session the engine replayed under (explicit or derived from the conversation). */
  session?: string;
}

/**
 * On a terminal (stderr is a TTY: a person is watching, never an agent's pipe), one footer line with
 * the tokens the run saved; the counts are handed on to the ledger so nothing is counted twice.
 */
export async function terminalFooter(report: CompactReport): Promise<RunCounts | undefined> {
  if (process.stderr.isTTY !== true || !report.changed || report.filterError) return undefined;
  const { countRun, footerLine } = await import('../stats/index.js');
  const counts = await countRun(report.events, report.tokens);
  if (counts) process.stderr.write(`${footerLine(counts)}\n`);
  return counts;
}

/** Appends the run to the stats ledger (after the output is written; never throws). */
export async function recordReport(
  report: CompactReport,
  flags: CompressFlags,
  counts?: RunCounts,
): Promise<void> {
  if (report.filterError) return; // the output was the raw input: nothing was saved or spent
  const { recordCompaction } = await import('../stats/index.js');
  await recordCompaction(report.events, {
    ...(flags.command !== undefined ? { command: flags.command } : {}),
    ...(report.session !== undefined
      ? { session: report.session }
      : typeof flags.session === 'string'
        ? { session: flags.session }
        : {}),
    format: report.format,
    tokenizer: report.tokenizer,
    ...(report.storeDir !== undefined ? { storeDir: report.storeDir } : {}),
    ...(counts ? { counts } : {}),
  });
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
  const tokenizer = flags.tokenizer ?? config.tokenizer;
  const tokens = createTokens(tokenizer);
  const store = flags.store === false ? null : openStore(config.store);
  const meta = {
    format: 'text' as InputFormat,
    tokenizer,
    tokens,
    ...(store ? { storeDir: store.dir } : {}),
  };
  // Lazy: filter files (and re2js) are read only if cmdfilter asks for a filter.
  const filters = createFilterSource({
    ...(flags.filters !== undefined ? { filtersFile: flags.filters } : {}),
    cwd: process.cwd(),
    env: process.env,
    ...(flags.verbose ? { onNote: warn } : {}),
  });
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
      store,
      tokens,
      session:
        flags.session === false ? false : typeof flags.session === 'string' ? { id: flags.session } : {},
      filters,
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
  if (filters.error) {
    // A broken filter file is a config error, never a silent skip; the input still passes through
    // whole, so nothing is lost while the caller reports it (compress: exit 2).
    await writeOut(input);
    return { ...meta, events, input: text, output: text, changed: false, filterError: filters.error };
  }
  if (result.changed) await writeOut(result.output);
  else await writeOut(input);
  if (flags.explain)
    process.stderr.write(await explainTable(events, text, result.output, config.tokenizer, flags.tokenizer));
  return {
    ...meta,
    format: result.format,
    ...(result.session !== undefined ? { session: result.session } : {}),
    events,
    input: text,
    output: result.output,
    changed: result.changed,
  };
}

async function passthrough(input: Buffer, flags: CompressFlags, why: string): Promise<number> {
  if (flags.verbose) warn(why);
  await writeOut(input);
  return 0;
}
