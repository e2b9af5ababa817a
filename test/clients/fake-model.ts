/**
 * Scripted model servers for the real clients, one per provider API, on 127.0.0.1 port 0: each turn
 * of the main conversation answers with the script's next tool call (or a closing text), and every
 * request body is recorded — the tool results in the request a client sends back are the ground
 * truth of what its model would read. Requests that are not the main conversation (titles, routing,
 * token counts) get a short text answer.
 *
 *   anthropic  POST /v1/messages            Messages API, SSE (or JSON when stream is false)
 *   responses  POST /v1/responses           OpenAI Responses API, SSE
 *   gemini     POST /v1beta/models/M:streamGenerateContent?alt=sse (and :generateContent)
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Provider = 'anthropic' | 'responses' | 'gemini';

/** One tool call the scripted model makes. */
export interface Call {
  name: string;
  input: Record<string, unknown>;
  /** Responses API: the namespace of a namespaced tool (Codex puts MCP servers' tools in one). */
  namespace?: string;
}

/** The next call, from the step number and the tool results the client has sent back so far. */
export type Script = (step: number, results: readonly string[]) => Call | undefined;

export interface FakeModel {
  url: string;
  /** Every request body received, parsed, in order. */
  requests: Record<string, unknown>[];
  close(): Promise<void>;
}

type Body = Record<string, unknown>;

export async function startFakeModel(provider: Provider, script: Script): Promise<FakeModel> {
  const requests: Body[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      let body: Body = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body;
      } catch {
        // not JSON: answered below like any side request
      }
      requests.push(body);
      try {
        answer(provider, script, req, body, res);
      } catch (err) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(err) } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(provider: Provider, script: Script, req: IncomingMessage, body: Body, res: ServerResponse) {
  if (provider === 'anthropic') return anthropic(script, body, res);
  if (provider === 'responses') return responses(script, body, res);
  return gemini(script, req, body, res);
}

function sse(res: ServerResponse, events: [string | undefined, unknown][]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [event, data] of events) {
    res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  }
  res.end();
}

/** Text of a tool result's content as the model reads it (string or text blocks). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((b) =>
        b && typeof b === 'object' && typeof (b as { text?: unknown }).text === 'string'
          ? (b as { text: string }).text
          : '',
      )
      .join('');
  }
  return '';
}

// ---- Anthropic Messages -------------------------------------------------------------------------

function anthropic(script: Script, body: Body, res: ServerResponse): void {
  const tools = Array.isArray(body.tools) ? (body.tools as { name?: string }[]) : [];
  // Claude Code's shell tool is Bash, OpenCode's bash.
  const main = tools.some((t) => t.name === 'Bash' || t.name === 'bash');
  const messages = Array.isArray(body.messages)
    ? (body.messages as { role: string; content: unknown }[])
    : [];
  const step = messages.filter((m) => m.role === 'assistant').length;
  const results = messages.flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as { type?: string; content?: unknown }[])
          .filter((b) => b.type === 'tool_result')
          .map((b) => contentText(b.content))
      : [],
  );
  const call = main ? script(step, results) : undefined;
  const id = `msg_${step}_${Date.now()}`;
  type Block =
    | { type: 'tool_use'; id: string; name: string; input: unknown }
    | { type: 'text'; text: string };
  const content: Block[] = call
    ? [{ type: 'tool_use', id: `toolu_${step}`, name: call.name, input: call.input }]
    : [{ type: 'text', text: 'done' }];
  const stop = call ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: 10, output_tokens: 10 };
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content,
        stop_reason: stop,
        stop_sequence: null,
        usage,
      }),
    );
    return;
  }
  const events: [string, unknown][] = [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: body.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage,
        },
      },
    ],
  ];
  content.forEach((c, index) => {
    if (c.type === 'text') {
      events.push([
        'content_block_start',
        { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
      ]);
      events.push([
        'content_block_delta',
        { type: 'content_block_delta', index, delta: { type: 'text_delta', text: c.text } },
      ]);
    } else {
      events.push([
        'content_block_start',
        {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} },
        },
      ]);
      events.push([
        'content_block_delta',
        {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(c.input) },
        },
      ]);
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  events.push([
    'message_delta',
    {
      type: 'message_delta',
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: 10 },
    },
  ]);
  events.push(['message_stop', { type: 'message_stop' }]);
  sse(res, events);
}

// ---- OpenAI Responses ---------------------------------------------------------------------------

function responses(script: Script, body: Body, res: ServerResponse): void {
  const input = Array.isArray(body.input) ? (body.input as { type?: string; output?: unknown }[]) : [];
  const main = Array.isArray(body.tools) && body.tools.length > 0;
  const step = input.filter((i) => i.type === 'function_call' || i.type === 'custom_tool_call').length;
  const results = input
    .filter((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output')
    .map((i) => contentText(i.output));
  const call = main ? script(step, results) : undefined;
  const id = `resp_${step}_${Date.now()}`;
  const item = call
    ? {
        type: 'function_call',
        id: `fc_${step}`,
        call_id: `call_${step}`,
        name: call.name,
        ...(call.namespace !== undefined ? { namespace: call.namespace } : {}),
        arguments: JSON.stringify(call.input),
        status: 'completed',
      }
    : {
        type: 'message',
        id: `msg_${step}`,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'done', annotations: [] }],
      };
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  sse(res, [
    [
      'response.created',
      { type: 'response.created', response: { id, object: 'response', status: 'in_progress', output: [] } },
    ],
    [
      'response.output_item.added',
      { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress' } },
    ],
    ['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }],
    [
      'response.completed',
      {
        type: 'response.completed',
        response: { id, object: 'response', status: 'completed', output: [item], usage },
      },
    ],
  ]);
}

// ---- Gemini -------------------------------------------------------------------------------------

interface GeminiPart {
  text?: string;
  functionCall?: unknown;
  functionResponse?: { response?: { output?: unknown; error?: unknown } };
}

function gemini(script: Script, req: IncomingMessage, body: Body, res: ServerResponse): void {
  const url = req.url ?? '';
  if (url.includes(':countTokens')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ totalTokens: 10 }));
    return;
  }
  const contents = Array.isArray(body.contents)
    ? (body.contents as { role?: string; parts?: GeminiPart[] }[])
    : [];
  const main = Array.isArray(body.tools) && body.tools.length > 0 && url.includes('streamGenerateContent');
  const step = contents.filter(
    (c) => c.role === 'model' && (c.parts ?? []).some((p) => p.functionCall),
  ).length;
  const results = contents.flatMap((c) =>
    (c.parts ?? [])
      .filter((p) => p.functionResponse)
      .map((p) => contentText(p.functionResponse?.response?.output ?? p.functionResponse?.response?.error)),
  );
  const call = main ? script(step, results) : undefined;
  // Side requests (the model router) expect a JSON verdict in text.
  const text = main ? 'done' : '{"reasoning":"scripted","model_choice":"flash"}';
  const parts = call ? [{ functionCall: { name: call.name, args: call.input } }] : [{ text }];
  const chunk = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
  };
  if (url.includes('streamGenerateContent')) {
    sse(res, [[undefined, chunk]]);
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(chunk));
}
