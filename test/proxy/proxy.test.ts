import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { agentSession, turnOf } from '../../bench/proxy-sessions.mjs';
import { createFsStore } from '../../src/store/fs-store.js';
import type { Store } from '../../src/store/store.js';
import { tempDir } from '../helpers.js';
import {
  anthropicStream,
  type FakeUpstream,
  replyBytes,
  responsesStream,
  startFakeUpstream,
} from './fake-upstream.js';
import { failingStore, send, startTestProxy, type TestProxy } from './harness.js';

const MARKER = /<<cg:([0-9a-f]{16})>>/g;
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});
async function upstream(script: Parameters<typeof startFakeUpstream>[0]): Promise<FakeUpstream> {
  const u = await startFakeUpstream(script);
  open.push(u);
  return u;
}
async function proxy(o: Parameters<typeof startTestProxy>[0]): Promise<TestProxy> {
  const p = await startTestProxy(o);
  open.push(p);
  return p;
}
const toolTexts = (body: { messages: { content: unknown }[] }): string[] =>
  body.messages.flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as { type: string; content?: unknown }[])
          .filter((b) => b.type === 'tool_result')
          .map((b) => String(b.content))
      : [],
  );

describe('cg proxy: Anthropic Messages', () => {
  it('sends compacted tool results with markers upstream, each expanding to the exact original', async () => {
    const reply = anthropicStream({ text: 'done' });
    const up = await upstream(() => reply);
    const p = await proxy({ anthropic: up.url });
    const body = agentSession(40);
    const res = await send(p.url, '/v1/messages?beta=true', JSON.stringify(body), { 'x-api-key': 'sk-test' });
    expect(res.status).toBe(200);
    expect(up.requests).toHaveLength(1);
    expect(up.requests[0]!.url).toBe('/v1/messages?beta=true');
    const sent = JSON.parse(up.requests[0]!.body.toString('utf8'));
    const before = toolTexts(body);
    const after = toolTexts(sent);
    const markers = after.join('\n').match(MARKER) ?? [];
    expect(markers.length).toBeGreaterThan(20);
    expect(up.requests[0]!.body.length).toBeLessThan(JSON.stringify(body).length * 0.7);
    for (const [i, text] of after.entries()) {
      const key = /<<cg:([0-9a-f]{16})>>/.exec(text)?.[1];
      if (!key) expect(text).toBe(before[i]);
      else expect((await p.store.get(key))?.toString('utf8')).toBe(before[i]);
    }
    expect(Number(up.requests[0]!.headers['content-length'])).toBe(up.requests[0]!.body.length);
  });

  it("gives the client the upstream's SSE stream byte for byte, with its status and headers", async () => {
    const reply = anthropicStream({ text: 'streamed answer' });
    const up = await upstream(() => ({ ...reply, status: 201 }));
    const p = await proxy({ anthropic: up.url });
    const res = await send(p.url, '/v1/messages', JSON.stringify(agentSession(5)), { 'x-api-key': 'k' });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-fake-upstream')).toBe('msg_fake');
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.body.equals(replyBytes(reply))).toBe(true);
  });

  it('streams unbuffered: the client has the first event before the upstream writes the second', async () => {
    let clientGotFirst!: () => void;
    const first = new Promise<void>((r) => {
      clientGotFirst = r;
    });
    const { createServer } = await import('node:http');
    const slow = createServer((req, res) => {
      req.resume();
      req.on('end', async () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: one\ndata: {}\n\n');
        await first;
        res.end('event: two\ndata: {}\n\n');
      });
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', () => r()));
    open.push({ close: () => new Promise<void>((r) => slow.close(() => r())) });
    const port = (slow.address() as { port: number }).port;
    const p = await proxy({ anthropic: `http://127.0.0.1:${port}` });
    const res = await fetch(`${p.url}/v1/messages`, {
      method: 'POST',
      body: '{"messages":[]}',
      headers: { 'x-api-key': 'k' },
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    expect(text).toBe('event: one\ndata: {}\n\n');
    clientGotFirst();
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value);
    expect(text).toBe('event: one\ndata: {}\n\nevent: two\ndata: {}\n\n');
  });

  it('passes count_tokens, other routes and other methods through unchanged', async () => {
    const up = await upstream((r) => ({
      headers: { 'content-type': 'application/json' },
      body: `{"echo":"${r.method} ${r.url}"}`,
    }));
    const p = await proxy({ anthropic: up.url, openai: up.url });
    const body = JSON.stringify(agentSession(30));
    const counted = await send(p.url, '/v1/messages/count_tokens?beta=true', body, {
      'anthropic-version': '2023-06-01',
    });
    expect(counted.body.toString()).toBe('{"echo":"POST /v1/messages/count_tokens?beta=true"}');
    expect(up.requests[0]!.body.equals(Buffer.from(body))).toBe(true);
    await send(p.url, '/v1/models', '', { 'anthropic-version': '2023-06-01' }, 'GET');
    expect(up.requests[1]!.method).toBe('GET');
    expect(up.requests[1]!.url).toBe('/v1/models');
    await send(p.url, '/v1/messages', body, { 'x-api-key': 'k' }, 'PUT');
    expect(up.requests[2]!.body.equals(Buffer.from(body))).toBe(true);
  });

  it('forwards auth and API headers but not hop-by-hop ones', async () => {
    const up = await upstream(() => anthropicStream({ text: 'x' }));
    const p = await proxy({ anthropic: up.url });
    const { request } = await import('node:http');
    await new Promise<void>((resolve, reject) => {
      const req = request(`${p.url}/v1/messages`, {
        method: 'POST',
        headers: {
          'x-api-key': 'sk-secret',
          authorization: 'Bearer tok',
          'anthropic-version': '2023-06-01',
          'anthropic-beta': 'claude-code-20250219',
          'x-custom': 'kept',
          'x-private-hop': 'dropped',
          connection: 'keep-alive, x-private-hop',
          'keep-alive': 'timeout=5',
          te: 'trailers',
        },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end('{"messages":[]}');
    });
    const h = up.requests[0]!.headers;
    expect(h['x-api-key']).toBe('sk-secret');
    expect(h.authorization).toBe('Bearer tok');
    expect(h['anthropic-version']).toBe('2023-06-01');
    expect(h['anthropic-beta']).toBe('claude-code-20250219');
    expect(h['x-custom']).toBe('kept');
    expect(h['x-private-hop']).toBeUndefined();
    expect(h['keep-alive']).toBeUndefined();
    expect(h.te).toBeUndefined();
    expect(p.log.join('\n')).not.toContain('sk-secret');
    expect(p.log.join('\n')).not.toContain('Bearer tok');
  });

  it.each([
    ['gzip', gzipSync],
    ['br', brotliCompressSync],
  ])(
    'decodes a %s request body, compacts it and sends it plain with its own content-length',
    async (encoding, encode) => {
      const up = await upstream(() => anthropicStream({ text: 'x' }));
      const p = await proxy({ anthropic: up.url });
      const plain = JSON.stringify(agentSession(40));
      await send(p.url, '/v1/messages', encode(Buffer.from(plain)), {
        'content-encoding': encoding,
        'x-api-key': 'k',
      });
      const got = up.requests[0]!;
      expect(got.headers['content-encoding']).toBeUndefined();
      expect(Number(got.headers['content-length'])).toBe(got.body.length);
      expect(got.body.toString()).toMatch(MARKER);
    },
  );

  it('forwards a compressed body it leaves unchanged exactly as it came, encoding included', async () => {
    const up = await upstream(() => anthropicStream({ text: 'x' }));
    const p = await proxy({ anthropic: up.url });
    const packed = gzipSync(Buffer.from('{"model":"m","messages":[{"role":"user","content":"hi"}]}'));
    await send(p.url, '/v1/messages', packed, { 'content-encoding': 'gzip', 'x-api-key': 'k' });
    expect(up.requests[0]!.body.equals(packed)).toBe(true);
    expect(up.requests[0]!.headers['content-encoding']).toBe('gzip');
  });

  it('never puts more than four cache_control breakpoints in a body', async () => {
    const up = await upstream(() => anthropicStream({ text: 'x' }));
    const p = await proxy({ anthropic: up.url });
    const body = agentSession(12);
    // The system already has one; three more on earlier messages make four.
    for (const i of [2, 4, 6]) {
      const blocks = body.messages[i]!.content as Record<string, unknown>[];
      blocks[blocks.length - 1]!.cache_control = { type: 'ephemeral' };
    }
    await send(p.url, '/v1/messages', JSON.stringify(body), { 'x-api-key': 'k' });
    const sent = up.requests[0]!.body.toString();
    expect(sent.match(/"cache_control"/g)).toHaveLength(4);
  });
});

describe('cg proxy: sessions', () => {
  it("keeps every earlier message byte-identical across turns, under the client's session id", async () => {
    const up = await upstream(() => anthropicStream({ text: 'ok' }));
    const p = await proxy({ anthropic: up.url });
    const body = agentSession(60, { session: '11111111-2222-4333-8444-555555555555' });
    const ends = body.messages.flatMap((m, i) => (m.role === 'user' ? [i] : []));
    let previous: unknown[] | undefined;
    let stable = 0;
    for (const end of ends.slice(-30)) {
      await send(p.url, '/v1/messages', JSON.stringify(turnOf(body, end)), { 'x-api-key': 'k' });
      const sent = JSON.parse(up.requests.at(-1)!.body.toString()).messages as unknown[];
      const strip = (m: unknown) => JSON.stringify(m, (k, v) => (k === 'cache_control' ? undefined : v));
      if (previous?.every((m, i) => strip(m) === strip(sent[i]))) stable++;
      previous = sent;
    }
    expect(stable).toBeGreaterThanOrEqual(27);
    expect(p.compacted.at(-1)!.session).toBe('11111111-2222-4333-8444-555555555555');
  });
});

describe('cg proxy: retries', () => {
  it("answers a client's retry of the same body with the same bytes, without compacting it again", async () => {
    const up = await upstream(() => anthropicStream({ text: 'ok' }));
    const p = await proxy({ anthropic: up.url });
    const body = JSON.stringify(agentSession(40));
    const h = { 'x-api-key': 'k', 'x-claude-code-session-id': 'retry-1' };
    await send(p.url, '/v1/messages', body, h);
    await send(p.url, '/v1/messages', body, h);
    expect(up.requests[1]!.body.equals(up.requests[0]!.body)).toBe(true);
    expect(up.requests[0]!.body.toString()).toMatch(MARKER);
    expect(p.compacted[0]!.events.length).toBeGreaterThan(0);
    expect(p.compacted[1]!.events).toHaveLength(0);
  });
});

describe('cg proxy: OpenAI', () => {
  it('compacts Responses function_call_output items and streams the reply back unchanged', async () => {
    const reply = responsesStream({ text: 'hi' });
    const up = await upstream(() => reply);
    const p = await proxy({ openai: up.url });
    const input: unknown[] = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix it' }] },
    ];
    for (let i = 0; i < 12; i++) {
      input.push({
        type: 'function_call',
        call_id: `c${i}`,
        name: 'shell',
        arguments: '{"command":["cat","f"]}',
      });
      input.push({ type: 'function_call_output', call_id: `c${i}`, output: `line ${i}\n`.repeat(400) });
    }
    const body = JSON.stringify({ model: 'gpt-5', stream: true, input, prompt_cache_key: 'conv-1' });
    const res = await send(p.url, '/v1/responses', body, { authorization: 'Bearer sk' });
    expect(res.body.equals(replyBytes(reply))).toBe(true);
    expect(up.requests[0]!.url).toBe('/v1/responses');
    expect(up.requests[0]!.body.toString()).toMatch(MARKER);
    expect(p.compacted[0]!.session).toBe('conv-1');
  });

  it('compacts Chat Completions tool messages', async () => {
    const up = await upstream(() => ({
      headers: { 'content-type': 'application/json' },
      body: '{"id":"chatcmpl"}',
    }));
    const p = await proxy({ openai: up.url });
    const messages: unknown[] = [{ role: 'user', content: 'fix it' }];
    for (let i = 0; i < 12; i++) {
      messages.push({
        role: 'assistant',
        tool_calls: [{ id: `t${i}`, type: 'function', function: { name: 'bash', arguments: '{}' } }],
      });
      messages.push({ role: 'tool', tool_call_id: `t${i}`, content: `row ${i}\n`.repeat(400) });
    }
    const res = await send(p.url, '/v1/chat/completions', JSON.stringify({ model: 'gpt-4.1', messages }), {
      authorization: 'Bearer sk',
    });
    expect(res.body.toString()).toBe('{"id":"chatcmpl"}');
    expect(up.requests[0]!.body.toString()).toMatch(MARKER);
  });
});

describe('cg proxy: failing open', () => {
  it("answers an unreachable upstream with a 502 in that provider's error shape", async () => {
    const p = await proxy({ anthropic: 'http://127.0.0.1:9', openai: 'http://127.0.0.1:9' });
    const a = await send(p.url, '/v1/messages', '{"messages":[]}', { 'x-api-key': 'k' });
    expect(a.status).toBe(502);
    const ae = JSON.parse(a.body.toString());
    expect(ae.type).toBe('error');
    expect(ae.error.type).toBe('api_error');
    expect(ae.error.message).toMatch(
      /cg proxy: upstream http:\/\/127\.0\.0\.1:9 unreachable \(ECONNREFUSED\)/,
    );
    const o = await send(p.url, '/v1/responses', '{"input":[]}', { authorization: 'Bearer k' });
    expect(o.status).toBe(502);
    expect(JSON.parse(o.body.toString()).error).toMatchObject({
      type: 'server_error',
      code: 'upstream_unreachable',
    });
  });

  it('forwards a body that is not JSON, or not a request, exactly as it came, and keeps serving', async () => {
    const up = await upstream(() => ({ body: 'ok' }));
    const p = await proxy({ anthropic: up.url });
    for (const bad of [
      '{"messages": [',
      'not json at all',
      '\u0000\u00ff binary',
      '{"messages":"x"}',
      '[]',
    ]) {
      const res = await send(p.url, '/v1/messages', Buffer.from(bad, 'latin1'), { 'x-api-key': 'k' });
      expect(res.status).toBe(200);
      expect(up.requests.at(-1)!.body.equals(Buffer.from(bad, 'latin1'))).toBe(true);
    }
    const ok = await send(p.url, '/v1/messages', JSON.stringify(agentSession(30)), { 'x-api-key': 'k' });
    expect(ok.status).toBe(200);
    expect(up.requests.at(-1)!.body.toString()).toMatch(MARKER);
  });

  it('forwards the original body when compaction misses its deadline', async () => {
    const up = await upstream(() => ({ body: 'ok' }));
    const p = await proxy({ anthropic: up.url, timeoutMs: 1 });
    const body = JSON.stringify(agentSession(400));
    await send(p.url, '/v1/messages', body, { 'x-api-key': 'k' });
    expect(up.requests[0]!.body.equals(Buffer.from(body))).toBe(true);
    expect(p.compacted[0]!.fellOpen).toMatch(/took over 1 ms/);
  });

  it('forwards the original body when an original could not be stashed, so no marker goes out unbacked', async () => {
    const up = await upstream(() => ({ body: 'ok' }));
    const failing = failingStore();
    const p = await proxy({ anthropic: up.url, store: failing });
    const body = JSON.stringify(agentSession(40));
    await send(p.url, '/v1/messages', body, { 'x-api-key': 'k' });
    expect(up.requests[0]!.body.equals(Buffer.from(body))).toBe(true);
    expect(p.compacted[0]!.fellOpen).toMatch(/store write failed \(unwritable: disk full\)/);
  });

  it("stores a request's originals as one batch, and sends nothing upstream before all of them are persisted", async () => {
    const up = await upstream(() => ({ body: 'ok' }));
    const disk = createFsStore({
      dir: tempDir('cg-proxy-batch-'),
      ttlDays: 14,
      maxBytes: 1 << 30,
      compress: true,
    });
    const batches: number[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const gated: Store = {
      ...disk,
      dir: disk.dir,
      put: async () => {
        throw new Error('one put at a time: a batch was expected');
      },
      putMany: async (items) => {
        batches.push(items.length);
        await held;
        return disk.putMany!(items);
      },
    };
    const p = await proxy({ anthropic: up.url, store: gated });
    const body = JSON.stringify(agentSession(40));
    const answer = send(p.url, '/v1/messages', body, { 'x-api-key': 'k' });
    await vi.waitFor(() => expect(batches).toHaveLength(1), { timeout: 20_000 });
    await new Promise((r) => setTimeout(r, 100));
    expect(up.requests).toHaveLength(0);
    release();
    await answer;
    const sent = up.requests[0]!.body.toString('utf8');
    const keys = [...sent.matchAll(MARKER)].map((m) => m[1]!);
    expect(keys.length).toBe(batches[0]);
    for (const k of keys) expect(await disk.get(k)).toBeDefined();
  });
});

describe('cg proxy: observe mode', () => {
  it('forwards every body unchanged while recording what would have been saved', async () => {
    const up = await upstream(() => ({ body: 'ok' }));
    const p = await proxy({ anthropic: up.url, observe: true });
    const body = JSON.stringify(agentSession(40));
    await send(p.url, '/v1/messages', body, { 'x-api-key': 'k' });
    expect(up.requests[0]!.body.equals(Buffer.from(body))).toBe(true);
    const rewrites = p.compacted[0]!.events.filter((e) => e.action === 'rewrite' && e.key);
    expect(rewrites.length).toBeGreaterThan(20);
    // Nothing was stashed: no marker left the proxy.
    expect(await p.store.get(rewrites[0]!.key!)).toBeUndefined();
  });
});

describe('cg proxy: concurrency and disconnects', () => {
  it('serves 50 concurrent streaming requests without mixing them, and holds no memory for them after', async () => {
    const up = await upstream((r) => {
      const id = /"session":"(s\d+)"/.exec(r.body.toString())?.[1] ?? 'none';
      return { ...anthropicStream({ text: `answer for ${id} `.repeat(50) }, `msg_${id}`), gapMs: 1 };
    });
    const p = await proxy({ anthropic: up.url });
    const round = async (n: number) =>
      Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const id = `s${n * 100 + i}`;
          const body = agentSession(6, { seed: n * 100 + i, session: id });
          (body as unknown as Record<string, unknown>).session = id;
          const res = await send(p.url, '/v1/messages', JSON.stringify(body), { 'x-cg-session': id });
          const expected = replyBytes({
            ...anthropicStream({ text: `answer for ${id} `.repeat(50) }, `msg_${id}`),
          });
          return res.body.equals(expected);
        }),
      );
    const { setFlagsFromString } = await import('node:v8');
    const { runInNewContext } = await import('node:vm');
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    // What the test itself keeps of each request (the upstream's copy, the proxy's report) is let
    // go after each round: only the proxy's own memory counts.
    let forwarded = 0;
    const settled = async (n: number) => {
      const ok = (await round(n)).every(Boolean);
      forwarded += up.requests.length;
      up.requests.length = 0;
      p.compacted.length = 0;
      return ok;
    };
    expect(await settled(0)).toBe(true);
    gc();
    const after1 = process.memoryUsage().heapUsed;
    for (let n = 1; n <= 4; n++) expect(await settled(n)).toBe(true);
    gc();
    const growth = process.memoryUsage().heapUsed - after1;
    // 200 more requests: what stays behind must be far less than even a few requests' bodies.
    expect(growth).toBeLessThan(8 * 1024 * 1024);
    expect(forwarded).toBe(250);
  });

  it("keeps no earlier turn's body alive over a long session", async () => {
    const up = await upstream(() => ({ body: 'ok' }));
    const p = await proxy({ anthropic: up.url });
    const { setFlagsFromString } = await import('node:v8');
    const { runInNewContext } = await import('node:vm');
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const body = agentSession(400);
    const ends = body.messages.flatMap((m, i) => (m.role === 'user' ? [i] : [])).slice(-26);
    let heapAt5 = 0;
    for (const [k, end] of ends.entries()) {
      await send(p.url, '/v1/messages', JSON.stringify(turnOf(body, end)), {
        'x-claude-code-session-id': 'long',
      });
      // What the test itself keeps is let go: only the proxy's own memory counts.
      up.requests.length = 0;
      p.compacted.length = 0;
      if (k === 5) {
        gc();
        heapAt5 = process.memoryUsage().heapUsed;
      }
    }
    gc();
    // 20 more turns of a ~0.5 MB body (two-byte text: ~1 MB a string): a turn kept alive each time
    // would add ~20 MB.
    expect(process.memoryUsage().heapUsed - heapAt5).toBeLessThan(8 * 1024 * 1024);
  });

  it('aborts the upstream request when the client goes away mid-stream', async () => {
    const reply = anthropicStream({ text: 'long' });
    const up = await upstream(() => ({
      ...reply,
      chunks: Array.from({ length: 200 }, () => 'event: ping\ndata: {}\n\n'),
      gapMs: 10,
    }));
    const p = await proxy({ anthropic: up.url });
    const ac = new AbortController();
    const res = await fetch(`${p.url}/v1/messages`, {
      method: 'POST',
      body: '{"messages":[]}',
      headers: { 'x-api-key': 'k' },
      signal: ac.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    ac.abort();
    for (let i = 0; i < 100 && up.aborted === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(up.aborted).toBe(1);
  });
});

describe('cg proxy: clients that leave early', () => {
  it('sends nothing upstream for a client that went away while its body was being compacted', async () => {
    const up = await upstream(() => ({ body: 'ok' }));
    // A store whose writes finish only once the client is gone: the body is still being prepared then.
    let clientGone!: () => void;
    const gone = new Promise<void>((r) => {
      clientGone = r;
    });
    const inner = createFsStore({ dir: tempDir(), ttlDays: 1, maxBytes: 1 << 30, compress: false });
    const slow: Store = {
      ...inner,
      dir: inner.dir,
      put: async (o, b) => {
        await gone;
        return inner.put(o, b);
      },
    };
    const p = await proxy({ anthropic: up.url, store: slow });
    const ac = new AbortController();
    const sent = fetch(`${p.url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify(agentSession(30)),
      headers: { 'x-api-key': 'k' },
      signal: ac.signal,
    }).catch(() => undefined);
    for (let i = 0; i < 400 && !p.log.some((l) => l.startsWith('→ POST')); i++)
      await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    await sent;
    await new Promise((r) => setTimeout(r, 50));
    clientGone();
    for (let i = 0; i < 400 && !p.log.some((l) => l.startsWith('← ')); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(p.log.find((l) => l.startsWith('← '))).toMatch(/client went away before the request was sent/);
    expect(up.requests).toHaveLength(0);
  });
});

describe('cg proxy: not an open proxy', () => {
  const raw = (port: number, request: string) =>
    new Promise<string>((resolve) => {
      const s = connect(port, '127.0.0.1', () => s.write(request));
      let got = '';
      s.on('data', (d) => {
        got += d;
      });
      s.on('close', () => resolve(got));
      s.on('error', () => resolve(got));
    });

  it('refuses an absolute-form target, CONNECT and upgrades, and never contacts their host', async () => {
    const up = await upstream(() => ({ body: 'ok' }));
    const p = await proxy({ anthropic: up.url, openai: up.url });
    const port = Number(new URL(p.url).port);
    const absolute = await raw(
      port,
      'GET http://example.com/v1/models HTTP/1.1\r\nhost: example.com\r\nconnection: close\r\n\r\n',
    );
    expect(absolute).toMatch(/^HTTP\/1\.1 400/);
    const tunnel = await raw(port, 'CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n');
    expect(tunnel).toMatch(/^HTTP\/1\.1 501/);
    const ws = await raw(
      port,
      'GET /v1/responses HTTP/1.1\r\nhost: x\r\nconnection: upgrade\r\nupgrade: websocket\r\n\r\n',
    );
    expect(ws).toMatch(/^HTTP\/1\.1 501/);
    expect(up.requests).toHaveLength(0);
  });
});

/**
 * What a turn leaves for its session's next one — the session record saved, the turn's carry made —
 * is done once its body is on its way (src/proxy/compact-request.ts): before the session's next
 * turn starts, however soon that comes, and not at all for a turn whose original went on instead.
 */
const SESSION = { 'x-api-key': 'k', 'x-claude-code-session-id': 'finish-session' };
const records = (stateDir: string) => {
  const dir = join(stateDir, 'sessions');
  return existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String) : [];
};

describe('cg proxy: what a turn leaves for the next', () => {
  it('is there before the next turn of the session, even one sent before the last was answered', async () => {
    const body = agentSession(60, { session: 'aaaaaaaa-1111-4222-8333-444444444444' });
    const turns = [turnOf(body, body.messages.length - 5), turnOf(body, body.messages.length - 3), body];
    // One after another, each sent once the last was answered.
    const upA = await upstream(() => ({ body: 'ok' }));
    const a = await proxy({ anthropic: upA.url });
    for (const t of turns) await send(a.url, '/v1/messages', JSON.stringify(t), SESSION);
    // The same turns each sent 10 ms after the last, while the last is still being compacted: the
    // proxy takes them in order, each after the last one's finish.
    const upB = await upstream(() => ({ body: 'ok' }));
    const b = await proxy({ anthropic: upB.url });
    const sent: Promise<unknown>[] = [];
    for (const t of turns) {
      sent.push(send(b.url, '/v1/messages', JSON.stringify(t), SESSION));
      await new Promise((r) => setTimeout(r, 10));
    }
    await Promise.all(sent);
    expect(upB.requests.map((r) => r.body.toString('utf8'))).toEqual(
      upA.requests.map((r) => r.body.toString('utf8')),
    );
    expect(a.compacted.every((c) => c.rewritten)).toBe(true);
    expect(records(b.stateDir).length).toBeGreaterThan(0);
  });

  it('is not left by a turn whose original went on because an original could not be stashed', async () => {
    const up = await upstream(() => ({ body: 'ok' }));
    const failing = failingStore();
    const p = await proxy({ anthropic: up.url, store: failing });
    const body = JSON.stringify(agentSession(40));
    await send(p.url, '/v1/messages', body, SESSION);
    // The answer is in; anything left for later has had its turn of the event loop and more.
    await new Promise((r) => setTimeout(r, 50));
    expect(p.compacted[0]!.fellOpen).toMatch(/store write failed/);
    expect(up.requests[0]!.body.equals(Buffer.from(body))).toBe(true);
    // No record claims markers that never went out.
    expect(records(p.stateDir)).toEqual([]);
  });
});
