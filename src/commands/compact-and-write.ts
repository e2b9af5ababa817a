/**
 * One input held in memory, compacted and written to stdout (or written as it came): the step the
 * default command and `cg run` share once raw output is ruled out and the config is loaded. It
 * decides what the input's size and shape allow — passed straight through (`--preset off`, binary,
 * too wide), its bytes kept or let go of, the heap asked to stay lean — and builds its store,
 * filters and tokens through the one door factory. A config or usage problem never throws: the
 * input goes through and the report carries the error.
 */
import type { InputFormat } from '../component.js';
import type { CgConfig } from '../config.js';
import { openDoor } from '../door.js';
import { compactText } from '../engine.js';
import { isCodedError } from '../errors.js';
import { collectGarbage } from '../heap/gc.js';
import { leanHeap } from '../heap/lean.js';
import { isRewritableText, warn, writeOut } from '../io.js';
import { resolveStages } from '../pipeline/resolve-stages.js';
import type { PipelineEvent } from '../pipeline/run.js';
import { linesAbove } from '../text/line-count.js';
import { createTokens, keepByteLength } from '../tokens.js';
import type { CompactReport } from './compact-report.js';
import type { CompressFlags } from './compress.js';
import { isWideText, wideCap } from './hold-cap.js';
import { readerIsModel } from './raw-output.js';
import { explainTable, verboseLine } from './report.js';
import { writeParts, writeText } from './write-parts.js';

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
