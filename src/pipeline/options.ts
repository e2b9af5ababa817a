/**
 * What a pipeline run takes and gives back: the stages (components with their validated configs),
 * the store, the token counter, the context for components (query, filters, model, memo), a
 * session's replay; and the rewrites, events, structural edits and session facts it returns.
 */
import type { Component } from '../component.js';
import type { FilterSource } from '../dsl/types.js';
import type { HostLimit } from '../hosts/limits.js';
import type { StructuralEdit } from '../input/transcript.js';
import type { ModelAccess } from '../llm/access.js';
import type { SessionMemo } from '../session/memo.js';
import type { Store } from '../store/store.js';
import type { Tokens } from '../tokens.js';
import type { PipelineEvent } from './event.js';
import type { Pin } from './slots.js';

export interface Stage {
  component: Component;
  config: unknown;
}

export interface PipelineOptions {
  stages: readonly Stage[];
  /** null: lossless components only (--no-store, or a store that cannot be opened). */
  store: Store | null;
  tokens: Tokens;
  /** Hint template after the marker; {key} and {args} are filled in. */
  hintTemplate?: string;
  query?: string;
  lang?: string;
  filters?: FilterSource;
  /** Per-component deadline for asynchronous work. */
  timeoutMs?: number;
  /** Called once per decision, for --verbose. */
  onEvent?: (e: PipelineEvent) => void;
  /** What earlier runs of the same session sent, to be replayed byte for byte. */
  replay?: Replay;
  /** The model for model-assisted strategies, or why there is none. */
  model?: ModelAccess;
  /** Per-session state for components (a model's result, a summary checkpoint). */
  memo?: SessionMemo;
  /**
   * The agent host the outputs go to (src/hosts/limits.ts): no shell output is handed on with more
   * tokens than the host would have shown of it (host-cap.ts).
   */
  host?: HostLimit;
}

export interface Replay {
  /** Output id → what was sent for it (only outputs whose original is unchanged). */
  pins: ReadonlyMap<string, Pin>;
  /** Held-back rewrites of pinned outputs apply once they save this many tokens together. */
  flushTokens: number;
  /**
   * keyOf of each output's original, by its index in the transcript's outputs, where the session
   * hashed it this run (it keys its record by them): a marker then needs no second hash of it.
   */
  keyAt?: readonly (string | undefined)[];
}

export interface PipelineResult {
  /** Output id → final text, only for outputs that changed. */
  rewrites: Map<string, string>;
  /**
   * Each output's final text where it changed, by its index in the transcript's outputs (parallel
   * to them): what rewrites holds, for a caller that walks outputs in order (of two outputs sharing
   * an id, rewrites keeps the last one's text, this each one's own).
   */
  rewrittenAt: (string | undefined)[];
  events: PipelineEvent[];
  /** Validated structural edits for the writer (e.g. a cache breakpoint). */
  edits: StructuralEdit[];
  /** Ids whose text is now a placeholder from a transcript-scope component (pinned finals included). */
  finals: Set<string>;
  /** Ids of outputs whose messages were replaced (by a summary): not sent at all. */
  gone: Set<string>;
}
