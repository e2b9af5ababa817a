// With no header naming the session, the proxy finds it in the body: metadata.user_id (Anthropic),
// prompt_cache_key or conversation (Responses). Only those top-level members are parsed; the rest
// of the body (tens of MB of messages) is scanned, never built into objects for an id.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { agentSession } from '../../bench/proxy-sessions.mjs';
import { requestSession } from '../../src/proxy/session-id.js';
import { anthropicStream, startFakeUpstream } from './fake-upstream.js';
import { send, startTestProxy } from './harness.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const userId = JSON.stringify({ device_id: 'd', session_id: 'sess-1' });
const messages = Array.from({ length: 200 }, (_, i) => ({
  role: 'user',
  content: `message ${i} ${'x'.repeat(50)}`,
}));

describe('the session id of a body without a session header', () => {
  it('is read from its top-level members without parsing the whole body', () => {
    const body = JSON.stringify({ model: 'm', metadata: { user_id: userId }, messages });
    const parse = vi.spyOn(JSON, 'parse');
    expect(requestSession('anthropic', body, [])).toBe('sess-1');
    const longest = Math.max(...parse.mock.calls.map(([text]) => String(text).length));
    expect(longest).toBeLessThan(200);
  });

  it('is what JSON.parse of the whole body says: the last of a repeated key, none from a nested one', () => {
    const twice = `{"metadata":{"user_id":"user_a_session_first"},"messages":[],"metadata":{"user_id":"user_a_session_last"}}`;
    expect(requestSession('anthropic', twice, [])).toBe('last');
    const nested = JSON.stringify({
      messages: [{ role: 'user', content: 'x', metadata: { user_id: userId } }],
    });
    expect(requestSession('anthropic', nested, [])).toBeUndefined();
    expect(requestSession('responses', ' { "input" : [ ] , "prompt_cache_key" : "pk" } \n', [])).toBe('pk');
    expect(requestSession('responses', '{"conversation":"conv_9","input":[]}', [])).toBe('conv_9');
  });

  it('is none for a body that is not one JSON object', () => {
    for (const bad of [
      `{"metadata":{"user_id":${JSON.stringify(userId)}},"messages":[}`,
      `{"metadata":{"user_id":${JSON.stringify(userId)}}} trailing`,
      `[{"metadata":{"user_id":${JSON.stringify(userId)}}}]`,
      '',
      '{}',
    ])
      expect(requestSession('anthropic', bad, [])).toBeUndefined();
  });
});

describe('a body read for its session id', () => {
  it('is decoded once: the engine is handed the text the session id was read from', async () => {
    const up = await startFakeUpstream(() => anthropicStream({ text: 'done' }));
    const p = await startTestProxy({ anthropic: up.url });
    try {
      const body = Buffer.from(JSON.stringify(agentSession(30)));
      const decodes = vi.spyOn(Buffer.prototype, 'toString');
      const res = await send(p.url, '/v1/messages', body, { 'x-api-key': 'k' });
      expect(res.status).toBe(200);
      expect(p.compacted[0]?.session).toBe('00000000-0000-4000-8000-000000000001');
      const whole = decodes.mock.contexts.filter((b) => (b as Buffer).length === body.length);
      expect(whole).toHaveLength(1);
    } finally {
      await p.close();
      await up.close();
    }
  });
});
