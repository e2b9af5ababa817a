/**
 * A scripted model behind the fake upstream (fake-upstream.ts) for the retrieval tests, in the
 * three formats the proxy reads, streamed or not (the request's `stream` decides, as a provider's
 * does). It reads the conversation it is sent and acts like a model with tools:
 *   - asked a question with nothing read yet, it calls the client's `read_log` tool;
 *   - shown a tool result holding a marker and offered `cg_expand`, it calls cg_expand on it;
 *   - given cg_expand's result, it answers with the line of it that holds NEEDLE (a line only the
 *     original has), or says so when cg_expand said the original is gone.
 * `mixed` makes its cg_expand call share the answer with a second client tool (`read_more`);
 * `greedy` calls cg_expand on every turn (to run into the proxy's round limit). Every reply it
 * sends is kept (`replies`), so a test can compare what its client received byte for byte.
 */
import { type Recorded, type Reply, replyBytes } from './fake-upstream.js';

export const NEEDLE = 'shard 17 checksum is 9f3a2c-needle';

export type Format = 'anthropic' | 'openai' | 'responses';

interface Step {
  kind: 'call' | 'result' | 'text';
  id?: string;
  name?: string;
  text: string;
}

type Said = { text: string } | { calls: { id: string; name: string; args: unknown }[]; text?: string };

/** The conversation as steps: calls, their results, and text. */
export function stepsOf(format: Format, body: Record<string, unknown>): Step[] {
  const steps: Step[] = [];
  const textOf = (c: unknown): string =>
    typeof c === 'string'
      ? c
      : Array.isArray(c)
        ? c.map((p) => (p as { text?: string }).text ?? '').join('')
        : '';
  if (format === 'responses') {
    const input =
      typeof body.input === 'string'
        ? [{ role: 'user', content: body.input }]
        : (body.input as Record<string, unknown>[]);
    for (const it of input) {
      if (it.type === 'function_call')
        steps.push({
          kind: 'call',
          id: String(it.call_id),
          name: String(it.name),
          text: String(it.arguments),
        });
      else if (it.type === 'function_call_output')
        steps.push({ kind: 'result', id: String(it.call_id), text: textOf(it.output) });
      else steps.push({ kind: 'text', text: textOf(it.content) });
    }
    return steps;
  }
  for (const m of body.messages as Record<string, unknown>[]) {
    if (format === 'openai') {
      if (m.role === 'tool')
        steps.push({ kind: 'result', id: String(m.tool_call_id), text: textOf(m.content) });
      else {
        steps.push({ kind: 'text', text: textOf(m.content) });
        for (const t of (m.tool_calls as
          | { id: string; function: { name: string; arguments: string } }[]
          | undefined) ?? [])
          steps.push({ kind: 'call', id: t.id, name: t.function.name, text: t.function.arguments });
      }
      continue;
    }
    for (const b of typeof m.content === 'string'
      ? [{ type: 'text', text: m.content }]
      : (m.content as Record<string, unknown>[])) {
      if (b.type === 'tool_use')
        steps.push({ kind: 'call', id: String(b.id), name: String(b.name), text: JSON.stringify(b.input) });
      else if (b.type === 'tool_result')
        steps.push({ kind: 'result', id: String(b.tool_use_id), text: textOf(b.content) });
      else steps.push({ kind: 'text', text: textOf(b.text) });
    }
  }
  return steps;
}

function toolNames(format: Format, body: Record<string, unknown>): string[] {
  return ((body.tools as Record<string, unknown>[] | undefined) ?? []).map((t) =>
    String(format === 'openai' ? (t.function as { name: string }).name : t.name),
  );
}

export interface ModelOptions {
  mixed?: boolean;
  greedy?: boolean;
  /** Asks cg_expand for a key no store holds. */
  bogus?: boolean;
  /** Follows the note of a sliced result to its next slice. */
  paging?: boolean;
}

export class ScriptedModel {
  readonly replies: Reply[] = [];
  /** Requests answered with this status instead (by index), as a provider's error. */
  readonly failAt = new Map<number, number>();
  private n = 0;

  constructor(
    readonly format: Format,
    readonly opts: ModelOptions = {},
  ) {}

  /** Responses the provider stored: each one's whole conversation, for previous_response_id. */
  private readonly stored = new Map<string, unknown[]>();

  readonly script = (req: Recorded, index: number): Reply => {
    let body = JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
    const status = this.failAt.get(index);
    if (status !== undefined) return this.keep(this.error(status));
    if (this.format === 'responses') {
      const input =
        typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input as unknown[]);
      const before =
        typeof body.previous_response_id === 'string' ? this.stored.get(body.previous_response_id) : [];
      if (!before)
        return this.keep({
          status: 400,
          headers: JSON_TYPE,
          body: '{"error":{"message":"no such response"}}',
        });
      body = { ...body, input: [...before, ...input] };
    }
    const reply = this.render(this.think(body), body.stream === true);
    if (this.format === 'responses')
      this.stored.set(reply.headers!['x-fake-reply']!, [...(body.input as unknown[]), ...outputOf(reply)]);
    return this.keep(reply);
  };

  private keep(reply: Reply): Reply {
    this.replies.push(reply);
    return reply;
  }

  private id(prefix: string): string {
    return `${prefix}${String(++this.n).padStart(4, '0')}`;
  }

  private think(body: Record<string, unknown>): Said {
    const steps = stepsOf(this.format, body);
    const names = new Map(steps.filter((s) => s.kind === 'call').map((s) => [s.id, s.name]));
    const last = steps[steps.length - 1]!;
    const offered = toolNames(this.format, body).includes('cg_expand');
    const expandResult = [...steps]
      .reverse()
      .find((s) => s.kind === 'result' && names.get(s.id) === 'cg_expand');
    if (last.kind === 'result' && last.text.startsWith('error: no tool named cg_expand'))
      return { text: 'The app has no cg_expand: giving up.' };
    if (last.kind === 'result' && expandResult && !this.opts.greedy) {
      const line = expandResult.text.split('\n').find((l) => l.includes(NEEDLE));
      const next = /the next slice: cg_expand (\{.*\})\]$/m.exec(expandResult.text);
      if (!line && next && this.opts.paging)
        return { calls: [{ id: this.id(this.callPrefix()), name: 'cg_expand', args: JSON.parse(next[1]!) }] };
      return {
        text: line ? `The log says: ${line}` : `I could not read it: ${expandResult.text.split('\n')[0]}`,
      };
    }
    const marked = steps.find((s) => s.kind === 'result' && /<<cg:[0-9a-f]{16}>>/.test(s.text));
    if (marked && offered && last.kind === 'result') {
      const key = this.opts.bogus ? '<<cg:0123456789abcdef>>' : /<<cg:[0-9a-f]{16}>>/.exec(marked.text)![0];
      const expand = { id: this.id(this.callPrefix()), name: 'cg_expand', args: { key } };
      if (this.opts.mixed && !steps.some((s) => s.kind === 'call' && s.name === 'read_more'))
        return {
          text: 'Reading both.',
          calls: [{ id: this.id(this.callPrefix()), name: 'read_more', args: {} }, expand],
        };
      return { text: 'Let me open the marker.', calls: [expand] };
    }
    if (!steps.some((s) => s.kind === 'result'))
      return { calls: [{ id: this.id(this.callPrefix()), name: 'read_log', args: {} }] };
    return { text: `Nothing to open (${steps.length} steps).` };
  }

  private callPrefix(): string {
    return this.format === 'anthropic' ? 'toolu_' : 'call_';
  }

  private error(status: number): Reply {
    const body =
      this.format === 'anthropic'
        ? { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }
        : { error: { message: 'The server is overloaded', type: 'server_error', param: null, code: null } };
    return {
      status,
      headers: { 'content-type': 'application/json', 'x-fake-error': 'yes' },
      body: JSON.stringify(body),
    };
  }

  private render(said: Said, stream: boolean): Reply {
    const calls = 'calls' in said ? said.calls : [];
    const text = said.text;
    if (this.format === 'anthropic')
      return stream
        ? anthropicStreamOf(this.id('msg_'), text, calls)
        : anthropicJson(this.id('msg_'), text, calls);
    if (this.format === 'openai')
      return stream
        ? chatStream(this.id('chatcmpl-'), text, calls)
        : chatJson(this.id('chatcmpl-'), text, calls);
    return stream
      ? responsesStreamOf(this.id('resp_'), text, calls)
      : responsesJson(this.id('resp_'), text, calls);
  }

  /** The bytes of the reply this model sent for request `i`. */
  bytes(i: number): Buffer {
    return replyBytes(this.replies[i]!);
  }
}

type Calls = { id: string; name: string; args: unknown }[];

/** The output items of a Responses reply (its JSON, or its stream's completed event). */
function outputOf(reply: Reply): unknown[] {
  const text = replyBytes(reply).toString('utf8');
  if (!reply.chunks) return (JSON.parse(text) as { output: unknown[] }).output;
  const done = text.split('\n').find((l) => l.startsWith('data: ') && l.includes('"response.completed"'))!;
  return (JSON.parse(done.slice(6)) as { response: { output: unknown[] } }).response.output;
}
const sse = (events: { event?: string; data: unknown }[]) =>
  events.map(
    (e) =>
      `${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`,
  );
const SSE = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
const JSON_TYPE = { 'content-type': 'application/json' };

function anthropicBlocks(text: string | undefined, calls: Calls) {
  return [
    ...(text ? [{ type: 'text', text }] : []),
    ...calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args })),
  ];
}

function anthropicJson(id: string, text: string | undefined, calls: Calls): Reply {
  const body = {
    id,
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content: anthropicBlocks(text, calls),
    stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
  return { headers: { ...JSON_TYPE, 'x-fake-reply': id }, body: JSON.stringify(body) };
}

function anthropicStreamOf(id: string, text: string | undefined, calls: Calls): Reply {
  const message = {
    id,
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 1 },
  };
  const events: { event: string; data: unknown }[] = [
    { event: 'message_start', data: { type: 'message_start', message } },
  ];
  anthropicBlocks(text, calls).forEach((b, index) => {
    const start = b.type === 'text' ? { type: 'text', text: '' } : { ...b, input: {} };
    const delta =
      b.type === 'text'
        ? { type: 'text_delta', text: (b as { text: string }).text }
        : { type: 'input_json_delta', partial_json: JSON.stringify((b as { input: unknown }).input) };
    events.push(
      { event: 'content_block_start', data: { type: 'content_block_start', index, content_block: start } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index } },
    );
  });
  events.push(
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
        usage: { output_tokens: 5 },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  );
  return { headers: { ...SSE, 'x-fake-reply': id }, chunks: sse(events) };
}

function chatJson(id: string, text: string | undefined, calls: Calls): Reply {
  const message = {
    role: 'assistant',
    content: text ?? null,
    refusal: null,
    ...(calls.length > 0
      ? {
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: JSON.stringify(c.args) },
          })),
        }
      : {}),
  };
  const body = {
    id,
    object: 'chat.completion',
    created: 1700000000,
    model: 'gpt-test',
    choices: [{ index: 0, message, logprobs: null, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
  return { headers: { ...JSON_TYPE, 'x-fake-reply': id }, body: JSON.stringify(body) };
}

function chatStream(id: string, text: string | undefined, calls: Calls): Reply {
  const chunk = (delta: unknown, finish: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created: 1700000000,
    model: 'gpt-test',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const events: { data: unknown }[] = [{ data: chunk({ role: 'assistant', content: '' }) }];
  if (text) events.push({ data: chunk({ content: text }) });
  calls.forEach((c, index) => {
    events.push({
      data: chunk({
        tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }],
      }),
    });
    events.push({
      data: chunk({ tool_calls: [{ index, function: { arguments: JSON.stringify(c.args) } }] }),
    });
  });
  events.push({ data: chunk({}, calls.length > 0 ? 'tool_calls' : 'stop') }, { data: '[DONE]' });
  return { headers: { ...SSE, 'x-fake-reply': id }, chunks: sse(events) };
}

function responsesItems(id: string, text: string | undefined, calls: Calls) {
  return [
    ...(text
      ? [
          {
            type: 'message',
            id: `msg_${id}`,
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text, annotations: [] }],
          },
        ]
      : []),
    ...calls.map((c, i) => ({
      type: 'function_call',
      id: `fc_${id}_${i}`,
      call_id: c.id,
      name: c.name,
      arguments: JSON.stringify(c.args),
      status: 'completed',
    })),
  ];
}

const USAGE = {
  input_tokens: 10,
  output_tokens: 3,
  total_tokens: 13,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens_details: { reasoning_tokens: 0 },
};

function responsesJson(id: string, text: string | undefined, calls: Calls): Reply {
  const body = {
    id,
    object: 'response',
    created_at: 1700000000,
    status: 'completed',
    model: 'gpt-test',
    output: responsesItems(id, text, calls),
    usage: USAGE,
  };
  return { headers: { ...JSON_TYPE, 'x-fake-reply': id }, body: JSON.stringify(body) };
}

function responsesStreamOf(id: string, text: string | undefined, calls: Calls): Reply {
  const items = responsesItems(id, text, calls);
  const base = {
    id,
    object: 'response',
    created_at: 1700000000,
    model: 'gpt-test',
    output: [] as unknown[],
    usage: null,
  };
  let seq = 0;
  const ev = (type: string, rest: Record<string, unknown>) => ({
    event: type,
    data: { type, sequence_number: seq++, ...rest },
  });
  const events = [ev('response.created', { response: { ...base, status: 'in_progress' } })];
  items.forEach((item, output_index) => {
    events.push(
      ev('response.output_item.added', {
        output_index,
        item: item.type === 'message' ? { ...item, content: [] } : { ...item, arguments: '' },
      }),
    );
    if (item.type === 'message') {
      const part = { type: 'output_text', text: '', annotations: [] };
      const at = { output_index, content_index: 0, item_id: item.id };
      events.push(
        ev('response.content_part.added', { ...at, part }),
        ev('response.output_text.delta', { ...at, delta: text }),
        ev('response.output_text.done', { ...at, text }),
        ev('response.content_part.done', { ...at, part: { ...part, text } }),
      );
    } else
      events.push(
        ev('response.function_call_arguments.delta', {
          output_index,
          item_id: item.id,
          delta: (item as { arguments: string }).arguments,
        }),
      );
    events.push(ev('response.output_item.done', { output_index, item }));
  });
  events.push(
    ev('response.completed', { response: { ...base, status: 'completed', output: items, usage: USAGE } }),
  );
  return { headers: { ...SSE, 'x-fake-reply': id }, chunks: sse(events) };
}
