/**
 * Anthropic Messages request bodies ({model, system, messages}, or a bare messages array). Tool
 * outputs are the tool_result blocks of user messages: string content is one output; block content
 * gives one output per text block (images and documents stay untouched and are not outputs).
 * isError comes from is_error; the assistant tool_use block with the same id gives toolName,
 * command (input.command) and path (input.file_path ?? input.path).
 *
 * Message views are one per element of `messages`, so ToolOutput.messageIndex indexes them; the
 * top-level system prompt is not a message and is left out (it is Transcript.system). A message with
 * block content notes its last block, where a cache breakpoint may go, and the body's existing
 * breakpoints are counted (the API accepts at most four).
 */

import { type JsonNode, member, stringOf, toValue } from '../json/spans.js';
import { messageList, TranscriptBuilder, textParts } from './builder.js';
import { type CallInfo, detailsFromObject, renderCall } from './call-args.js';
import type { MessageView, ReadOptions, Transcript } from './transcript.js';

/** tool_result content blocks that hold text (images and documents do not). */
const TEXT: ReadonlySet<string> = new Set(['text']);

/** The text of a string or text-block `system`, or undefined. */
function systemText(system: JsonNode | undefined): string | undefined {
  if (system?.type === 'string') return system.value;
  if (system?.type !== 'array') return undefined;
  return system.items.map((b) => stringOf(member(b, 'text')) ?? '').join('\n');
}

/** How many blocks under `node` (one level of blocks, and tool_result content) carry cache_control. */
function breakpointsIn(node: JsonNode | undefined): number {
  if (node?.type !== 'array') return 0;
  let n = 0;
  for (const block of node.items) {
    if (member(block, 'cache_control') !== undefined) n++;
    n += breakpointsIn(member(block, 'content'));
  }
  return n;
}

export function readAnthropic(raw: string, root: JsonNode, opts: ReadOptions): Transcript {
  const b = new TranscriptBuilder(opts);
  const calls = new Map<string, CallInfo>();
  let breakpoints = breakpointsIn(member(root, 'system')) + breakpointsIn(member(root, 'tools'));
  (messageList(root) ?? []).forEach((message, messageIndex) => {
    const role = stringOf(member(message, 'role')) ?? '';
    const content = member(message, 'content');
    const pieces: string[] = [];
    let answers = false;
    if (content?.type === 'string') pieces.push(content.value);
    const blocks = content?.type === 'array' ? content.items : [];
    const here = breakpointsIn(content);
    breakpoints += here;
    b.breakpoints[messageIndex] = here;
    const last = blocks[blocks.length - 1];
    let lastBlock: MessageView['lastBlock'];
    if (last?.type === 'object' && last.members.length > 0) {
      b.lastBlocks.set(messageIndex, last);
      const type = stringOf(member(last, 'type')) ?? '';
      const text = member(last, 'text');
      lastBlock = {
        type,
        cacheControl: member(last, 'cache_control') !== undefined,
        empty: type === 'text' && (text?.type !== 'string' || text.value === ''),
      };
    }
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
        answers = true;
        const id = stringOf(member(block, 'tool_use_id'));
        const flag = member(block, 'is_error');
        const isError = flag?.type === 'boolean' && flag.value;
        const call = id === undefined ? undefined : calls.get(id);
        const base = id ?? `tool_result@${messageIndex}`;
        const texts = b.addResult(base, textParts(member(block, 'content'), TEXT), {
          messageIndex,
          isError,
          call,
        });
        pieces.push(...texts);
      }
    }
    const view: MessageView = { role, text: pieces.join('\n') };
    const first = stringOf(member(blocks[0], 'type'));
    if (first === 'thinking' || first === 'redacted_thinking') view.startsWithThinking = true;
    if (lastBlock) view.lastBlock = lastBlock;
    // A tool_result must follow the tool_use it answers.
    if (answers) view.boundToPrevious = true;
    b.messages.push(view);
  });
  const t = b.build('anthropic', raw, stringOf(member(root, 'model')), messageList(root));
  const system = systemText(member(root, 'system'));
  if (system !== undefined) t.system = system;
  t.cacheBreakpoints = breakpoints;
  return t;
}
