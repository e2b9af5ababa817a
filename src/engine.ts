/**
 * The engine shared by the CLI and the library API: text in → transcript → pipeline → text out.
 * It knows nothing of stdin, stdout or exit codes; byte-level gates (binary input, CG_DISABLE,
 * redirected output) belong to the callers that see bytes. With a session, a request body's tool
 * outputs already sent in earlier turns are replayed as sent (src/session), and what this run sent
 * is recorded for the next turn.
 */

import { type CgConfig, defaultConfig, parseConfigObject } from './config.js';
import type { FilterSource } from './dsl/types.js';
import { hostLimit } from './hosts/index.js';
import { transcriptQuery } from './input/query.js';
import { readTranscript } from './input/read.js';
import type {
  FormatChoice,
  InputFormat,
  StructuralEdit,
  ToolOutput,
  Transcript,
} from './input/transcript.js';
import { type ModelAccess, modelAccess } from './llm/access.js';
import { MODEL_CONFIG_DEFAULTS } from './llm/endpoint.js';
import { backPins } from './pipeline/replay.js';
import { resolveStages } from './pipeline/resolve-stages.js';
import { type Pin, type PipelineEvent, type Replay, runPipeline } from './pipeline/run.js';
import { runMemo } from './session/memo.js';
import { keepsState, openSession, type Session, type SessionOptions } from './session/replay.js';
import type { Store } from './store/store.js';
import { createTokens, type TokenizerName, type Tokens } from './tokens.js';

export interface CompactOptions {
  preset?: string;
  /** Explicit component list (overrides the preset): "a,b" or ["a", "b"]. */
  components?: string | readonly string[];
  /** A loaded config, or a raw config object to validate. */
  config?: CgConfig | Record<string, unknown>;
  format?: FormatChoice;
  command?: string;
  /** The input's UTF-8 bytes, when the caller already holds them (spares a copy when stashing). */
  inputBytes?: Uint8Array;
  query?: string;
  lang?: string;
  /** Raw text only: the output of a failing run (non-zero exit), under the tool-error gates. */
  isError?: boolean;
  tokenizer?: TokenizerName;
  /** Where originals go; null keeps cg to lossless components. */
  store: Store | null;
  onEvent?: (e: PipelineEvent) => void;
  /** Called once the input format and component list are known, before any component runs. */
  onPlan?: (plan: { format: InputFormat; source: string; notes: string[]; components: string[] }) => void;
  /** Declarative filters for cmdfilter (the CLI passes the lookup order of DESIGN §5). */
  filters?: FilterSource;
  /** Reuse a token counter across calls (it caches counts). */
  tokens?: Tokens;
  /**
   * Replay the decisions of earlier turns of the same conversation (request bodies with a store
   * only). Off unless given; the CLI turns it on.
   */
  session?: SessionOptions | false;
  /**
   * The model for model-assisted components; by default resolved from the config's `model:` section,
   * the environment and the request's own model (see README "Model-assisted components").
   */
  model?: ModelAccess;
  /** Environment for model resolution (default process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * The agent host the result goes to (any of its names, src/hosts/limits.ts): a shell output is
   * never handed on with more tokens than the host itself would have shown of it.
   */
  host?: string;
  /**
   * Aborted when the caller stopped waiting and sent something else (the proxy's deadline): the
   * session then records nothing of this run, since none of it was sent.
   */
  signal?: AbortSignal;
}

export interface CompactResult {
  /** The compacted text (read-only; joined from outputParts when first read). */
  readonly output: string;
  /** The output as pieces, in order (parts.join('') is output): to write without joining them. */
  outputParts: readonly string[];
  changed: boolean;
  format: InputFormat;
  events: PipelineEvent[];
  /** Where the component list came from, and notes such as skipped preset members. */
  source: string;
  notes: string[];
  /** The session this run replayed and recorded under (explicit or derived), if any. */
  session?: string;
}

/** The session's replay with every pinned marker backed by the store (notes say what it took). */
async function backedReplay(
  session: Session,
  t: Transcript,
  store: Store,
  notes: string[],
  known?: (o: ToolOutput, pin: Pin, index: number) => boolean,
): Promise<Replay> {
  const backed = await backPins(t.outputs, session.replay.pins, store, known);
  if (backed.restashed > 0)
    notes.push(`session ${session.label}: ${backed.restashed} originals stashed again from the request`);
  if (backed.dropped > 0)
    notes.push(
      `session ${session.label}: ${backed.dropped} replayed outputs decided afresh (their markers cannot be backed)`,
    );
  return { ...session.replay, pins: backed.pins };
}

/** A loaded config as-is, a raw config object validated like a file, or the defaults. */
export function toConfig(c: CompactOptions['config']): CgConfig {
  if (!c) return defaultConfig();
  const store = (c as { store?: unknown }).store;
  if (store && typeof store === 'object' && 'hint' in store && 'ttlDays' in store) return c as CgConfig;
  return parseConfigObject(c);
}

/** What deciding a transcript came to; the session is saved by the caller once the output is written. */
export interface Decided {
  rewrites: Map<string, string>;
  /** The rewrites by output index (PipelineResult.rewrittenAt). */
  rewrittenAt: (string | undefined)[];
  edits: StructuralEdit[];
  events: PipelineEvent[];
  source: string;
  notes: string[];
  session?: Session;
  save(): Promise<void>;
}

/** The pipeline over one transcript, with the session's replay around it (every door shares this). */
export async function decide(
  transcript: Transcript,
  options: CompactOptions,
  carried: Pick<SessionOptions, 'kept' | 'hashOf'> & {
    backed?: (o: ToolOutput, pin: Pin, index: number) => boolean;
  } = {},
): Promise<Decided> {
  const config = toConfig(options.config);
  const components = Array.isArray(options.components) ? options.components.join(',') : options.components;
  const { stages, source, notes } = resolveStages(
    {
      ...(options.preset !== undefined ? { preset: options.preset } : {}),
      ...(components !== undefined ? { components: components as string } : {}),
    },
    config,
    transcript.format,
  );
  // Sessions only where there is something to replay (a request body) or state to keep (a model's
  // result), and a store for the markers.
  const session =
    options.session && options.store && (transcript.format !== 'text' || keepsState(stages))
      ? await openSession(transcript, stages, {
          ...options.session,
          ...(carried.kept ? { kept: carried.kept } : {}),
          ...(carried.hashOf ? { hashOf: carried.hashOf } : {}),
        })
      : undefined;
  // A replayed marker must still expand: its original is stashed again from the request, or the
  // output is decided afresh.
  const replay =
    session && options.store
      ? await backedReplay(session, transcript, options.store, notes, carried.backed)
      : undefined;
  if (session && transcript.format !== 'text')
    notes.push(`session ${session.label}: ${replay?.pins.size ?? 0} outputs replayed as sent`);
  options.onPlan?.({
    format: transcript.format,
    source,
    notes,
    components: stages.map((s) => s.component.name),
  });
  const tokens = options.tokens ?? createTokens(options.tokenizer ?? config.tokenizer);
  const query = options.query ?? transcriptQuery(transcript);
  const model =
    options.model ??
    modelAccess(
      // A config object built by a library caller before the model section existed has none.
      config.model ?? MODEL_CONFIG_DEFAULTS,
      { format: transcript.format, ...(transcript.model !== undefined ? { model: transcript.model } : {}) },
      options.env ?? process.env,
    );
  const memo = session?.memo ?? runMemo();
  const { rewrites, rewrittenAt, events, edits, finals, gone } = await runPipeline(transcript, {
    stages,
    store: options.store,
    tokens,
    hintTemplate: config.store.hint,
    ...(query !== undefined ? { query } : {}),
    ...(options.lang !== undefined ? { lang: options.lang } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.filters ? { filters: options.filters } : {}),
    ...(replay ? { replay } : {}),
    model,
    memo,
    ...(hostLimit(options.host) ? { host: hostLimit(options.host)! } : {}),
  });
  return {
    rewrites,
    rewrittenAt,
    edits,
    events,
    source,
    notes,
    ...(session ? { session } : {}),
    async save() {
      if (!session || options.signal?.aborted) return;
      const failed = await session.save(rewrites, finals, gone);
      if (failed) notes.push(`session ${session.label}: record not saved (${failed})`);
    },
  };
}

export async function compactText(input: string, options: CompactOptions): Promise<CompactResult> {
  const transcript = readTranscript(input, options.format ?? 'auto', {
    ...(options.command !== undefined ? { command: options.command } : {}),
    ...(options.inputBytes !== undefined ? { bytes: options.inputBytes } : {}),
    ...(options.isError ? { isError: true } : {}),
  });
  const d = await decide(transcript, options);
  const changed = d.rewrites.size > 0 || d.edits.length > 0;
  // The pieces a body's writer would join: a caller that writes them out never holds the joined
  // copy (60 MB for a 60 MB body); `output` joins them only when asked.
  const parts = !changed
    ? [input]
    : (transcript.writeParts?.(d.rewrites, d.edits) ?? [transcript.write(d.rewrites, d.edits)]);
  await d.save();
  let joined = parts.length === 1 ? parts[0] : undefined;
  return {
    get output() {
      joined ??= parts.join('');
      return joined;
    },
    outputParts: parts,
    changed,
    format: transcript.format,
    events: d.events,
    source: d.source,
    notes: d.notes,
    // Raw text's record only holds component state: it is no session a user named or would look up.
    ...(d.session && transcript.format !== 'text' ? { session: d.session.label } : {}),
  };
}
