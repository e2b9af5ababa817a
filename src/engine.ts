/**
 * The engine shared by the CLI and the library API: text in → transcript → pipeline → text out.
 * It knows nothing of stdin, stdout or exit codes; byte-level gates (binary input, CG_DISABLE,
 * redirected output) belong to the callers that see bytes. With a session, a request body's tool
 * outputs already sent in earlier turns are replayed as sent (src/session), and what this run sent
 * is recorded for the next turn.
 */

import { isUtf8 } from 'node:buffer';
import { type CgConfig, defaultConfig, parseConfigObject } from './config.js';
import type { FilterSource } from './dsl/types.js';
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
import { carryTurn } from './session/turn-carry.js';
import { placeRead, readTurn } from './session/turn-read.js';
import { breakpointsOf } from './session/turn-write.js';
import type { TurnMemory } from './session/turns.js';
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
   * Aborted when the caller stopped waiting and sent something else (the proxy's deadline): the
   * session then records nothing of this run, since none of it was sent.
   */
  signal?: AbortSignal;
}

export interface CompactResult {
  output: string;
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
  known?: (o: ToolOutput, pin: Pin) => boolean,
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
interface Decided {
  rewrites: Map<string, string>;
  edits: StructuralEdit[];
  events: PipelineEvent[];
  source: string;
  notes: string[];
  session?: Session;
  save(): Promise<void>;
}

/** The pipeline over one transcript, with the session's replay around it (every door shares this). */
async function decide(
  transcript: Transcript,
  options: CompactOptions,
  carried: Pick<SessionOptions, 'kept' | 'hashOf'> & { backed?: (o: ToolOutput, pin: Pin) => boolean } = {},
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
  const { rewrites, events, edits, finals, gone } = await runPipeline(transcript, {
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
  });
  return {
    rewrites,
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
  });
  const d = await decide(transcript, options);
  const changed = d.rewrites.size > 0 || d.edits.length > 0;
  const output = changed ? transcript.write(d.rewrites, d.edits) : input;
  await d.save();
  return {
    output,
    changed,
    format: transcript.format,
    events: d.events,
    source: d.source,
    notes: d.notes,
    // Raw text's record only holds component state: it is no session a user named or would look up.
    ...(d.session && transcript.format !== 'text' ? { session: d.session.label } : {}),
  };
}

/** How long a long-lived caller trusts that replayed markers are still backed, without asking. */
const BACKED_FOR_MS = 3_600_000;

export interface BodyOptions extends CompactOptions {
  format: Exclude<InputFormat, 'text'>;
  /**
   * A long-lived caller's memory of each session's last turn (src/session/turns.ts): with an
   * explicit session id, a turn reads and writes only what changed since (the proxy).
   */
  turns?: TurnMemory;
}

export interface BodyResult extends Omit<CompactResult, 'output'> {
  body: Buffer;
}

/**
 * A request body as bytes, in and out: compactText for a caller that holds bytes (the proxy), and,
 * given its memory of the session's last turn, at the cost of what is new since — the same bytes a
 * full read would give.
 */
export async function compactBody(bytes: Buffer, options: BodyOptions): Promise<BodyResult> {
  const id = options.session
    ? (options.session.id ?? ((options.session.env ?? process.env).CG_SESSION || undefined))
    : undefined;
  const memory =
    id && options.turns && options.store && options.session
      ? options.turns.of(`${options.session.dir ?? ''}\u0000${id}`)
      : undefined;
  const previous = memory?.carry;
  // What the store says of removals now: the pins of the last turn's outputs, all backed then, are
  // backed still while it says none happened since (and for an hour at most).
  const removedAt = await options.store?.removedAt?.().catch(() => undefined);
  // Byte offsets are placed by walking UTF-8 (placed.ts): a body that is not is read the plain way.
  const placeable = isUtf8(bytes);
  let read = previous && placeable ? readTurn(previous, bytes) : undefined;
  let transcript: Transcript;
  if (read) transcript = read.transcript;
  else {
    // The text is kept only for the write() of a body that cannot be placed.
    const text = bytes.toString('utf8');
    transcript = readTranscript(text, options.format, {});
    read = placeable ? placeRead(transcript, text, bytes) : undefined;
    if (!read) {
      const d = await decide(transcript, options);
      const changed = d.rewrites.size > 0 || d.edits.length > 0;
      const body = changed ? Buffer.from(transcript.write(d.rewrites, d.edits), 'utf8') : bytes;
      await d.save();
      return bodyResult(body, changed, transcript, d);
    }
  }
  const now = Date.now();
  const trusted =
    previous !== undefined &&
    options.store?.removedAt !== undefined &&
    removedAt === previous.removedAt &&
    now - previous.backedAt < BACKED_FOR_MS;
  const d = await decide(transcript, options, {
    ...(memory ? { kept: memory.kept } : {}),
    hashOf: read.hashOf,
    ...(trusted ? { backed: (o: ToolOutput, pin: Pin) => previous.rewrites.get(o.id) === pin.text } : {}),
  });
  if (read.kept > 0)
    d.notes.push(
      `session ${d.session?.label ?? id}: ${read.kept} of ${transcript.messages.length} messages as in the last turn, not read again`,
    );
  const changed = d.rewrites.size > 0 || d.edits.length > 0;
  const written = read.write(d.rewrites, d.edits);
  const body = !changed ? bytes : written ? written.body : Buffer.from(transcript.write(d.rewrites, d.edits));
  await d.save();
  // An aborted turn (the proxy's deadline passed and the original went on) leaves the memory alone:
  // a later turn of the session may already be running on it.
  if (memory && !options.signal?.aborted) {
    if (written) {
      memory.carry = carryTurn(
        {
          placed: read.placed,
          transcript,
          hashes: d.session?.hashes ?? new Map(),
          ...(d.session ? { sentText: d.session.sentText } : {}),
          written: changed ? written : { ...written, body: bytes },
          rewrites: d.rewrites,
          breakpoints: breakpointsOf(d.edits) ?? new Set(),
          ...(removedAt !== undefined ? { removedAt } : {}),
          backedAt: trusted ? previous.backedAt : now,
        },
        previous && read.kept > 0 ? { carry: previous, kept: read.kept } : undefined,
      );
      options.turns!.settle();
    } else memory.carry = undefined;
  }
  return bodyResult(body, changed, transcript, d);
}

function bodyResult(body: Buffer, changed: boolean, t: Transcript, d: Decided): BodyResult {
  return {
    body,
    changed,
    format: t.format,
    events: d.events,
    source: d.source,
    notes: d.notes,
    ...(d.session ? { session: d.session.label } : {}),
  };
}
