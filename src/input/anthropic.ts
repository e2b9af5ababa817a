/**
 * Anthropic Messages request bodies ({model, system, messages}, or a bare messages array). Tool
 * outputs are the tool_result blocks of user messages: string content is one output; block content
 * gives one output per text block (images and documents stay untouched and are not outputs).
 * isError comes from is_error; the assistant tool_use block with the same id gives toolName,
 * command (input.command) and path (input.file_path ?? input.path).
 *
 * Message views are one per element of `messages`, so ToolOutput.messageIndex indexes them; the
 * top-level system prompt is not a message and is left out.
 */

import { messageList, TranscriptBuilder } from './builder.js';
import { type CallInfo, detailsFromObject, renderCall } from './call-args.js';
import { type JsonNode, type JsonString, member, stringOf, toValue } from './json-spans.js';
import type { ReadOptions, Transcript } from './transcript.js';

/** The string nodes holding a tool_result's text: its string content, or its text blocks' texts. */
function resultParts(content: JsonNode | undefined): JsonString[] {
  if (content?.type === 'string') return [content];
  if (content?.type !== 'array') return [];
  const parts: JsonString[] = [];
  for (const block of content.items) {
    const text = member(block, 'text');
    if (stringOf(member(block, 'type')) === 'text' && text?.type === 'string') parts.push(text);
  }
  return parts;
}

export function readAnthropic(raw: string, root: JsonNode, opts: ReadOptions): Transcript {
  const b = new TranscriptBuilder(opts);
  const calls = new Map<string, CallInfo>();
  (messageList(root) ?? []).forEach((message, messageIndex) => {
    const role = stringOf(member(message, 'role')) ?? '';
    const content = member(message, 'content');
    const pieces: string[] = [];
    if (content?.type === 'string') pieces.push(content.value);
    const blocks = content?.type === 'array' ? content.items : [];
    for (const block of blocks) {
      const type = stringOf(member(block, 'type'));
      if (type === 'text') {
        const text = stringOf(member(block, 'text'));
        if (text !== undefined) pieces.push(text);
      } else if (type === 'tool_use') {
        const input = member(block, 'input');
        const call: CallInfo = input ? detailsFromObject(toValue(input)) : {};
        const name = stringOf(member(block, 'name'));
        if (name !== undefined) call.name = name;
        const id = stringOf(member(block, 'id'));
        // A repeated id pairs with the most recent call, the one its result answers.
        if (id !== undefined) calls.set(id, call);
        pieces.push(renderCall('tool_use', call));
      } else if (type === 'tool_result') {
        const id = stringOf(member(block, 'tool_use_id'));
        const flag = member(block, 'is_error');
        const isError = flag?.type === 'boolean' && flag.value;
        const call = id === undefined ? undefined : calls.get(id);
        const base = id ?? `tool_result@${messageIndex}`;
        const texts = b.addResult(base, resultParts(member(block, 'content')), {
          messageIndex,
          isError,
          call,
        });
        pieces.push(...texts);
      }
    }
    b.messages.push({ role, text: pieces.join('\n') });
  });
  return b.build('anthropic', raw, stringOf(member(root, 'model')));
}
