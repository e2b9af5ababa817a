/**
 * Anthropic Messages answers. A call is a `tool_use` content block; the model waits for results
 * when `stop_reason` is `tool_use`. A stream is message_start, then per block content_block_start
 * (its type, and a tool's name) / _delta / _stop by `index`, then message_delta (stop_reason) and
 * message_stop. The answer is rebuilt block by block as the SDK does (text, thinking with its
 * signature, a tool's input from its JSON deltas), so a continued request sends the model's turn
 * back whole. Taking the proxy's blocks out renumbers the later blocks' indices. Results go back as
 * one user message of tool_result blocks; for an answer that also called the client's tools, they
 * go first in the client's next user message (the API wants results before any text there).
 */

import { arrayAt, objectAt } from '../../../json/payload.js';
import { eventJson, type SseEvent, sseEvent } from '../sse.js';
import { EXPAND_TOOL } from '../tool.js';
import {
  type Answered,
  type Call,
  type FormatOps,
  type Reply,
  StreamCalls,
  type StreamReader,
} from './types.js';

type Block = Record<string, unknown>;

function callOf(b: Block, args: string): Call | undefined {
  if (b.type !== 'tool_use' || typeof b.id !== 'string' || typeof b.name !== 'string') return undefined;
  return { id: b.id, name: b.name, args, own: b.name === EXPAND_TOOL };
}

function replyOf(content: readonly Block[], stop: unknown, args: (b: Block, i: number) => string): Reply {
  const calls = content.flatMap((b, i) => callOf(b, args(b, i)) ?? []);
  return {
    calls,
    awaitsResults: stop === 'tool_use',
    assistant: [JSON.stringify({ role: 'assistant', content })],
  };
}

class AnthropicStream extends StreamCalls implements StreamReader {
  private readonly blocks: Block[] = [];
  /** A tool block's input as its JSON deltas wrote it, by index. */
  private readonly json = new Map<number, string>();
  private stop: unknown;

  push(e: SseEvent): void {
    const d = eventJson(e);
    if (!d) return;
    const index = typeof d.index === 'number' ? d.index : -1;
    if (d.type === 'content_block_start') {
      const b = { ...objectAt(d, 'content_block') };
      this.blocks[index] = b;
      if (b.type === 'tool_use') this.sawCall(index, b.name === EXPAND_TOOL);
    } else if (d.type === 'content_block_delta') {
      const b = this.blocks[index];
      const delta = objectAt(d, 'delta');
      if (!b || !delta) return;
      if (delta.type === 'text_delta') b.text = `${b.text ?? ''}${delta.text ?? ''}`;
      else if (delta.type === 'input_json_delta')
        this.json.set(index, `${this.json.get(index) ?? ''}${delta.partial_json ?? ''}`);
      else if (delta.type === 'thinking_delta') b.thinking = `${b.thinking ?? ''}${delta.thinking ?? ''}`;
      else if (delta.type === 'signature_delta') b.signature = delta.signature;
      else if (delta.type === 'citations_delta')
        b.citations = [...(arrayAt(b, 'citations') ?? []), delta.citation];
    } else if (d.type === 'message_delta') this.stop = objectAt(d, 'delta')?.stop_reason;
    else if (d.type === 'message_stop' || d.type === 'error' || e.event === 'error') this.done = true;
  }

  reply(): Reply {
    const content = this.blocks.filter((b) => b !== undefined);
    for (const [i, text] of this.json) {
      const b = this.blocks[i];
      if (!b) continue;
      try {
        b.input = text === '' ? {} : JSON.parse(text);
      } catch {
        b.input = {};
      }
    }
    return replyOf(content, this.stop, (b, i) => this.json.get(i) ?? JSON.stringify(b.input ?? {}));
  }

  outgoing(e: SseEvent): SseEvent | undefined {
    if (this.own.size === 0) return e;
    const d = eventJson(e);
    if (!d || typeof d.index !== 'number') return e;
    if (this.own.has(d.index)) return undefined;
    const before = this.ownBefore(d.index);
    return before === 0 ? e : sseEvent({ ...d, index: d.index - before }, e.event);
  }
}

function resultBlocks(answered: readonly Answered[]): Block[] {
  return answered.map(({ call, answer }) => ({
    type: 'tool_result',
    tool_use_id: call.id,
    content: answer.text,
    ...(answer.isError ? { is_error: true } : {}),
  }));
}

export const anthropicOps: FormatOps = {
  readJson(body) {
    if (!Array.isArray(body.content)) return undefined;
    const content = body.content as Block[];
    return replyOf(content, body.stop_reason, (b) => JSON.stringify(b.input ?? {}));
  },
  stripJson(body) {
    const content = (body.content as Block[]).filter(
      (b) => !(b.type === 'tool_use' && b.name === EXPAND_TOOL),
    );
    return { ...body, content };
  },
  stream: () => new AnthropicStream(),
  results: (answered) => [JSON.stringify({ role: 'user', content: resultBlocks(answered) })],
  mixed(reply, answered, at) {
    const holds = reply.calls.filter((c) => !c.own).map((c) => c.id);
    return [
      { op: 'replace', at, holds, items: reply.assistant },
      { op: 'prepend', at: at + 1, holds, items: resultBlocks(answered).map((b) => JSON.stringify(b)) },
    ];
  },
};
