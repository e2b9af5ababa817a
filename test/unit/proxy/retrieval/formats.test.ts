import { describe, expect, it } from 'vitest';
import { anthropicOps } from '../../../../src/proxy/retrieval/formats/anthropic.js';
import { openaiOps } from '../../../../src/proxy/retrieval/formats/openai.js';
import { responsesOps } from '../../../../src/proxy/retrieval/formats/responses.js';
import type { FormatOps } from '../../../../src/proxy/retrieval/formats/types.js';
import { eventJson, type SseEvent, SseSplitter } from '../../../../src/proxy/retrieval/sse.js';

const sse = (events: { event?: string; data: unknown }[]) =>
  events
    .map(
      (e) =>
        `${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`,
    )
    .join('');

/** The events a client gets from a stream, through a format's reader, fed in chunks of `size` bytes. */
function through(ops: FormatOps, text: string, size = 7) {
  const reader = ops.stream();
  const splitter = new SseSplitter();
  const out: SseEvent[] = [];
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size)
    for (const e of splitter.push(bytes.subarray(i, i + size))) {
      reader.push(e);
      const o = reader.outgoing(e);
      if (o) out.push(o);
    }
  return { reader, out, data: out.map((e) => eventJson(e)) };
}

describe('SSE events', () => {
  it('are cut whole from any chunking, LF or CRLF, their raw bytes kept exactly', () => {
    const text =
      'event: a\ndata: {"x":1}\n\nevent: b\r\ndata: {"y":\r\ndata: 2}\r\n\r\n: comment\n\ndata: [DONE]\n\n';
    for (const size of [1, 3, 1000]) {
      const s = new SseSplitter();
      const events: SseEvent[] = [];
      const b = Buffer.from(text);
      for (let i = 0; i < b.length; i += size) events.push(...s.push(b.subarray(i, i + size)));
      expect(Buffer.concat(events.map((e) => e.raw)).toString()).toBe(text);
      expect(events.map((e) => [e.event, e.data])).toEqual([
        ['a', '{"x":1}'],
        ['b', '{"y":\n2}'],
        [undefined, ''],
        [undefined, '[DONE]'],
      ]);
    }
  });
});

describe('taking the proxy call out of a streamed answer', () => {
  it('Anthropic: drops its block and renumbers the blocks after it; the rest is byte for byte', () => {
    const start = (index: number, content_block: unknown) => ({
      event: 'content_block_start',
      data: { type: 'content_block_start', index, content_block },
    });
    const stop = (index: number) => ({
      event: 'content_block_stop',
      data: { type: 'content_block_stop', index },
    });
    const text = sse([
      { event: 'message_start', data: { type: 'message_start', message: { id: 'm' } } },
      start(0, { type: 'text', text: '' }),
      stop(0),
      start(1, { type: 'tool_use', id: 'toolu_own', name: 'cg_expand', input: {} }),
      {
        event: 'content_block_delta',
        data: {
          type: 'content_block_delta',
          index: 1,
          delta: { type: 'input_json_delta', partial_json: '{"key":"k"}' },
        },
      },
      stop(1),
      start(2, { type: 'tool_use', id: 'toolu_app', name: 'read_more', input: {} }),
      stop(2),
      { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'tool_use' } } },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]);
    const { reader, out, data } = through(anthropicOps, text);
    expect(data.map((d) => [d?.type, d?.index])).toEqual([
      ['message_start', undefined],
      ['content_block_start', 0],
      ['content_block_stop', 0],
      ['content_block_start', 1],
      ['content_block_stop', 1],
      ['message_delta', undefined],
      ['message_stop', undefined],
    ]);
    expect((data[3]!.content_block as { name: string }).name).toBe('read_more');
    expect(out[0]!.raw.toString()).toBe(text.split('\n\n')[0] + '\n\n');
    const reply = reader.reply();
    expect(reply.calls.map((c) => [c.name, c.own, c.args])).toEqual([
      ['cg_expand', true, '{"key":"k"}'],
      ['read_more', false, '{}'],
    ]);
    expect(JSON.parse(reply.assistant[0]!).content[1].input).toEqual({ key: 'k' });
  });

  it('Chat Completions: drops its pieces, renumbers later calls, and drops a chunk left with nothing', () => {
    const chunk = (delta: unknown, finish: string | null = null) => ({
      data: { id: 'c', choices: [{ index: 0, delta, finish_reason: finish }] },
    });
    const text = sse([
      chunk({ role: 'assistant', content: '' }),
      chunk({
        tool_calls: [
          { index: 0, id: 'call_own', type: 'function', function: { name: 'cg_expand', arguments: '' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"key":"k"}' } }] }),
      chunk({
        tool_calls: [
          { index: 1, id: 'call_app', type: 'function', function: { name: 'read_more', arguments: '{}' } },
        ],
      }),
      chunk({}, 'tool_calls'),
      { data: '[DONE]' },
    ]);
    const { reader, data, out } = through(openaiOps, text);
    expect(out).toHaveLength(4);
    const calls = data.flatMap(
      (d) =>
        (d?.choices as { delta: { tool_calls?: { index: number; id?: string }[] } }[] | undefined)?.[0]?.delta
          .tool_calls ?? [],
    );
    expect(calls).toEqual([
      { index: 0, id: 'call_app', type: 'function', function: { name: 'read_more', arguments: '{}' } },
    ]);
    expect(out.at(-1)!.data).toBe('[DONE]');
    expect(reader.reply().awaitsResults).toBe(true);
  });

  it('Responses: drops its item, renumbers output_index and sequence_number, and leaves it out of the final response', () => {
    let seq = 0;
    const ev = (type: string, rest: Record<string, unknown>) => ({
      event: type,
      data: { type, sequence_number: seq++, ...rest },
    });
    const own = {
      type: 'function_call',
      id: 'fc_1',
      call_id: 'call_own',
      name: 'cg_expand',
      arguments: '{"key":"k"}',
    };
    const app = {
      type: 'function_call',
      id: 'fc_2',
      call_id: 'call_app',
      name: 'read_more',
      arguments: '{}',
    };
    const text = sse([
      ev('response.created', { response: { id: 'resp_1', output: [] } }),
      ev('response.output_item.added', { output_index: 0, item: own }),
      ev('response.output_item.done', { output_index: 0, item: own }),
      ev('response.output_item.added', { output_index: 1, item: app }),
      ev('response.output_item.done', { output_index: 1, item: app }),
      ev('response.completed', { response: { id: 'resp_1', status: 'completed', output: [own, app] } }),
    ]);
    const { reader, data } = through(responsesOps, text);
    expect(data.map((d) => [d?.type, d?.output_index, d?.sequence_number])).toEqual([
      ['response.created', undefined, 0],
      ['response.output_item.added', 0, 1],
      ['response.output_item.done', 0, 2],
      ['response.completed', undefined, 3],
    ]);
    expect((data[3]!.response as { output: unknown[] }).output).toEqual([app]);
    expect(reader.reply()).toMatchObject({ awaitsResults: true, id: 'resp_1' });
  });
});

describe('taking the proxy call out of a non-streamed answer', () => {
  it('leaves every other part as it was, in each format', () => {
    const a = anthropicOps.stripJson({
      content: [
        { type: 'text', text: 't' },
        { type: 'tool_use', name: 'cg_expand' },
        { type: 'tool_use', name: 'x' },
      ],
      stop_reason: 'tool_use',
    });
    expect(a.content).toEqual([
      { type: 'text', text: 't' },
      { type: 'tool_use', name: 'x' },
    ]);
    const fn = (name: string) => ({ id: name, type: 'function', function: { name, arguments: '{}' } });
    const o = openaiOps.stripJson({
      choices: [{ index: 0, message: { role: 'assistant', tool_calls: [fn('cg_expand'), fn('x')] } }],
    });
    expect((o.choices as { message: { tool_calls: unknown[] } }[])[0]!.message.tool_calls).toEqual([fn('x')]);
    const r = responsesOps.stripJson({
      output: [{ type: 'function_call', name: 'cg_expand' }, { type: 'message' }],
    });
    expect(r.output).toEqual([{ type: 'message' }]);
  });
});
