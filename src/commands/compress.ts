/**
 * The default command: stdin → compacted stdout (stdin a terminal: a short usage, exit 2, rather
 * than waiting). The config, the component or preset names and a --filters file are checked first,
 * whatever the input and wherever stdout points, so a typo is an error even on empty input or into
 * a file (only CG_DISABLE=1 skips them). Then the byte-level gates: CG_DISABLE, or a person's
 * regular file on stdout → the input bytes verbatim (the file case says so in one stderr line unless
 * --quiet); binary or invalid UTF-8 input passes verbatim; the rest goes to the engine. A filter in
 * a pipe never eats its input: a config, filter or usage error passes the input through unchanged
 * and exits 2; an unexpected internal error passes it through and exits 0.
 */

import type { InputFormat } from '../component.js';
import { type CgConfig, loadConfig } from '../config.js';
import { openDoor } from '../door.js';
import { createFilterSource } from '../dsl/registry.js';
import { compactText } from '../engine.js';
import { collectGarbage } from '../heap/gc.js';
import { leanHeap } from '../heap/lean.js';
import type { FormatChoice } from '../input/transcript.js';
import { isRewritableText, warn, writeOut } from '../io.js';
import { resolveStages } from '../pipeline/resolve-stages.js';
import type { PipelineEvent } from '../pipeline/run.js';
import type { RunCounts } from '../stats/index.js';
import { readStdinUpTo, type StdinRead } from '../stdin.js';
import { isTerminal } from '../terminal.js';
import { linesAbove } from '../text/line-count.js';
import { createTokens, keepByteLength, type TokenizerName, type Tokens } from '../tokens.js';
import { SLICE_UNITS, utf8Slices } from '../utf8-slices.js';
import { isWideText, pipeCap, wideCap } from './hold-cap.js';
import { rawOutputNotice, rawOutputReason, readerIsModel } from './raw-output.js';
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
  /** --for-model: the reader is a model, so compact even into a regular file (also CG_READER=model). */
  forModel?: boolean;
  /** --quiet: no stderr line when output goes raw into a regular file. */
  quiet?: boolean;
}

/** An error that carries its exit code (usage and config errors: 2). */
export type CodedError = Error & { exitCode: number };

export function isCodedError(err: unknown): err is CodedError {
  return err instanceof Error && typeof (err as { exitCode?: unknown }).exitCode === 'number';
}

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

/** What a compaction did, for callers that report on it (cg run's footer). */
export interface CompactReport {
  events: PipelineEvent[];
  input: string;
  output: string;
  changed: boolean;
  /**
   * A config, filter or usage problem found while compacting (a filter file that fails to load, a
   * forced format the input does not have): the output is the input, and the caller reports this.
   */
  error?: CodedError;
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
  // Not process.stderr.isTTY: that getter builds the stderr stream, which a run never needs when
  // it has nothing to say there.
  if (!isTerminal(2) || !report.changed || report.error) return undefined;
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
  if (report.error) return; // the output was the raw input: nothing was saved or spent
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

function forcesFormat(flags: CompressFlags): boolean {
  return flags.format !== undefined && flags.format !== 'auto' && flags.format !== 'text';
}

/** Whether the chosen stages are none whatever the input's format (`--preset off`). */
function runsNothing(flags: CompressFlags, config: CgConfig): boolean {
  const choice = {
    ...(flags.preset !== undefined ? { preset: flags.preset } : {}),
    ...(flags.components !== undefined ? { components: flags.components } : {}),
  };
  return (['text', 'anthropic'] as const).every((f) => resolveStages(choice, config, f).stages.length === 0);
}

/** The report of a run that had nothing to do: no events, nothing changed. */
function passedThrough(
  flags: CompressFlags,
  config: CgConfig,
): Omit<CompactReport, 'events' | 'input' | 'output' | 'changed'> {
  const tokenizer = flags.tokenizer ?? config.tokenizer;
  return { format: 'text', tokenizer, tokens: createTokens(tokenizer) };
}

/**
 * The input's bytes, held by one object so that compactAndWrite can let go of them: past
 * KEEP_BYTES_MAX its text is all it keeps (the text's UTF-8 is those very bytes, so passing it
 * through writes them), and a stash encodes the original again when one is needed (for a 60 MB
 * request body that is never). A caller must not keep its own reference to the bytes.
 */
export interface HeldInput {
  bytes: Buffer | undefined;
}

/**
 * Inputs up to this size keep their bytes for the store (spares an encode); larger JSON (a document,
 * a request body) does not: its lossless rewrites (format, toon) copy it whole, and the bytes held
 * beside them were what put a 60 MB body over its memory budget. Larger plain text keeps them: its
 * components write little, it stays inside the budget (a 100 MB log: 0.91 of it), and the store
 * then hashes and compresses the bytes directly — letting go of them cost a 100 MB log ~25 % more
 * CPU (encoding its text again, a page fault per re-used page) — unless it holds a character past
 * U+00FF: such a text is twice its bytes as a string, and with its bytes beside it a 64 MB log
 * peaked at 1.17 of its budget.
 */
const KEEP_BYTES_MAX = 8 << 20;

/** Whether the input opens like JSON (after whitespace): `{` or `[`. */
function opensLikeJson(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length && i < 4096; i++) {
    const b = bytes[i];
    if (b === 0x7b || b === 0x5b) return true;
    if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) return false;
  }
  return false;
}

/**
 * Past this size, or this many lines, the heap is asked to grow conservatively (src/heap/lean.ts):
 * components that hold something per line (a filter's line objects) fill the young generation,
 * which otherwise grows to hold them — 100,000 lines of `seq` through git-log's filter peaked at
 * 110 MB, 80 lean.
 */
const LEAN_ABOVE = 1 << 20;
const LEAN_LINES = 50_000;

/**
 * Compacts one input buffer and writes the result (or the input itself) to stdout. Shared by the
 * default command and `cg run`; the caller has already handled raw output and loaded the config.
 * It never throws for a config or usage problem: the input goes through and the report says why.
 */
export async function compactAndWrite(
  held: HeldInput,
  flags: CompressFlags,
  config: CgConfig,
): Promise<CompactReport | undefined> {
  const input = held.bytes!;
  if (input.length === 0) return undefined;
  if (!flags.verbose && !flags.explain && !forcesFormat(flags) && runsNothing(flags, config)) {
    // `--preset off` (or an empty list): the input is the output. Not even decoded: a 100 MB log
    // goes straight back out. (Under --verbose the plan line still says what was detected, and a
    // forced request format is still checked against the input.)
    await writeOut(input);
    return { ...passedThrough(flags, config), events: [], input: '', output: '', changed: false };
  }
  if (!isRewritableText(input)) {
    if (flags.verbose) warn('input is binary or not UTF-8: passing through');
    await writeOut(input);
    return undefined;
  }
  const size = input.length;
  const wide = size > Math.min(KEEP_BYTES_MAX, wideCap()) && isWideText(input);
  if (wide && size > wideCap()) {
    warn(
      `input passed ${wideCap() / (1024 * 1024)} MB of text beyond Latin-1 (${size} bytes): passed through raw`,
    );
    await writeOut(input);
    return undefined;
  }
  const text = input.toString('utf8');
  keepByteLength(text, size);
  if (size <= LEAN_ABOVE && !linesAbove(text, LEAN_LINES)) return compactDecoded(text, held, flags, config);
  leanHeap();
  // Text beyond Latin-1 is twice its bytes as a string: the bytes held beside it would put it over.
  if (size <= KEEP_BYTES_MAX || !(wide || opensLikeJson(input)))
    return compactDecoded(text, held, flags, config);
  held.bytes = undefined;
  return releasedThenCompacted(text, held, flags, config);
}

/**
 * After compactAndWrite has returned (its frame held the bytes too), the let-go bytes are collected
 * at once: V8 would keep them until the heap next filled (src/heap/gc.ts).
 */
async function releasedThenCompacted(
  text: string,
  held: HeldInput,
  flags: CompressFlags,
  config: CgConfig,
): Promise<CompactReport | undefined> {
  await Promise.resolve();
  collectGarbage();
  return compactDecoded(text, held, flags, config);
}

/** The input as the text of valid UTF-8: its bytes if still held, or written from the text. */
function passThrough(text: string, held: HeldInput): Promise<void> {
  return held.bytes ? writeOut(held.bytes) : writeText(text);
}

async function compactDecoded(
  text: string,
  held: HeldInput,
  flags: CompressFlags,
  config: CgConfig,
): Promise<CompactReport | undefined> {
  // Lazy: filter files (and re2js) are read only if cmdfilter asks for a filter.
  const { store, filters, tokenizer, tokens } = openDoor(config, {
    ...(flags.store === false ? { store: false } : {}),
    ...(flags.filters !== undefined ? { filtersFile: flags.filters } : {}),
    ...(flags.verbose ? { onNote: warn } : {}),
    ...(flags.tokenizer !== undefined ? { tokenizer: flags.tokenizer } : {}),
  });
  const meta = {
    format: 'text' as InputFormat,
    tokenizer,
    tokens,
    ...(store ? { storeDir: store.dir } : {}),
  };
  const events: PipelineEvent[] = [];
  let result: Awaited<ReturnType<typeof compactText>>;
  try {
    result = await compactText(text, {
      ...(flags.preset !== undefined ? { preset: flags.preset } : {}),
      ...(flags.components !== undefined ? { components: flags.components } : {}),
      config,
      ...(held.bytes ? { inputBytes: held.bytes } : {}),
      format: flags.format ?? 'auto',
      ...(flags.command !== undefined ? { command: flags.command } : {}),
      ...(flags.query !== undefined ? { query: flags.query } : {}),
      ...(flags.lang !== undefined ? { lang: flags.lang } : {}),
      ...(flags.tokenizer !== undefined ? { tokenizer: flags.tokenizer } : {}),
      // A model reader inside an agent host (`cg run` as Codex's hook rewrote it: CG_HOST, CG_READER)
      // gets no more of a shell output than the host itself would have shown (src/hosts/limits.ts).
      ...(readerIsModel(flags) && process.env.CG_HOST ? { host: process.env.CG_HOST } : {}),
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
    await passThrough(text, held);
    if (isCodedError(err)) return { ...meta, events, input: text, output: text, changed: false, error: err };
    warn(
      `internal error, input passed through unchanged: ${err instanceof Error ? err.message : String(err)}`,
    );
    return undefined;
  }
  if (filters.error) {
    // A broken filter file is a config error, never a silent skip; the input still passes through
    // whole, so nothing is lost while the caller reports it (compress: exit 2).
    await passThrough(text, held);
    return { ...meta, events, input: text, output: text, changed: false, error: filters.error };
  }
  if (result.changed) await writeParts(result.outputParts);
  else await passThrough(text, held);
  if (flags.explain)
    process.stderr.write(await explainTable(events, text, result.output, config.tokenizer, flags.tokenizer));
  return {
    ...meta,
    format: result.format,
    ...(result.session !== undefined ? { session: result.session } : {}),
    events,
    input: text,
    // Joined only if a footer or a caller reads it: written, the pieces were enough.
    get output() {
      return result.output;
    },
    changed: result.changed,
  };
}

/**
 * Writes a rewritten text in slices (src/utf8-slices.ts), each encoded into one reused buffer (a
 * write resolves once its bytes are handed on), so its UTF-8 is never one more copy the size of
 * the output (37 MB of compacted JSON, 60 MB of a request body), nor that much garbage in slices.
 */
function writeText(text: string): Promise<void> {
  return writeParts([text]);
}

/** Writes the pieces of a text one after another, batched through one buffer of a few MB. */
async function writeParts(parts: readonly string[]): Promise<void> {
  if (parts.length === 1 && parts[0]!.length <= SLICE_UNITS) return writeOut(parts[0]!);
  const buf = Buffer.allocUnsafe(3 * SLICE_UNITS + 3);
  let used = 0;
  for (const part of parts) {
    for (const slice of utf8Slices(part)) {
      if (used + 3 * slice.length > buf.length) {
        await writeOut(buf.subarray(0, used));
        used = 0;
      }
      used += buf.write(slice, used, 'utf8');
    }
  }
  if (used > 0) await writeOut(buf.subarray(0, used));
}
