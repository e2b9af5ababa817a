/**
 * The transcript model: what every input format is read into and written back from. A reader finds
 * each tool output in the input, normalised to a ToolOutput, and reduces each message to a
 * MessageView; the writer puts rewritten texts back in place and applies structural edits, leaving
 * every other byte of the input exactly as it was. These types belong to the input layer: the
 * component contract (src/component.ts) and the pipeline build on them, never the other way round.
 */

export type InputFormat = 'text' | 'openai' | 'anthropic' | 'responses' | 'gemini';

/** One tool output as every component sees it, whatever the input format. */
export interface ToolOutput {
  /** Stable id within the transcript (tool_call_id / tool_use_id, "#n" suffixed for extra blocks). */
  id: string;
  text: string;
  /** False for content that is not well-formed text (invalid UTF-8): cg never rewrites it. */
  rewritable: boolean;
  /**
   * The tool reported a failure: the format's flag (Anthropic is_error), or, where the format has
   * none, a non-zero exit code in the text (Codex). What may happen to it is the pipeline's call.
   */
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

export interface Transcript {
  format: InputFormat;
  /** Every tool output in document order. Ids are unique within the transcript. */
  outputs: ToolOutput[];
  /** Every message in order, reduced to role + plain text (tool outputs included as their text). */
  messages: MessageView[];
  /** The request's model, when the body names one. */
  model?: string;
  /** The system prompt or instructions outside `messages` (Anthropic `system`, Responses `instructions`). */
  system?: string;
  /** Cache breakpoints (cache_control) already in the body (Anthropic). */
  cacheBreakpoints?: number;
  /**
   * The input with the given outputs' texts replaced (id → new text) and the structural edits
   * applied. With nothing to change it returns the input string itself, byte for byte. An edit the
   * format cannot express throws a RangeError (the pipeline validates edits before they get here).
   */
  write(rewrites: ReadonlyMap<string, string>, edits?: readonly StructuralEdit[]): string;
  /** write()'s text as the pieces it would join, in order, for a caller that writes them out. */
  writeParts?(rewrites: ReadonlyMap<string, string>, edits?: readonly StructuralEdit[]): string[];
  /**
   * The exact input text of messages [from, to) (from the first's opening brace to the last's
   * closing one), for formats whose messages are a JSON list; undefined for a range it cannot give.
   */
  messageSpan?(from: number, to: number): string | undefined;
  /** Where messageSpan(from, to) lies in the input: UTF-16 offsets [start, end). */
  messageRange?(from: number, to: number): { start: number; end: number } | undefined;
  /**
   * What write(rewrites, edits) makes of message `index` alone, for a transcript whose writer
   * changes each message's bytes only from within that message (one replayed from an earlier turn,
   * src/session): checks of one message need not write the whole body.
   */
  writeMessage?(index: number, edits: readonly StructuralEdit[]): string | undefined;
  /** Where its parts lie in the input (JSON formats whose messages are one list). */
  layout?(): BodyLayout;
}

/** A span of the input: UTF-16 offsets [start, end). */
export interface InputSpan {
  start: number;
  end: number;
}

/**
 * Where a request body's parts lie in its input, for a caller that reuses the unchanged prefix of a
 * conversation's body from one turn to the next (src/proxy/turn/).
 */
export interface BodyLayout {
  /** Each message's JSON value; parallel to Transcript.messages. */
  messages: readonly InputSpan[];
  /** Each output's JSON string; parallel to Transcript.outputs. */
  outputs: readonly InputSpan[];
  /** Per message: where write() inserts a cache breakpoint, or -1 where it cannot. */
  breakpointAt: readonly number[];
  /** Per message: its blocks that carry cache_control, as cacheBreakpoints counts them. */
  breakpoints: readonly number[];
}

export type FormatChoice = 'auto' | InputFormat;
export const FORMAT_CHOICES: readonly FormatChoice[] = [
  'auto',
  'text',
  'openai',
  'anthropic',
  'responses',
  'gemini',
];

export interface ReadOptions {
  /** What produced raw text (`--command`); also a fallback command for nothing else. */
  command?: string;
  /** A path the raw text was read from, if known. */
  path?: string;
  /** The raw input's UTF-8 bytes, when the caller has them (handed on to a text output). */
  bytes?: Uint8Array;
  /** Raw text that is a failing run's output (a hook that knows the exit code): the tool-error gates apply. */
  isError?: boolean;
}
