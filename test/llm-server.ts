/**
 * A real HTTP model server on 127.0.0.1 for tests, speaking OpenAI Chat Completions
 * (POST /v1/chat/completions), OpenAI Responses (POST /v1/responses) and Anthropic Messages
 * (POST /v1/messages), answering from a script.
 *
 * A script is a function of (request, index) or an array whose entry i answers request i (past the
 * end: HTTP 500). Every request is recorded, parsed, before it is answered. Any other route is api
 * 'unknown' and answered 404 unless the script's reply sets a status. close() never waits for
 * delayed replies: pending timers are cleared and every open socket is destroyed.
 *
 * Each reply helper reports usage the way its API does (12 in, 5 out unless given); `null` leaves
 * the usage out, as some compatible servers do.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  api: 'openai' | 'anthropic' | 'responses' | 'unknown';
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or the raw string when the body is not JSON. */
  body: unknown;
}

export interface ScriptedReply {
  status?: number;
  body?: unknown;
  /** Sent as-is instead of JSON. */
  raw?: string;
  delayMs?: number;
  headers?: Record<string, string>;
  /** Drop the connection instead of answering (after delayMs). */
  destroy?: boolean;
}

export type Script = (req: RecordedRequest, index: number) => ScriptedReply | Promise<ScriptedReply>;

export interface ModelServer {
  /** http://127.0.0.1:PORT */
  url: string;
  /** url + '/v1', like OPENAI_BASE_URL. */
  openaiBaseUrl: string;
  /** url, like ANTHROPIC_BASE_URL. */
  anthropicBaseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startModelServer(script: Script | ScriptedReply[]): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const pick: Script = Array.isArray(script)
    ? (_req, i) =>
        script[i] ?? { status: 500, body: { error: { message: `no scripted reply for request ${i}` } } }
    : script;

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const recorded: RecordedRequest = {
      api: routeOf(req.method, req.url),
      path: req.url ?? '',
      headers: { ...req.headers },
      body: parseBody(Buffer.concat(chunks).toString('utf8')),
    };
    const index = requests.push(recorded) - 1;
    const reply = await pick(recorded, index);
    if (reply.delayMs) await wait(reply.delayMs);
    if (res.destroyed || req.socket.destroyed) return;
    if (reply.destroy) {
      req.socket.destroy();
      return;
    }
    const status = reply.status ?? (recorded.api === 'unknown' ? 404 : 200);
    const body =
      reply.raw ?? JSON.stringify(reply.body ?? (status === 404 ? { error: { message: 'not found' } } : {}));
    const type = reply.raw === undefined ? 'application/json' : 'text/plain';
    res.writeHead(status, { 'content-type': type, ...reply.headers });
    res.end(body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Usage as a Chat Completions reply reports it. */
export type OpenAIUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens: number };
};
/** Usage as a Messages reply reports it: input_tokens is only the uncached part. */
export type AnthropicUsage = {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
};
/** Usage as a Responses reply reports it. */
export type ResponsesUsage = {
  input_tokens: number;
  output_tokens: number;
  total_tokens?: number;
  input_tokens_details?: { cached_tokens: number };
};

/** A realistic `chat.completion` reply. */
export function openaiReply(
  text: string,
  usage: OpenAIUsage | null = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
): ScriptedReply {
  return {
    body: {
      id: 'chatcmpl-test0001',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'gpt-test',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: text, refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      ...(usage ? { usage } : {}),
    },
  };
}

/** A realistic Messages API `message` reply. */
export function anthropicReply(
  text: string,
  usage: AnthropicUsage | null = { input_tokens: 12, output_tokens: 5 },
): ScriptedReply {
  return {
    body: {
      id: 'msg_test0001',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      ...(usage ? { usage } : {}),
    },
  };
}

/** A realistic Responses API `response` reply (a reasoning item, then the message). */
export function responsesReply(
  text: string,
  usage: ResponsesUsage | null = { input_tokens: 12, output_tokens: 5, total_tokens: 17 },
): ScriptedReply {
  return {
    body: {
      id: 'resp_test0001',
      object: 'response',
      status: 'completed',
      model: 'gpt-test',
      output: [
        { type: 'reasoning', id: 'rs_1', summary: [] },
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text, annotations: [] }],
        },
      ],
      ...(usage ? { usage } : {}),
    },
  };
}

/** Answers each API with its own reply shape; anything else 404. */
export function textReply(text: string): Script {
  return (req) => {
    if (req.api === 'openai') return openaiReply(text);
    if (req.api === 'responses') return responsesReply(text);
    if (req.api === 'anthropic') return anthropicReply(text);
    return { status: 404, body: { error: { message: 'not found' } } };
  };
}

function routeOf(method: string | undefined, url: string | undefined): RecordedRequest['api'] {
  if (method !== 'POST') return 'unknown';
  const path = (url ?? '').split('?')[0];
  if (path === '/v1/chat/completions') return 'openai';
  if (path === '/v1/messages') return 'anthropic';
  if (path === '/v1/responses') return 'responses';
  return 'unknown';
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
