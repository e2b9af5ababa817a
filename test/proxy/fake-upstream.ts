/**
 * A scripted fake provider for proxy tests: a node:http server on 127.0.0.1 (port 0) that records
 * every request it gets (method, path, headers, raw body bytes) and answers with whatever the test's
 * script returns — by default a streamed Anthropic Messages reply or a streamed Responses reply,
 * built by the helpers below so a test can byte-compare what its client received. Reusable by any
 * suite (the hook suites' fake model server may fold into it).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  /** Path and query as received. */
  url: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
}

/** What to answer: status, headers and body (a Buffer, or chunks written with a pause between them). */
export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: Buffer | string;
  chunks?: (Buffer | string)[];
  /** Pause between chunks (ms). */
  gapMs?: number;
  /** Send a content-length for the chunks (else chunked): lets a byte tap find each body exactly. */
  sized?: boolean;
}

export type Script = (req: Recorded, index: number) => Reply | Promise<Reply>;

export interface FakeUpstream {
  url: string;
  requests: Recorded[];
  /** Requests whose response the client abandoned before it was complete. */
  aborted: number;
  close(): Promise<void>;
}

export async function startFakeUpstream(script: Script): Promise<FakeUpstream> {
  const requests: Recorded[] = [];
  const state = { aborted: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const rec: Recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks),
      };
      const index = requests.push(rec) - 1;
      try {
        await send(res, await script(rec, index), state);
      } catch {
        res.destroy();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get aborted() {
      return state.aborted;
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

async function send(res: ServerResponse, reply: Reply, state: { aborted: number }): Promise<void> {
  const size = reply.sized ? { 'content-length': String(replyBytes(reply).length) } : {};
  res.writeHead(reply.status ?? 200, { ...reply.headers, ...size });
  if (!reply.chunks) {
    res.end(reply.body ?? '');
    return;
  }
  let gone = false;
  res.on('close', () => {
    if (!res.writableFinished) {
      gone = true;
      state.aborted++;
    }
  });
  res.flushHeaders();
  for (const c of reply.chunks) {
    if (gone) return;
    res.write(c);
    if (reply.gapMs) await new Promise((r) => setTimeout(r, reply.gapMs));
  }
  res.end();
}

function sse(events: { event?: string; data: unknown }[]): string[] {
  return events.map((e) => `${e.event ? `event: ${e.event}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`);
}

/** A streamed Anthropic Messages reply: text, or a tool_use call (Claude Code then runs it). */
export function anthropicStream(
  content: { text: string } | { tool: { id: string; name: string; input: unknown } },
  id = 'msg_fake',
): Reply {
  const message = {
    id,
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 1 },
  };
  const isText = 'text' in content;
  const block = isText
    ? { type: 'text', text: '' }
    : { type: 'tool_use', id: content.tool.id, name: content.tool.name, input: {} };
  const delta = isText
    ? { type: 'text_delta', text: content.text }
    : { type: 'input_json_delta', partial_json: JSON.stringify(content.tool.input) };
  return {
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-fake-upstream': id },
    chunks: sse([
      { event: 'message_start', data: { type: 'message_start', message } },
      { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: block } },
      { event: 'ping', data: { type: 'ping' } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta } },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      {
        event: 'message_delta',
        data: {
          type: 'message_delta',
          delta: { stop_reason: isText ? 'end_turn' : 'tool_use', stop_sequence: null },
          usage: { output_tokens: 5 },
        },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]),
    gapMs: 2,
  };
}

/** A streamed Responses API reply: a message, or a function_call (Codex then runs it). */
export function responsesStream(
  content: { text: string } | { call: { callId: string; name: string; arguments: string } },
  id = 'resp_fake',
): Reply {
  const item =
    'text' in content
      ? {
          type: 'message',
          id: `msg_${id}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: content.text, annotations: [] }],
        }
      : {
          type: 'function_call',
          id: `fc_${id}`,
          call_id: content.call.callId,
          name: content.call.name,
          arguments: content.call.arguments,
          status: 'completed',
        };
  const response = { id, object: 'response', status: 'in_progress', output: [] as unknown[], usage: null };
  const usage = {
    input_tokens: 10,
    output_tokens: 3,
    total_tokens: 13,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens_details: { reasoning_tokens: 0 },
  };
  const events: { event?: string; data: unknown }[] = [
    { event: 'response.created', data: { type: 'response.created', response } },
    {
      event: 'response.output_item.added',
      data: { type: 'response.output_item.added', output_index: 0, item },
    },
  ];
  if ('text' in content)
    events.push({
      event: 'response.output_text.delta',
      data: {
        type: 'response.output_text.delta',
        output_index: 0,
        content_index: 0,
        item_id: item.id,
        delta: content.text,
      },
    });
  events.push(
    {
      event: 'response.output_item.done',
      data: { type: 'response.output_item.done', output_index: 0, item },
    },
    {
      event: 'response.completed',
      data: {
        type: 'response.completed',
        response: { ...response, status: 'completed', output: [item], usage },
      },
    },
  );
  return {
    headers: { 'content-type': 'text/event-stream', 'x-fake-upstream': id },
    chunks: sse(events),
    gapMs: 2,
  };
}

/** The bytes a streamed reply sends, concatenated (what a client must receive unchanged). */
export function replyBytes(reply: Reply): Buffer {
  if (reply.chunks) return Buffer.concat(reply.chunks.map((c) => Buffer.from(c)));
  return Buffer.from(reply.body ?? '');
}
