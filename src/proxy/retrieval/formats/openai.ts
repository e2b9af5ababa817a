/**
 * OpenAI Chat Completions answers (the first choice). A call is an entry of the message's
 * `tool_calls`; the model waits for results when `finish_reason` is `tool_calls`. A stream's chunks
 * carry `choices[0].delta`: content pieces, and tool call pieces by `index` (the first with its id
 * and function name), then a chunk with the finish reason, perhaps a usage chunk, then `[DONE]`.
 * The answer goes back as one assistant message (content, and every call); results as one `tool`
 * message per call. Taking the proxy's calls out renumbers the later calls' indices and drops a
 * chunk that carried nothing else; for an answer that also called the client's tools, the
 * client's copy of it is replaced by the whole answer followed by the proxy's results.
 */

import { arrayAt, objectAt, stringAt } from '../../../json/payload.js';
import { eventJson, type SseEvent, sseEvent } from '../sse.js';
import { EXPAND_TOOL } from '../tool.js';
import { type Call, type FormatOps, type Reply, StreamCalls, type StreamReader } from './types.js';

interface Piece {
  id: string;
  name: string;
  args: string;
}

function replyOf(content: unknown, pieces: readonly Piece[], finish: unknown): Reply {
  const calls: Call[] = pieces.map((p) => ({ ...p, own: p.name === EXPAND_TOOL }));
  const message = {
    role: 'assistant',
    content: typeof content === 'string' && content !== '' ? content : null,
    tool_calls: pieces.map((p) => ({
      id: p.id,
      type: 'function',
      function: { name: p.name, arguments: p.args },
    })),
  };
  return { calls, awaitsResults: finish === 'tool_calls', assistant: [JSON.stringify(message)] };
}

function firstChoice(d: Record<string, unknown>): Record<string, unknown> | undefined {
  const choices = arrayAt(d, 'choices') ?? [];
  return objectAt(choices.find((c) => objectAt(c)?.index === 0 || objectAt(c)?.index === undefined));
}

class ChatStream extends StreamCalls implements StreamReader {
  private readonly pieces: Piece[] = [];
  private content = '';
  private finish: unknown;

  push(e: SseEvent): void {
    if (e.data === '[DONE]') {
      this.done = true;
      return;
    }
    const d = eventJson(e);
    if (!d) return;
    if (d.error !== undefined) this.done = true;
    const choice = firstChoice(d);
    if (!choice) return;
    if (choice.finish_reason != null) this.finish = choice.finish_reason;
    const delta = objectAt(choice, 'delta');
    if (!delta) return;
    if (typeof delta.content === 'string') this.content += delta.content;
    for (const raw of arrayAt(delta, 'tool_calls') ?? []) {
      const t = objectAt(raw);
      if (!t || typeof t.index !== 'number') continue;
      const fn = objectAt(t, 'function');
      let p = this.pieces[t.index];
      if (!p) {
        p = { id: '', name: '', args: '' };
        this.pieces[t.index] = p;
      }
      if (typeof t.id === 'string') p.id = t.id;
      if (typeof fn?.name === 'string' && p.name === '') {
        p.name = fn.name;
        this.sawCall(t.index, p.name === EXPAND_TOOL);
      }
      if (typeof fn?.arguments === 'string') p.args += fn.arguments;
    }
  }

  reply(): Reply {
    return replyOf(
      this.content,
      this.pieces.filter((p) => p !== undefined),
      this.finish,
    );
  }

  outgoing(e: SseEvent): SseEvent | undefined {
    if (this.own.size === 0) return e;
    const d = eventJson(e);
    const choice = d && firstChoice(d);
    const delta = objectAt(choice, 'delta');
    if (!d || !choice || !delta || !Array.isArray(delta.tool_calls)) return e;
    const kept = (delta.tool_calls as unknown[]).flatMap((raw) => {
      const t = objectAt(raw);
      if (!t || typeof t.index !== 'number') return [raw];
      if (this.own.has(t.index)) return [];
      return [{ ...t, index: t.index - this.ownBefore(t.index) }];
    });
    if (JSON.stringify(kept) === JSON.stringify(delta.tool_calls)) return e;
    const rest = { ...delta };
    if (kept.length > 0) rest.tool_calls = kept;
    else delete rest.tool_calls;
    // A chunk that carried only a proxy call's piece is not sent at all.
    if (Object.keys(rest).length === 0 && choice.finish_reason == null && d.usage == null) return undefined;
    const choices = (d.choices as unknown[]).map((c) => (c === choice ? { ...choice, delta: rest } : c));
    return sseEvent({ ...d, choices }, e.event);
  }
}

function toolCalls(message: Record<string, unknown>): Record<string, unknown>[] {
  const calls = arrayAt(message, 'tool_calls') ?? [];
  return calls.flatMap((t): Record<string, unknown>[] => {
    const o = objectAt(t);
    return o ? [o] : [];
  });
}

export const openaiOps: FormatOps = {
  readJson(body) {
    const choice = firstChoice(body);
    const message = objectAt(choice, 'message');
    if (!choice || !message) return undefined;
    const pieces = toolCalls(message).map((t) => {
      const fn = objectAt(t, 'function');
      return {
        id: stringAt(t, 'id') ?? '',
        name: stringAt(fn, 'name') ?? '',
        args: stringAt(fn, 'arguments') ?? '',
      };
    });
    return replyOf(message.content, pieces, choice.finish_reason);
  },
  stripJson(body) {
    const choice = firstChoice(body)!;
    const message = objectAt(choice, 'message')!;
    const tool_calls = toolCalls(message).filter((t) => objectAt(t, 'function')?.name !== EXPAND_TOOL);
    const choices = (body.choices as unknown[]).map((c) =>
      c === choice ? { ...choice, message: { ...message, tool_calls } } : c,
    );
    return { ...body, choices };
  },
  stream: () => new ChatStream(),
  results: (answered) =>
    answered.map(({ call, answer }) =>
      JSON.stringify({ role: 'tool', tool_call_id: call.id, content: answer.text }),
    ),
  mixed(reply, answered, at) {
    const holds = reply.calls.filter((c) => !c.own).map((c) => c.id);
    return [{ op: 'replace', at, holds, items: [...reply.assistant, ...openaiOps.results(answered)] }];
  },
};
