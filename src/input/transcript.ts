/**
 * The Transcript: what every input format is read into and written back from. A reader finds each
 * tool output in the input, normalised to a ToolOutput; the writer puts rewritten texts back in
 * place, leaving every other byte of the input exactly as it was.
 */
import type { InputFormat, MessageView, StructuralEdit, ToolOutput } from '../component.js';

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
  /**
   * The exact input text of messages [from, to) (from the first's opening brace to the last's
   * closing one), for formats whose messages are a JSON list; undefined for a range it cannot give.
   */
  messageSpan?(from: number, to: number): string | undefined;
}

export type FormatChoice = 'auto' | InputFormat;
export const FORMAT_CHOICES: readonly FormatChoice[] = ['auto', 'text', 'openai', 'anthropic', 'responses'];

export interface ReadOptions {
  /** What produced raw text (`--command`); also a fallback command for nothing else. */
  command?: string;
  /** A path the raw text was read from, if known. */
  path?: string;
  /** The raw input's UTF-8 bytes, when the caller has them (handed on to a text output). */
  bytes?: Uint8Array;
}
