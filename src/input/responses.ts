/**
 * OpenAI Responses API request bodies ({model, input: [...]}). Tool outputs are the items
 * function_call_output, custom_tool_call_output and local_shell_call_output: a string `output` is
 * one output; an array gives one output per input_text/output_text part (other parts untouched).
 * The call item with the same call_id (function_call, custom_tool_call, local_shell_call) gives
 * toolName, command and path. A string `input` is a single user message with no tool outputs.
 * Results carry no error flag: isError is inferred from the exit-code line Codex writes into the
 * text (input/tool-error.ts).
 *
 * Message views are one per input item (calls and outputs included), so ToolOutput.messageIndex
 * indexes them; `instructions` is not a message and is left out.
 */

import { type JsonNode, member, stringOf, toValue } from '../json/spans.js';
import { TranscriptBuilder, textParts } from './builder.js';
import {
  type CallDetails,
  type CallInfo,
  detailsFromArguments,
  detailsFromObject,
  renderCall,
} from './call-args.js';
import type { ReadOptions, Transcript } from './transcript.js';

const TEXT_PARTS = new Set(['input_text', 'output_text']);
const CALLS = new Set(['function_call', 'custom_tool_call', 'local_shell_call']);
const OUTPUTS = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output']);

function callDetails(type: string, item: JsonNode): CallDetails {
  if (type === 'function_call') return detailsFromArguments(member(item, 'arguments'));
  if (type === 'custom_tool_call') return detailsFromArguments(member(item, 'input'));
  // local_shell_call: {action: {type: "exec", command: [argv…]}}
  const action = member(item, 'action');
  return action ? detailsFromObject(toValue(action)) : {};
}

export function readResponses(raw: string, root: JsonNode, opts: ReadOptions): Transcript {
  const b = new TranscriptBuilder(opts);
  const model = stringOf(member(root, 'model'));
  const input = member(root, 'input');
  if (input?.type === 'string') b.messages.push({ role: 'user', text: input.value });
  const calls = new Map<string, CallInfo>();
  const items = input?.type === 'array' ? input.items : undefined;
  let previousType = '';
  (items ?? []).forEach((item, messageIndex) => {
    const role = stringOf(member(item, 'role'));
    // Easy input messages may omit type: {role, content}.
    const type = stringOf(member(item, 'type')) ?? (role !== undefined ? 'message' : '');
    const callId = stringOf(member(item, 'call_id'));
    if (type === 'message') {
      const texts = textParts(member(item, 'content'), TEXT_PARTS).map((p) => p.value);
      b.messages.push({ role: role ?? 'user', text: texts.join('\n') });
    } else if (CALLS.has(type)) {
      const call: CallInfo = callDetails(type, item);
      const name =
        stringOf(member(item, 'name')) ?? (type === 'local_shell_call' ? 'local_shell' : undefined);
      if (name !== undefined) call.name = name;
      // A repeated id pairs with the most recent call, the one its output answers.
      if (callId !== undefined) calls.set(callId, call);
      b.messages.push({ role: 'assistant', text: renderCall(type, call) });
    } else if (OUTPUTS.has(type)) {
      const call = callId === undefined ? undefined : calls.get(callId);
      const parts = textParts(member(item, 'output'), TEXT_PARTS);
      const base = callId ?? `${type}@${messageIndex}`;
      const texts = b.addResult(base, parts, { messageIndex, call });
      b.messages.push({ role: 'tool', text: texts.join('\n') });
    } else {
      // reasoning, item_reference, …: model-side items with no plain text worth querying.
      b.messages.push({ role: role ?? 'assistant', text: '' });
    }
    // An output answers its call; a reasoning item belongs with the items its response produced, and
    // parallel calls of one response stay together (their outputs follow them all).
    const sameResponse = previousType === 'reasoning' || (CALLS.has(type) && CALLS.has(previousType));
    if (OUTPUTS.has(type) || sameResponse) b.messages[messageIndex]!.boundToPrevious = true;
    previousType = type;
  });
  const t = b.build('responses', raw, model, items);
  const instructions = stringOf(member(root, 'instructions'));
  if (instructions !== undefined) t.system = instructions;
  return t;
}
