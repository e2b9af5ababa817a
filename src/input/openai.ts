/**
 * OpenAI Chat Completions request bodies ({model, messages, …}, or a bare messages array). Tool
 * outputs are role "tool" messages (string content is one output; array content gives one output
 * per {type: "text"} part, other parts untouched) and legacy role "function" messages. The assistant
 * tool_calls entry with the same id (or, for "function", the preceding function_call) gives
 * toolName and, from its JSON-string arguments, command and path. The format has no error flag:
 * isError is inferred from an exit-code line in the text (input/tool-error.ts).
 *
 * Message views are one per element of `messages`, so ToolOutput.messageIndex indexes them.
 */

import { type JsonNode, member, stringOf } from '../json/spans.js';
import { messageList, TranscriptBuilder, textParts } from './builder.js';
import { type CallInfo, detailsFromArguments, renderCall } from './call-args.js';
import type { ReadOptions, Transcript } from './transcript.js';

/** Chat Completions content parts that hold text. */
const TEXT: ReadonlySet<string> = new Set(['text']);

function callOf(fn: JsonNode | undefined): CallInfo {
  const call: CallInfo = detailsFromArguments(member(fn, 'arguments'));
  const name = stringOf(member(fn, 'name'));
  if (name !== undefined) call.name = name;
  return call;
}

export function readOpenAI(raw: string, root: JsonNode, opts: ReadOptions): Transcript {
  const b = new TranscriptBuilder(opts);
  const calls = new Map<string, CallInfo>();
  let lastFunctionCall: CallInfo | undefined;
  (messageList(root) ?? []).forEach((message, messageIndex) => {
    const role = stringOf(member(message, 'role')) ?? '';
    const parts = textParts(member(message, 'content'), TEXT);
    const pieces: string[] = [];
    if (role === 'tool') {
      const id = stringOf(member(message, 'tool_call_id'));
      const call = id === undefined ? undefined : calls.get(id);
      pieces.push(...b.addResult(id ?? `tool@${messageIndex}`, parts, { messageIndex, call }));
    } else if (role === 'function') {
      const name = stringOf(member(message, 'name'));
      let call = lastFunctionCall;
      if (call === undefined || (name !== undefined && call.name !== name))
        call = name ? { name } : undefined;
      pieces.push(...b.addResult(`function@${messageIndex}`, parts, { messageIndex, call }));
    } else {
      pieces.push(...parts.map((p) => p.value));
      const toolCalls = member(message, 'tool_calls');
      for (const tc of toolCalls?.type === 'array' ? toolCalls.items : []) {
        const call = callOf(member(tc, 'function'));
        const id = stringOf(member(tc, 'id'));
        // A repeated id pairs with the most recent call, the one its result answers.
        if (id !== undefined) calls.set(id, call);
        pieces.push(renderCall('tool_call', call));
      }
      const fc = member(message, 'function_call');
      if (fc?.type === 'object') {
        lastFunctionCall = callOf(fc);
        pieces.push(renderCall('function_call', lastFunctionCall));
      }
    }
    const answers = role === 'tool' || role === 'function';
    b.messages.push(
      answers ? { role, text: pieces.join('\n'), boundToPrevious: true } : { role, text: pieces.join('\n') },
    );
  });
  const model = root.type === 'object' ? stringOf(member(root, 'model')) : undefined;
  return b.build('openai', raw, model, messageList(root));
}
