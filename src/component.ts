/**
 * The Component contract (types only). A component is a small pure function plus its config: it
 * looks at one tool output (scope 'output') or at all tool outputs of a transcript (scope
 * 'transcript') and returns outcomes. It never writes to the store, never counts the final marker,
 * and never decides whether a rewrite is kept: the pipeline owns every gate (DESIGN §1,
 * src/pipeline/gates.ts). An output component is only ever called on outputs the gates let it
 * change; a transcript component sees every output, each saying whether it may change it, and an
 * outcome for one it may not is dropped. Neither sees the gates' inputs (error flags, whether the
 * text is well formed): deciding on them is the pipeline's job alone.
 */
import type { FilterSource } from './dsl/types.js';
import type { InputFormat, MessageView, StructuralEdit, ToolOutput } from './input/transcript.js';
import type { ModelAccess } from './llm/access.js';
import type { SessionMemo } from './session/memo.js';
import type { Tokens } from './tokens.js';

// The types a component's signature mentions, defined where they belong (the transcript model in
// input/, the model in llm/, session state in session/, filters in dsl/), so a component needs one
// import for its whole contract.
export type { FilterSource, InputFormat, MessageView, ModelAccess, SessionMemo, StructuralEdit, ToolOutput };

/** What a rewrite dropped: nothing, one clean contiguous tail, or anything else. */
export type Loss = 'none' | 'tail' | 'whole';

export type Outcome =
  | { kind: 'skip'; gate: string }
  | {
      kind: 'rewrite';
      /** The new text. A lossy rewrite may contain MARKER_SLOT once, where marker + hint belong. */
      text: string;
      loss: Loss;
      /** Short human note for --verbose / --explain, e.g. "kept 41 of 200000 lines". */
      note?: string;
      /** Extra arguments for the expand hint, e.g. "--lines 120-" for a tail cut. */
      expandArgs?: string;
      /**
       * The rewrite is shaped to be read as it is (a filter's rewrite within cmdfilter's max_tokens):
       * no later lossy stage of the run may shorten it, even a declarative filter's.
       */
      final?: true;
      /**
       * For loss 'none': the check that proves the rewrite says the same as its input. The pipeline
       * runs it and reverts what it cannot prove; a lossless rewrite without one is reverted.
       */
      proof?: LosslessProof;
    };

/**
 * How a lossless rewrite is proven (src/pipeline/lossless.ts): 'json' — only whole JSON documents
 * changed, each to text with the same tokens (whitespace aside); 'toon' — the whole output is a
 * JSON document and the rewrite is TOON that decodes back to the same value.
 */
export type LosslessProof = 'json' | 'toon';

/** A tool output as a component acts on it: the gates' inputs (isError, rewritable) stay with the pipeline. */
export type OutputView = Omit<ToolOutput, 'isError' | 'rewritable'>;

/** What a transcript component gets for each tool output: the output, and whether the gates let it change it. */
export interface Candidate extends OutputView {
  mayChange: boolean;
  /**
   * A placeholder cg sent for it in an earlier turn (masked, deduplicated, superseded): its text is
   * that placeholder for good. It holds no output of its own — no run, no copy of another — and
   * counts only by its place among the outputs.
   */
  settled?: true;
}

/**
 * Placeholder a lossy component puts where the pipeline must write `<<cg:KEY>>` + hint. NUL never
 * occurs in a rewritable output (binary content is gated out), so it cannot collide with real text.
 * Without it, the pipeline appends the marker on a line of its own.
 */
export const MARKER_SLOT = '\u0000cg:marker\u0000';

/**
 * A replacement of messages as a component proposes it: the pipeline judges it (structure, markers,
 * tokens) like any edit, and the component says only what follows from the verdict.
 */
export type ReplaceProposal = Extract<StructuralEdit, { kind: 'replace_messages' }> & {
  /** Written to the session memo (ctx.memo) once the pipeline finds the replacement acceptable. */
  remember?: { key: string; value: string };
  /** Proposed in its place when the pipeline refuses it (a summary the component already had). */
  otherwise?: ReplaceProposal;
};

/** What edits() returns: edits to judge, or why there is none (reported under --verbose). */
export type EditProposal =
  | Exclude<StructuralEdit, { kind: 'replace_messages' }>
  | ReplaceProposal
  | { kind: 'skip'; gate: string };

export interface RunContext {
  tokens: Tokens;
  /** The filters available to this run (absent in contexts without filters, e.g. some tests). */
  filters?: FilterSource;
  /** The user's --query, or one built from the transcript. */
  query?: string;
  /** Source language hint (--lang). */
  lang?: string;
  format: InputFormat;
  messages: readonly MessageView[];
  /** The system prompt outside the messages (Anthropic `system`, Responses `instructions`). */
  system?: string;
  /** Cache breakpoints (cache_control) already in the body, when the format has them (Anthropic). */
  cacheBreakpoints?: number;
  /** The model for model-assisted strategies (extract code, summarize); absent in pure contexts. */
  model?: ModelAccess;
  /** State kept across the turns of a session. */
  memo?: SessionMemo;
}

export interface ComponentBase<C> {
  /** = file name = config key = stats label */
  name: string;
  /** The pipeline rejects loss ≠ 'none' from a lossless component. */
  lossy: boolean;
  /** One-line description for --help and the manual. */
  summary: string;
  defaults: C;
  /** Strict: unknown keys and bad values throw ConfigError with a path relative to the component. */
  parseConfig(raw: unknown): C;
  /**
   * With this config it keeps state across runs (ctx.memo), so a session is worth opening even with
   * no tool output to pin, or for raw text.
   */
  keepsSessionState?(cfg: C): boolean;
  /**
   * How long one run may take when that is longer than the pipeline's deadline (a model call), so
   * the component can still fall back on its own before the pipeline gives up on it.
   */
  deadlineMs?(cfg: C, ctx: RunContext): number;
}

export interface OutputComponent<C = unknown> extends ComponentBase<C> {
  scope: 'output';
  /** Cheap, sync, no heavy imports: may this component act on this output at all? */
  applies?(o: OutputView, cfg: C): boolean;
  run(o: OutputView, cfg: C, ctx: RunContext): Outcome | Promise<Outcome>;
  /**
   * It changes an output only by applying a declarative filter from ctx.filters (cmdfilter). On a
   * large tool error such a component is the only kind the gates let run, and ctx.filters then holds
   * only filters proven to keep every failure line.
   */
  usesFilters?: true;
  /**
   * How many outputs' runs may be in flight at once (default 1): worth more than one only for a
   * component that mostly waits (on a model). Outcomes are settled in document order regardless.
   */
  concurrency?(cfg: C): number;
}

export interface TranscriptComponent<C = unknown> extends ComponentBase<C> {
  scope: 'transcript';
  /**
   * Returns an outcome per output id it wants to change; absent ids are left alone. Every output of
   * the transcript is given (what an output is worth depends on the others), each with mayChange.
   */
  run(
    outputs: readonly Candidate[],
    cfg: C,
    ctx: RunContext,
  ): Map<string, Outcome> | Promise<Map<string, Outcome>>;
  /**
   * Structural edits to the body (a cache breakpoint, a span of messages replaced by a summary);
   * the pipeline validates them, and stashes what a replacement drops. It sees the outputs as read
   * (a summary keeps tool errors in view).
   */
  edits?(
    outputs: readonly ToolOutput[],
    cfg: C,
    ctx: RunContext,
  ): readonly EditProposal[] | Promise<readonly EditProposal[]>;
  /**
   * Its edits() reads the messages (ctx.messages) and never the outputs: it is given none (a long
   * session's views of tens of thousands of outputs are made for nothing otherwise).
   */
  editsFromMessages?: true;
  /**
   * In a replayed session, rewrites this component proposes for outputs already sent are held back
   * until together they save at least this many tokens, so old messages change in batches.
   */
  batchTokens?(cfg: C): number;
  /**
   * A promise: an output with fewer tokens than this it never rewrites, whatever the rest of the
   * transcript holds (Infinity: it rewrites none). The pipeline then need not show it a small
   * output sent in an earlier turn as one it may change (src/pipeline/settled.ts). Absent: no floor.
   */
  floorTokens?(cfg: C): number;
}

export type Component<C = unknown> = OutputComponent<C> | TranscriptComponent<C>;
