/**
 * Shared by the JSON readers: collects tool outputs together with the JSON string node that holds
 * each one's text, keeps output ids unique, and builds a Transcript whose write() splices
 * JSON.stringify(newText) into exactly those string spans and nothing else.
 */

import {
  applyEdits,
  type Edit,
  editedParts,
  type JsonNode,
  type JsonObject,
  type JsonString,
  member,
  stringOf,
} from '../json/spans.js';
import type { CallInfo } from './call-args.js';
import { replacementMessage } from './message-replace.js';
import { reportsFailure } from './tool-error.js';
import type {
  BodyLayout,
  InputFormat,
  MessageView,
  ReadOptions,
  StructuralEdit,
  ToolOutput,
  Transcript,
} from './transcript.js';

// An unpaired UTF-16 surrogate is what invalid UTF-8 becomes once inside a JSON string. The
// look-around pattern is slow on megabytes of text, so a plain class screens for surrogates first.
const SURROGATE = /[\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a JSON string holds well-formed text (no lone surrogate: the remains of invalid UTF-8). */
export function isWellFormed(text: string): boolean {
  return !(SURROGATE.test(text) && LONE_SURROGATE.test(text));
}

/**
 * The string nodes holding a content's text: the content itself when it is a string, else the
 * `text` of each part whose type is in `types` (other parts, such as images, are not text).
 */
export function textParts(content: JsonNode | undefined, types: ReadonlySet<string>): JsonString[] {
  if (content?.type === 'string') return [content];
  if (content?.type !== 'array') return [];
  const parts: JsonString[] = [];
  for (const part of content.items) {
    const text = member(part, 'text');
    const type = stringOf(member(part, 'type'));
    if (type !== undefined && types.has(type) && text?.type === 'string') parts.push(text);
  }
  return parts;
}

/** The messages of a chat request: its `messages` array, or the body itself when it is a bare array. */
export function messageList(root: JsonNode): JsonNode[] | undefined {
  const list = root.type === 'array' ? root : member(root, 'messages');
  return list?.type === 'array' ? list.items : undefined;
}

export interface ResultFields {
  messageIndex: number;
  /** The format's error flag (Anthropic is_error); absent where there is none, inferred from the text. */
  isError?: boolean;
  call: CallInfo | undefined;
}

/** Inserted after the last member of a content block: the breakpoint Anthropic's prompt cache reads. */
export const CACHE_BREAKPOINT = ',"cache_control":{"type":"ephemeral"}';

export class TranscriptBuilder {
  readonly outputs: ToolOutput[] = [];
  readonly messages: MessageView[] = [];
  /** Message index → its last content block, where a cache breakpoint can be inserted. */
  readonly lastBlocks = new Map<number, JsonObject>();
  /** Per message: blocks carrying cache_control (Anthropic fills it; absent means none). */
  readonly breakpoints: number[] = [];
  private readonly nodes = new Map<string, JsonString>();

  constructor(private readonly opts: ReadOptions) {}

  /** First free id among base, base~2, base~3… (a repeated tool_call_id keeps both outputs apart). */
  private unique(base: string): string {
    if (!this.nodes.has(base)) return base;
    for (let n = 2; ; n++) {
      const id = `${base}~${n}`;
      if (!this.nodes.has(id)) return id;
    }
  }

  /**
   * Adds the text parts of one tool result: the first as `id`, further ones as `id#1`, `id#2`…
   * Returns the texts, for the message view.
   */
  addResult(baseId: string, parts: readonly JsonString[], fields: ResultFields): string[] {
    const { call } = fields;
    // ReadOptions fill in only for an output nothing else describes.
    const command = call ? call.command : this.opts.command;
    const path = call ? call.path : this.opts.path;
    let first = '';
    parts.forEach((node, k) => {
      const id = k === 0 ? this.unique(baseId) : this.unique(`${first}#${k}`);
      if (k === 0) first = id;
      const o: ToolOutput = {
        id,
        text: node.value,
        rewritable: isWellFormed(node.value),
        isError: fields.isError ?? reportsFailure(node.value),
        messageIndex: fields.messageIndex,
      };
      if (call?.name !== undefined) o.toolName = call.name;
      if (command !== undefined) o.command = command;
      if (path !== undefined) o.path = path;
      this.outputs.push(o);
      this.nodes.set(id, node);
    });
    return parts.map((p) => p.value);
  }

  /**
   * `items` are the JSON nodes of the message list, one per message view, when the format has one:
   * they give messageSpan() and let a span of messages be replaced. The transcript keeps only the
   * spans it writes into, never a node: the span tree (several times the body's size) is let go of
   * once the body is read.
   */
  build(
    format: InputFormat,
    raw: string,
    model: string | undefined,
    items?: readonly JsonNode[],
  ): Transcript {
    const { nodes, lastBlocks } = this;
    const layout: BodyLayout = {
      messages: (items ?? []).map((n) => ({ start: n.start, end: n.end })),
      outputs: this.outputs.map((o) => {
        const n = nodes.get(o.id)!;
        return { start: n.start, end: n.end };
      }),
      breakpointAt: this.messages.map((_, i) => {
        const block = lastBlocks.get(i);
        const last = block?.members[block.members.length - 1];
        return last === undefined || member(block, 'cache_control') !== undefined ? -1 : last.value.end;
      }),
      breakpoints: this.messages.map((_, i) => this.breakpoints[i] ?? 0),
    };
    return spannedTranscript(format, raw, model, this.outputs, this.messages, layout, items !== undefined);
  }
}

/**
 * A body's transcript over the spans of its parts: write() splices JSON.stringify(newText) into
 * the outputs' string spans, a cache breakpoint after a message's last block member, a summary over
 * a span of messages, and leaves every other character of raw as it was.
 */
function spannedTranscript(
  format: InputFormat,
  raw: string,
  model: string | undefined,
  outputs: ToolOutput[],
  messages: MessageView[],
  layout: BodyLayout,
  listed: boolean,
): Transcript {
  const texts = new Map(outputs.map((o) => [o.id, o.text]));
  const spans = new Map(outputs.map((o, i) => [o.id, layout.outputs[i]!]));
  const spanOf = (from: number, to: number): { start: number; end: number } | undefined => {
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to <= from) return undefined;
    const first = layout.messages[from];
    const last = layout.messages[to - 1];
    return first && last ? { start: first.start, end: last.end } : undefined;
  };
  /** The splices write() makes of raw; a RangeError names an edit the body cannot take. */
  const editsOf = (rewrites: ReadonlyMap<string, string>, structural: readonly StructuralEdit[]): Edit[] => {
    const edits: Edit[] = [];
    // A replaced span takes every change inside it with it.
    const replaced: { start: number; end: number }[] = [];
    for (const e of structural) {
      if (e.kind !== 'replace_messages') continue;
      const span = spanOf(e.from, e.to);
      if (!span) throw new RangeError(`messages ${e.from}..${e.to} cannot be replaced`);
      replaced.push(span);
      edits.push({ ...span, text: replacementMessage(e.text, format) });
    }
    const gone = (start: number) => replaced.some((r) => start >= r.start && start < r.end);
    const breakpoints = structural.filter((e) => e.kind === 'cache_breakpoint');
    for (const e of new Map(breakpoints.map((s) => [s.messageIndex, s])).values()) {
      const at = Number.isInteger(e.messageIndex) ? layout.breakpointAt[e.messageIndex] : undefined;
      if (at === undefined || at < 0)
        throw new RangeError(`message ${e.messageIndex} cannot take a cache breakpoint`);
      if (!gone(at)) edits.push({ start: at, end: at, text: CACHE_BREAKPOINT });
    }
    for (const [id, text] of rewrites) {
      const span = spans.get(id);
      if (span === undefined) throw new RangeError(`no tool output with id ${JSON.stringify(id)}`);
      // An unchanged text keeps its original bytes (its escapes may differ from JSON.stringify's).
      if (text !== texts.get(id) && !gone(span.start))
        edits.push({ start: span.start, end: span.end, text: JSON.stringify(text) });
    }
    return edits;
  };
  const write = (
    rewrites: ReadonlyMap<string, string>,
    structural: readonly StructuralEdit[] = [],
  ): string => {
    if (rewrites.size === 0 && structural.length === 0) return raw;
    return applyEdits(raw, editsOf(rewrites, structural));
  };
  const writeParts = (
    rewrites: ReadonlyMap<string, string>,
    structural: readonly StructuralEdit[] = [],
  ): string[] => {
    if (rewrites.size === 0 && structural.length === 0) return [raw];
    return editedParts(raw, editsOf(rewrites, structural));
  };
  // What write() makes of one message, from the very splices it would make: undefined when any
  // of them falls outside that message (or cannot be made). A check of one message's edit (the
  // pipeline's proof that a cache breakpoint is lossless) then never writes the whole body.
  const writeMessage = (index: number, structural: readonly StructuralEdit[]): string | undefined => {
    const m = Number.isInteger(index) ? layout.messages[index] : undefined;
    if (!m) return undefined;
    let edits: Edit[];
    try {
      edits = editsOf(new Map(), structural);
    } catch {
      return undefined;
    }
    if (edits.some((e) => e.start < m.start || e.end > m.end)) return undefined;
    const inside = edits.map((e) => ({ ...e, start: e.start - m.start, end: e.end - m.start }));
    return applyEdits(raw.slice(m.start, m.end), inside);
  };
  const t: Transcript = {
    format,
    outputs,
    messages,
    write,
    writeParts,
    messageSpan(from, to) {
      const span = spanOf(from, to);
      return span ? raw.slice(span.start, span.end) : undefined;
    },
    messageRange: spanOf,
    ...(listed ? { layout: () => layout, writeMessage } : {}),
  };
  if (model !== undefined) t.model = model;
  return t;
}
