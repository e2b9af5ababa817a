import { afterEach, describe, expect, it } from 'vitest';
import {
  type CompletionResult,
  complete,
  type ModelApi,
  type ModelEndpoint,
} from '../../../src/llm/client.js';
import {
  anthropicReply,
  type ModelServer,
  openaiReply,
  type ScriptedReply,
  startModelServer,
  textReply,
} from '../../llm-server.js';

const KEY = 'sk-cgtest-DO-NOT-LEAK-7f3a9c2e1b';
const REQ = { system: 'You shorten tool output.', prompt: 'line one\nline two' };

let servers: ModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serve(script: Parameters<typeof startModelServer>[0]): Promise<ModelServer> {
  const s = await startModelServer(script);
  servers.push(s);
  return s;
}

function endpoint(
  s: ModelServer,
  api: ModelApi = 'openai',
  over: Partial<ModelEndpoint> = {},
): ModelEndpoint {
  const baseUrl = api === 'anthropic' ? s.anthropicBaseUrl : s.openaiBaseUrl;
  return { api, model: 'test-model', baseUrl, apiKey: KEY, timeoutMs: 5000, maxOutputTokens: 2048, ...over };
}

function failure(r: CompletionResult): string {
  if (r.ok) throw new Error(`expected a failure, got text ${JSON.stringify(r.text)}`);
  return r.reason;
}

const serverError: ScriptedReply = { status: 500, body: { error: { message: 'overloaded' } } };

describe('complete over the OpenAI Chat Completions API', () => {
  it('returns the reply text and sends the model, both messages, max_tokens and a bearer key', async () => {
    const s = await serve([openaiReply('short version')]);
    const r = await complete(endpoint(s), REQ);
    expect(r).toMatchObject({ ok: true, text: 'short version', attempts: 1 });
    expect(s.requests).toHaveLength(1);
    const sent = s.requests[0]!;
    expect(sent.api).toBe('openai');
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.body).toEqual({
      model: 'test-model',
      messages: [
        { role: 'system', content: REQ.system },
        { role: 'user', content: REQ.prompt },
      ],
      max_tokens: 2048,
      temperature: 0,
    });
  });

  it('lets the request set max_tokens and tolerates a trailing slash on the base URL', async () => {
    const s = await serve([openaiReply('ok')]);
    const r = await complete(endpoint(s, 'openai', { baseUrl: `${s.openaiBaseUrl}/` }), {
      ...REQ,
      maxTokens: 77,
    });
    expect(r.ok).toBe(true);
    expect(s.requests[0]!.path).toBe('/v1/chat/completions');
    expect(s.requests[0]!.body).toMatchObject({ max_tokens: 77 });
  });

  it('joins a content given as a list of text parts', async () => {
    const parts = [
      { type: 'text', text: 'first ' },
      { type: 'image_url', image_url: { url: 'x' } },
      { type: 'text', text: 'second' },
    ];
    const s = await serve([{ body: { choices: [{ message: { role: 'assistant', content: parts } }] } }]);
    expect(await complete(endpoint(s), REQ)).toMatchObject({ ok: true, text: 'first second' });
  });
});

describe('complete with OpenAI reasoning models and the Responses API', () => {
  it('sends max_completion_tokens and no temperature to a reasoning model', async () => {
    const s = await serve([openaiReply('ok')]);
    const r = await complete(endpoint(s, 'openai', { model: 'gpt-5-mini' }), REQ);
    expect(r.ok).toBe(true);
    const body = s.requests[0]!.body as Record<string, unknown>;
    expect(body.max_completion_tokens).toBe(2048);
    expect(body).not.toHaveProperty('max_tokens');
    expect(body).not.toHaveProperty('temperature');
  });

  it('answers a 400 about max_tokens once more in the other dialect', async () => {
    const s = await serve([
      {
        status: 400,
        body: { error: { message: "Unsupported parameter: 'max_tokens'. Use 'max_completion_tokens'." } },
      },
      openaiReply('second time'),
    ]);
    const r = await complete(endpoint(s, 'openai', { model: 'my-proxy-model' }), REQ);
    expect(r).toMatchObject({ ok: true, text: 'second time', attempts: 2 });
    expect(s.requests[0]!.body).toHaveProperty('max_tokens');
    expect(s.requests[1]!.body).toHaveProperty('max_completion_tokens');
  });

  it('asks the Responses API with instructions, input and max_output_tokens, and reads its message text', async () => {
    const t = await serve(textReply('from responses'));
    const r = await complete(endpoint(t, 'responses', { model: 'gpt-5-codex' }), REQ);
    expect(r).toMatchObject({ ok: true, text: 'from responses' });
    expect(t.requests[0]!.path).toBe('/v1/responses');
    expect(t.requests[0]!.body).toMatchObject({
      model: 'gpt-5-codex',
      instructions: REQ.system,
      input: REQ.prompt,
      max_output_tokens: 2048,
    });
  });
});

describe('complete over the Anthropic Messages API', () => {
  it('returns the reply text and sends x-api-key, the version header, system and max_tokens', async () => {
    const s = await serve([anthropicReply('short version')]);
    const r = await complete(endpoint(s, 'anthropic'), REQ);
    expect(r).toMatchObject({ ok: true, text: 'short version', attempts: 1 });
    const sent = s.requests[0]!;
    expect(sent.api).toBe('anthropic');
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe(KEY);
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toEqual({
      model: 'test-model',
      max_tokens: 2048,
      system: REQ.system,
      messages: [{ role: 'user', content: REQ.prompt }],
      temperature: 0,
    });
  });

  it('does not double /v1 when the base URL already ends with it', async () => {
    const s = await serve(textReply('ok'));
    const r = await complete(endpoint(s, 'anthropic', { baseUrl: `${s.url}/v1/` }), REQ);
    expect(r.ok).toBe(true);
    expect(s.requests[0]!.path).toBe('/v1/messages');
  });

  it('joins the text blocks and skips the others', async () => {
    const content = [
      { type: 'thinking', thinking: 'hmm', signature: 'x' },
      { type: 'text', text: 'a' },
      { type: 'text', text: 'b' },
    ];
    const s = await serve([{ body: { type: 'message', content } }]);
    expect(await complete(endpoint(s, 'anthropic'), REQ)).toMatchObject({ ok: true, text: 'ab' });
  });
});

describe('complete when things go wrong', () => {
  it('gives up after the timeout without retrying, having sent one request', async () => {
    const s = await serve([{ ...openaiReply('late'), delayMs: 3000 }, openaiReply('never asked')]);
    const r = await complete(endpoint(s, 'openai', { timeoutMs: 200 }), REQ);
    expect(failure(r)).toBe('model request timed out after 200 ms');
    expect(r.attempts).toBe(1);
    expect(r.ms).toBeLessThan(1500);
    expect(s.requests).toHaveLength(1);
  });

  it('retries once after a 500 and succeeds', async () => {
    const s = await serve([serverError, openaiReply('second time lucky')]);
    const r = await complete(endpoint(s), REQ);
    expect(r).toMatchObject({ ok: true, text: 'second time lucky', attempts: 2 });
    expect(s.requests).toHaveLength(2);
  });

  it('waits for Retry-After before retrying a 429', async () => {
    const limited: ScriptedReply = {
      status: 429,
      headers: { 'retry-after': '1' },
      body: { error: { message: 'slow down' } },
    };
    const s = await serve([limited, anthropicReply('ok')]);
    const r = await complete(endpoint(s, 'anthropic'), REQ);
    expect(r).toMatchObject({ ok: true, attempts: 2 });
    expect(r.ms).toBeGreaterThanOrEqual(950);
  });

  it('caps a long Retry-After at two seconds', async () => {
    const s = await serve([{ status: 429, headers: { 'retry-after': '3600' } }, openaiReply('ok')]);
    const r = await complete(endpoint(s), REQ);
    expect(r).toMatchObject({ ok: true, attempts: 2 });
    expect(r.ms).toBeGreaterThanOrEqual(1900);
    expect(r.ms).toBeLessThan(4000);
  });

  it('fails after two attempts when the server answers 500 twice', async () => {
    const s = await serve([serverError, serverError, openaiReply('never asked')]);
    const r = await complete(endpoint(s), REQ);
    expect(failure(r)).toBe('model server answered HTTP 500: overloaded');
    expect(r.attempts).toBe(2);
    expect(s.requests).toHaveLength(2);
  });

  it('does not retry a client error such as 400', async () => {
    const s = await serve([{ status: 400, body: { error: { message: 'bad model' } } }, openaiReply('x')]);
    const r = await complete(endpoint(s), REQ);
    expect(failure(r)).toBe('model server answered HTTP 400: bad model');
    expect(r.attempts).toBe(1);
  });

  it('reports a body that is not JSON without quoting it', async () => {
    const s = await serve([{ raw: '<html>proxy error: line one</html>' }]);
    const r = await complete(endpoint(s), REQ);
    expect(failure(r)).toBe('model reply was not JSON');
    expect(r.attempts).toBe(1);
  });

  it('reports JSON that carries no text, or only empty text', async () => {
    const s = await serve([
      { body: { choices: [] } },
      openaiReply('  \n'),
      { body: { content: 'not blocks' } },
    ]);
    expect(failure(await complete(endpoint(s), REQ))).toBe('model reply had no text');
    expect(failure(await complete(endpoint(s), REQ))).toBe('model reply had no text');
    expect(failure(await complete(endpoint(s, 'anthropic'), REQ))).toBe('model reply had no text');
  });

  it('retries once when the server drops the connection', async () => {
    const s = await serve([{ destroy: true }, openaiReply('after the drop')]);
    const r = await complete(endpoint(s), REQ);
    expect(r).toMatchObject({ ok: true, text: 'after the drop', attempts: 2 });
  });

  it('fails after two dropped connections', async () => {
    const s = await serve([{ destroy: true }, { destroy: true }]);
    const r = await complete(endpoint(s), REQ);
    expect(failure(r)).toMatch(/^model server dropped the connection \(\w+\)$/);
    expect(r.attempts).toBe(2);
  });

  it('reports a server that is not there, without retrying', async () => {
    const s = await serve([]);
    const url = s.openaiBaseUrl;
    await s.close();
    const r = await complete({ ...endpoint(s), baseUrl: url }, REQ);
    expect(failure(r)).toMatch(/^model server unreachable at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)$/);
    expect(r.attempts).toBe(1);
  });

  it('stops when the caller aborts', async () => {
    const s = await serve([{ ...openaiReply('late'), delayMs: 3000 }]);
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 100);
    const r = await complete(endpoint(s), REQ, { signal: ctl.signal });
    expect(failure(r)).toBe('model request was aborted');
    expect(r.ms).toBeLessThan(1500);
  });

  it('uses an injected fetch', async () => {
    const fake = (async () => new Response(JSON.stringify(openaiReply('injected').body))) as typeof fetch;
    const r = await complete({ ...endpoint(await serve([])), baseUrl: 'http://unused.invalid/v1' }, REQ, {
      fetch: fake,
    });
    expect(r).toMatchObject({ ok: true, text: 'injected', attempts: 1 });
  });
});

describe('complete keeps the API key secret', () => {
  it('never puts the key, or a prefix of it, in any failure reason', async () => {
    const echo = (status: number, message: string): ScriptedReply => ({
      status,
      body: { error: { message } },
    });
    const long = `${'x'.repeat(90)} key=${KEY}`;
    const scenarios: { replies: ScriptedReply[]; over?: Partial<ModelEndpoint>; api?: ModelApi }[] = [
      { replies: [echo(401, `Incorrect API key provided: ${KEY}`)] },
      { replies: [echo(401, long)], api: 'anthropic' },
      { replies: [echo(500, KEY), echo(503, `${KEY} ${KEY}`)] },
      { replies: [{ status: 200, body: { error: { message: KEY } } }] },
      { replies: [{ raw: KEY }] },
      { replies: [{ ...openaiReply(KEY), delayMs: 2000 }], over: { timeoutMs: 100 } },
      { replies: [{ destroy: true }, { destroy: true }] },
      { replies: [], over: { apiKey: `${KEY}\n\u00e9` } },
      { replies: [], over: { apiKey: `${KEY}€` } },
    ];
    for (const sc of scenarios) {
      const s = await serve(sc.replies);
      const r = await complete(endpoint(s, sc.api ?? 'openai', sc.over), REQ);
      const reason = failure(r);
      expect(reason).not.toContain(KEY.slice(0, 12));
      expect(reason).not.toMatch(/\n/);
    }
  });

  it('quotes at most about 100 characters of an error message', async () => {
    const s = await serve([{ status: 400, body: { error: { message: `${'y'.repeat(500)} line one` } } }]);
    const reason = failure(await complete(endpoint(s), REQ));
    expect(reason.length).toBeLessThan(140);
    expect(reason).not.toContain('line one');
  });
});
