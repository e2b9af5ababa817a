/**
 * The default command: stdin → compacted stdout (stdin a terminal: a short usage, exit 2, rather
 * than waiting). The config, the component or preset names and a --filters file are checked first,
 * whatever the input and wherever stdout points, so a typo is an error even on empty input or into
 * a file (only CG_DISABLE=1 skips them). Then the byte-level gates: CG_DISABLE, or a person's
 * regular file on stdout → the input bytes verbatim (the file case says so in one stderr line unless
 * --quiet); binary or invalid UTF-8 input passes verbatim; the rest goes to the engine. A filter in
 * a pipe never eats its input: a config, filter or usage error passes the input through unchanged
 * and exits 2; an unexpected internal error passes it through and exits 0. The compaction of a held
 * input is compact-and-write.ts, what is reported after it compact-report.ts (both shared with `cg run`).
 */

import { type CgConfig, loadConfig } from '../config.js';
import { createFilterSource } from '../dsl/registry.js';
import { isCodedError } from '../errors.js';
import { collectGarbage } from '../heap/gc.js';
import type { FormatChoice } from '../input/transcript.js';
import { warn, writeOut } from '../io.js';
import { resolveStages } from '../pipeline/resolve-stages.js';
import { readStdinUpTo, type StdinRead } from '../stdin.js';
import { isTerminal } from '../terminal.js';
import type { TokenizerName } from '../tokens.js';
import { compactAndWrite, type HeldInput } from './compact-and-write.js';
import { recordReport, terminalFooter } from './compact-report.js';
import { pipeCap } from './hold-cap.js';
import { rawOutputNotice, rawOutputReason } from './raw-output.js';

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
  /** --for-model: the reader is a model, so compact even into a regular file (also CG_READER=model). */
  forModel?: boolean;
  /** --quiet: no stderr line when output goes raw into a regular file. */
  quiet?: boolean;
}

// The steps `cg run` shares with the filter, taken from here so that it loads them with one lazy import.
export { compactAndWrite, recordReport, terminalFooter };

export async function compressCommand(flags: CompressFlags): Promise<number> {
  if (isTerminal(0)) {
    const { FILTER_USAGE } = await import('./terminal-stdin.js');
    process.stderr.write(FILTER_USAGE);
    return 2;
  }
  const raw = rawOutputReason(flags);
  // Raw output holds nothing: every byte streams through as it comes.
  // Held, not bound: compactAndWrite lets go of a large input's bytes once it has their text.
  const input = await readInput(raw ? 0 : pipeCap());
  if ('rest' in input) return streamedThrough(input, flags, raw);
  let config: CgConfig | undefined;
  try {
    // Checked when output goes raw too: a mistyped name is an error wherever stdout points. Only
    // the kill switch CG_DISABLE=1 skips it, so that it works even with a broken config.
    if (process.env.CG_DISABLE !== '1') config = await prepareCompaction(flags);
  } catch (err) {
    await writeOut(input.bytes!);
    if (isCodedError(err)) throw err;
    warn(
      `internal error, input passed through unchanged: ${err instanceof Error ? err.message : String(err)}`,
    );
    return 0;
  }
  if (raw) {
    const notice = input.bytes!.length > 0 ? rawOutputNotice(raw, flags) : undefined;
    if (notice) warn(notice);
    await writeOut(input.bytes!);
    return 0;
  }
  const report = await compactAndWrite(input, flags, config!);
  if (report?.error) throw report.error;
  if (report) await recordReport(report, flags, await terminalFooter(report));
  return 0;
}

type Streamed = Extract<StdinRead, { held: false }>;

/** Stdin as a HeldInput (nothing else keeps a reference to its bytes), or what streams past the cap. */
async function readInput(cap: number): Promise<HeldInput | Streamed> {
  const read = await readStdinUpTo(cap);
  return read.held ? { bytes: read.bytes } : read;
}

/**
 * Input past the cap (or any input that goes out raw): what was read goes out first, then the rest
 * as it comes, each chunk let go of once written, so the reader gets every byte and cg holds at most
 * the cap. One line on stderr says so; a broken config or an unknown name is still an error (exit 2).
 */
async function streamedThrough(
  read: Streamed,
  flags: CompressFlags,
  raw: string | undefined,
): Promise<number> {
  let bytes = 0;
  const head = read.head;
  for (let i = 0; i < head.length; i++) {
    const chunk = head[i]!;
    head[i] = chunk.subarray(0, 0);
    bytes += chunk.length;
    await writeOut(chunk);
  }
  // What was held is garbage now: collected before more is read, the run holds a chunk from here on.
  if (bytes > 8 << 20) collectGarbage();
  for await (const chunk of read.rest) {
    bytes += chunk.length;
    await writeOut(chunk);
  }
  // Checked when output goes raw too: a mistyped name is an error wherever stdout points (and then
  // the error is the one line). Only the kill switch CG_DISABLE=1 skips it, so that it works even
  // with a broken config.
  if (process.env.CG_DISABLE !== '1') {
    try {
      await prepareCompaction(flags);
    } catch (err) {
      if (isCodedError(err)) throw err;
    }
  }
  if (!raw) warn(`input passed ${pipeCap() / (1024 * 1024)} MB (${bytes} bytes): streamed through raw`);
  const notice = raw && bytes > 0 ? rawOutputNotice(raw, flags) : undefined;
  if (notice) warn(notice);
  return 0;
}

/**
 * The config, the component or preset names and the --filters file's presence, checked before any
 * input is looked at: a broken config, an unknown name or a missing file is an error whatever the
 * input and wherever stdout points. Throws ConfigError or UsageError.
 */
export async function prepareCompaction(flags: CompressFlags): Promise<CgConfig> {
  const config = await loadConfig(flags.config);
  // Reads nothing yet: only a missing --filters file is an error at once (ConfigError).
  if (flags.filters !== undefined)
    createFilterSource({ filtersFile: flags.filters, cwd: process.cwd(), env: {} });
  resolveStages(
    {
      ...(flags.preset !== undefined ? { preset: flags.preset } : {}),
      ...(flags.components !== undefined ? { components: flags.components } : {}),
    },
    config,
    'text',
  );
  return config;
}
