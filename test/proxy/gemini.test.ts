/**
 * The Gemini API through cg proxy, with a fake Gemini upstream: a conversation's body (the shape
 * Gemini CLI 0.61.0 sends) is compacted on streamGenerateContent and generateContent, the key and
 * the query go on to the Gemini upstream as they came, countTokens passes through untouched, and a
 * streamed answer reaches the client event by event, before the upstream has finished.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyOf } from '../../src/store/keys.js';
import { type FakeUpstream, startFakeUpstream } from './fake-upstream.js';
import { send, startTestProxy, type TestProxy } from './harness.js';

const KEY = 'AIzaSyD-testkey0123456789abcdefgh';
const LOG = Array.from(
  { length: 3000 },
  (_, i) => `2026-12-03T06:${String(i % 60).padStart(2, '0')} INFO request ${i * 7919} ok`,
).join('\n');
const OUTPUT = `<untrusted_context>\nOutput: ${LOG}\nProcess Group PGID: 41\n</untrusted_context>`;

function body(output: string): string {
  return JSON.stringify({
    contents: [
      { role: 'user', parts: [{ text: 'Read the log.' }] },
      {
        role: 'model',
        parts: [{ functionCall: { id: 'c1', name: 'run_shell_command', args: { command: 'cat app.log' } } }],
      },
      {
        role: 'user',
        parts: [{ functionResponse: { id: 'c1', name: 'run_shell_command', response: { output } } }],
      },
    ],
    systemInstruction: { role: 'user', parts: [{ text: 'You are Gemini CLI.' }] },
    tools: [{ functionDeclarations: [{ name: 'run_shell_command' }] }],
    generationConfig: { temperature: 0 },
  });
}

const STREAM = '/v1beta/models/gemini-test:streamGenerateContent?alt=sse';
const chunk = (text: string) =>
  `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text }] } }] })}\r\n\r\n`;

describe('cg proxy: the Gemini API', () => {
  let upstream: FakeUpstream;
  let p: TestProxy;

  beforeAll(async () => {
    upstream = await startFakeUpstream(() => ({
      headers: { 'content-type': 'text/event-stream' },
      chunks: [chunk('one'), chunk('two')],
    }));
    p = await startTestProxy({ gemini: upstream.url });
  });
  afterAll(async () => {
    await p.close();
    await upstream.close();
  });

  it('compacts the newest tool output of a streamGenerateContent body, with a marker whose original is in the store', async () => {
    const raw = body(OUTPUT);
    const res = await send(p.url, STREAM, raw, { 'x-goog-api-key': KEY });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe(chunk('one') + chunk('two'));
    const got = upstream.requests.at(-1)!;
    expect(got.url).toBe(STREAM);
    expect(got.headers['x-goog-api-key']).toBe(KEY);
    const sent = got.body.toString();
    expect(sent.length).toBeLessThan(raw.length / 4);
    const parsed = JSON.parse(sent) as {
      contents: { parts: { functionResponse?: { response: { output: string } } }[] }[];
    };
    const text = parsed.contents[2]!.parts[0]!.functionResponse!.response.output;
    const key = /<<cg:([0-9a-f]{16})>>/.exec(text)?.[1];
    expect(key).toBeDefined();
    const original = await p.store.get(key!);
    expect(original && Buffer.from(original).toString()).toBe(OUTPUT);
    expect(key).toBe(keyOf(OUTPUT));
    // Everything else in the body is the client's own bytes.
    expect(JSON.parse(raw).contents.slice(0, 2)).toEqual(parsed.contents.slice(0, 2));
    expect(sent.slice(sent.indexOf('"systemInstruction"'))).toBe(
      raw.slice(raw.indexOf('"systemInstruction"')),
    );
  });

  it('compacts generateContent too, and keeps a key given in the query', async () => {
    const path = `/v1beta/models/gemini-test:generateContent?key=${KEY}`;
    const res = await send(p.url, path, body(OUTPUT));
    expect(res.status).toBe(200);
    const got = upstream.requests.at(-1)!;
    expect(got.url).toBe(path);
    expect(got.body.length).toBeLessThan(body(OUTPUT).length / 4);
  });

  it('passes countTokens and every other Gemini route through as it came', async () => {
    const raw = body(OUTPUT);
    const path = '/v1beta/models/gemini-test:countTokens';
    await send(p.url, path, raw, { 'x-goog-api-key': KEY });
    const got = upstream.requests.at(-1)!;
    expect(got.url).toBe(path);
    expect(got.body.toString()).toBe(raw);
  });

  it("answers a Google key on another provider's route itself, in Google's error shape", async () => {
    const before = upstream.requests.length;
    const res = await send(p.url, '/v1/messages', '{}', { 'x-goog-api-key': KEY });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body.toString())).toEqual({
      error: { code: 404, message: expect.stringMatching(/no route of Google/), status: 'NOT_FOUND' },
    });
    expect(upstream.requests.length).toBe(before);
  });
});

describe('cg proxy: a Gemini stream is not buffered', () => {
  let release: () => void = () => {};
  let server: Server;
  let p: TestProxy;

  beforeAll(async () => {
    const gate = new Promise<void>((r) => {
      release = r;
    });
    server = createServer((req, res) => {
      req.resume();
      req.on('end', async () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk('first'));
        // The second event waits until the client has read the first one through the proxy.
        await gate;
        res.end(chunk('second'));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    p = await startTestProxy({ gemini: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  });
  afterAll(async () => {
    release();
    await p.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('hands the client each event as the upstream sends it', async () => {
    const res = await fetch(`${p.url}${STREAM}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY },
      body: body('short output'),
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    while (!seen.includes('first')) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += decoder.decode(value, { stream: true });
    }
    expect(seen).toBe(chunk('first'));
    release();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += decoder.decode(value, { stream: true });
    }
    expect(seen).toBe(chunk('first') + chunk('second'));
  });
});
