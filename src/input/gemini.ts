/**
 * Gemini API request bodies (generateContent / streamGenerateContent: {contents, systemInstruction,
 * tools, generationConfig}; the model is in the URL, not the body). Each element of `contents` is a
 * message {role: "user" | "model", parts: [...]}; a part holds `text`, a `functionCall` {id?, name,
 * args} or a `functionResponse` {id?, name, response}. Tool outputs are the strings of a
 * functionResponse's `response` that Gemini CLI fills (seen in 0.61.0): `output` (a shell command's
 * `Output: …` with `Exit Code: N` after it, a file's text), `error` (the tool failed: isError), or
 * the text parts of an MCP tool's `content` list. The call the response answers is the functionCall
 * with the same id, else the latest one of the same name; it gives toolName, command and path.
 * A response without an error flag is an error when its tail reports a non-zero exit code or a
 * signal (Gemini CLI writes them after the output, not before it as Codex does).
 *
 * Message views are one per element of `contents` ("model" is shown as "assistant"), so
 * ToolOutput.messageIndex indexes them; `systemInstruction` is not a message (Transcript.system).
 */

import { type JsonNode, type JsonString, member, stringOf, toValue } from '../json/spans.js';
import { TranscriptBuilder, textParts } from './builder.js';
import { type CallInfo, detailsFromObject, renderCall } from './call-args.js';
import type { MessageView, ReadOptions, Transcript } from './transcript.js';

/** How far from the end the status lines Gemini CLI appends to a shell output reach. */
const TAIL_CHARS = 512;
const EXIT_LINE = /^Exit Code: (-?\d+)\s*$/m;
const SIGNAL_LINE = /^Signal: (?!\(none\))\S/m;
const TEXT: ReadonlySet<string> = new Set(['text']);

/** Whether a Gemini CLI tool output's tail says the command failed. */
export function geminiReportsFailure(text: string): boolean {
  const tail = text.slice(-TAIL_CHARS);
  const exit = EXIT_LINE.exec(tail);
  if (exit && Number(exit[1]) !== 0) return true;
  return SIGNAL_LINE.test(tail);
}

/** The `contents` list of a body, or undefined when it has none. */
export function geminiContents(root: JsonNode): JsonNode[] | undefined {
  const list = member(root, 'contents');
  return list?.type === 'array' ? list.items : undefined;
}

/** The strings of a functionResponse's `response` that hold its output, and whether it failed. */
function responseTexts(response: JsonNode | undefined): { parts: JsonString[]; error: boolean } {
  const error = member(response, 'error');
  if (error?.type === 'string') return { parts: [error], error: true };
  const output = member(response, 'output');
  if (output?.type === 'string') return { parts: [output], error: error !== undefined };
  return { parts: textParts(member(response, 'content'), TEXT), error: error !== undefined };
}

function systemText(node: JsonNode | undefined): string | undefined {
  if (node?.type === 'string') return node.value;
  const parts = member(node, 'parts');
  if (parts?.type !== 'array') return undefined;
  return parts.items.map((p) => stringOf(member(p, 'text')) ?? '').join('\n');
}

export function readGemini(raw: string, root: JsonNode, opts: ReadOptions): Transcript {
  const b = new TranscriptBuilder(opts);
  const byId = new Map<string, CallInfo>();
  const byName = new Map<string, CallInfo>();
  const items = geminiContents(root) ?? [];
  items.forEach((content, messageIndex) => {
    const role = stringOf(member(content, 'role')) ?? 'user';
    const parts = member(content, 'parts');
    const pieces: string[] = [];
    let answers = false;
    for (const part of parts?.type === 'array' ? parts.items : []) {
      const text = stringOf(member(part, 'text'));
      if (text !== undefined) pieces.push(text);
      const fc = member(part, 'functionCall');
      if (fc?.type === 'object') {
        const args = member(fc, 'args');
        const call: CallInfo = args ? detailsFromObject(toValue(args)) : {};
        const name = stringOf(member(fc, 'name'));
        if (name !== undefined) {
          call.name = name;
          byName.set(name, call);
        }
        const id = stringOf(member(fc, 'id'));
        if (id !== undefined) byId.set(id, call);
        pieces.push(renderCall('functionCall', call));
      }
      const fr = member(part, 'functionResponse');
      if (fr?.type === 'object') {
        answers = true;
        const id = stringOf(member(fr, 'id'));
        const name = stringOf(member(fr, 'name'));
        const call = (id !== undefined ? byId.get(id) : undefined) ?? (name ? byName.get(name) : undefined);
        const { parts: texts, error } = responseTexts(member(fr, 'response'));
        const failed = error || texts.some((t) => geminiReportsFailure(t.value));
        const base = id ?? `functionResponse@${messageIndex}`;
        pieces.push(...b.addResult(base, texts, { messageIndex, isError: failed, call }));
      }
    }
    const view: MessageView = { role: role === 'model' ? 'assistant' : role, text: pieces.join('\n') };
    // A functionResponse must follow the functionCall it answers.
    if (answers) view.boundToPrevious = true;
    b.messages.push(view);
  });
  const t = b.build('gemini', raw, undefined, items);
  const system = systemText(member(root, 'systemInstruction') ?? member(root, 'system_instruction'));
  if (system !== undefined) t.system = system;
  return t;
}
