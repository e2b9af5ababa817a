/**
 * The Component contract (types only). A component is a small pure function plus its config: it
 * looks at one tool output (scope 'output') or at all tool outputs of a transcript (scope
 * 'transcript') and returns outcomes. It never writes to the store, never counts the final marker,
 * and never decides whether a rewrite is kept: the pipeline owns every gate (DESIGN §1).
 */
import type { CompiledFilter } from './dsl/types.js';
import type { Tokens } from './tokens.js';

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
    };

/**
 * Placeholder a lossy component puts where the pipeline must write `<<cg:KEY>>` + hint. NUL never
 * occurs in a rewritable output (binary content is gated out), so it cannot collide with real text.
 * Without it, the pipeline appends the marker on a line of its own.
 */
export const MARKER_SLOT = '\u0000cg:marker\u0000';

/** One tool output as every component sees it, whatever the input format. */
export interface ToolOutput {
  /** Stable id within the transcript (tool_call_id / tool_use_id, "#n" suffixed for extra blocks). */
  id: string;
  text: string;
  /** False for content that must stay verbatim (non-text, invalid UTF-8, cg expand output). */
  rewritable: boolean;
  isError: boolean;
  toolName?: string;
  /** The shell command that produced it, when known (a --command flag or the matching tool call). */
  command?: string;
  /** A file path the producing call read (e.g. Claude Code's Read input.file_path). */
  path?: string;
  /** Index of the message that holds this output. */
  messageIndex: number;
  /**
   * The text's UTF-8 bytes, when the reader has them for free (raw text from stdin), so stashing a
   * 100 MB original neither re-encodes nor copies it.
   */
  bytes?: Uint8Array;
}

/** A message reduced to what transcript-scope components need (role and plain text). */
export interface MessageView {
  role: string;
  text: string;
  /**
   * The last content block of a message whose content is a list of blocks (Anthropic only): where a
   * cache breakpoint can go. Absent for string content and for other formats.
   */
  lastBlock?: { type: string; cacheControl: boolean; empty: boolean };
  /**
   * This message cannot open a run of kept messages: it answers the one before it (a tool result
   * needs the call it answers; a Responses call needs its reasoning item), so a cut may not fall
   * just before it.
   */
  boundToPrevious?: true;
  /** An assistant message whose first block is (redacted) thinking (Anthropic extended thinking). */
  startsWithThinking?: true;
}

/**
 * A lossless edit to a request body's structure rather than to a tool output's text: the writer
 * applies it by span, leaving every other byte as it was.
 */
export type StructuralEdit =
  | {
      /** `cache_control: {type: "ephemeral"}` added to the last content block of a message. */
      kind: 'cache_breakpoint';
      messageIndex: number;
    }
  | {
      /**
       * Messages [from, to) replaced by one user message holding `text` (lossy: the pipeline stashes
       * the replaced span's exact bytes and writes its marker where the text has MARKER_SLOT).
       */
      kind: 'replace_messages';
      from: number;
      to: number;
      text: string;
      note?: string;
    };

/** What edits() returns: edits to judge, or why there is none (reported under --verbose). */
export type EditProposal = StructuralEdit | { kind: 'skip'; gate: string };

/** A model a component may ask, or why there is none (the component then degrades quietly). */
export type ModelAccess =
  | {
      available: true;
      /** Which model answers ("openai:gpt-4.1-mini"), for notes; never the key. */
      label: string;
      /** The longest one complete() can take, its retry included. */
      budgetMs: number;
      complete(req: {
        system: string;
        prompt: string;
        maxTokens?: number;
      }): Promise<{ ok: true; text: string } | { ok: false; reason: string }>;
    }
  | { available: false; reason: string };

/**
 * Small per-session state a component keeps between turns (a model's result for an output, a
 * summary checkpoint), saved with the session's record. Keys are namespaced by the component
 * ("extract:<hash>"). Without a session it lives for one run only.
 */
export interface SessionMemo {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
}

/** Finds the declarative filter for an output (see src/dsl/types.ts); loads filter files lazily. */
export interface FilterSource {
  /** `exclude`: filter names not to consider (cmdfilter's `disabled`); the next match wins instead. */
  select(
    command: string | undefined,
    text: string,
    options?: { exclude?: readonly string[] },
  ): Promise<CompiledFilter | undefined>;
}

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

export type InputFormat = 'text' | 'openai' | 'anthropic' | 'responses';

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
  applies?(o: ToolOutput, cfg: C): boolean;
  run(o: ToolOutput, cfg: C, ctx: RunContext): Outcome | Promise<Outcome>;
  /**
   * How many outputs' runs may be in flight at once (default 1): worth more than one only for a
   * component that mostly waits (on a model). Outcomes are settled in document order regardless.
   */
  concurrency?(cfg: C): number;
}

export interface TranscriptComponent<C = unknown> extends ComponentBase<C> {
  scope: 'transcript';
  /** Returns an outcome per output id it wants to change; absent ids are left alone. */
  run(
    outputs: readonly ToolOutput[],
    cfg: C,
    ctx: RunContext,
  ): Map<string, Outcome> | Promise<Map<string, Outcome>>;
  /**
   * Structural edits to the body (a cache breakpoint, a span of messages replaced by a summary);
   * the pipeline validates them, and stashes what a replacement drops.
   */
  edits?(
    outputs: readonly ToolOutput[],
    cfg: C,
    ctx: RunContext,
  ): readonly EditProposal[] | Promise<readonly EditProposal[]>;
  /**
   * In a replayed session, rewrites this component proposes for outputs already sent are held back
   * until together they save at least this many tokens, so old messages change in batches.
   */
  batchTokens?(cfg: C): number;
}

export type Component<C = unknown> = OutputComponent<C> | TranscriptComponent<C>;
