// After a turn over a large body the proxy collects its garbage while idle, so the next turn's body
// does not push V8 over its external-memory limit and pay a full collection inside its own latency
// (src/proxy/idle-collect.ts). Never while a request is in flight, never for small bodies only.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { agentSession } from '../../bench/proxy-sessions.mjs';
import { idleCollector, LARGE_BODY_BYTES } from '../../src/proxy/idle-collect.js';
import { anthropicStream, startFakeUpstream } from './fake-upstream.js';
import { send, startTestProxy } from './harness.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('the idle collector', () => {
  it('collects once, after the last request in flight ends, when one of them compacted a large body', () => {
    vi.useFakeTimers();
    let collected = 0;
    const idle = idleCollector(() => collected++, 20);
    idle.begin();
    idle.begin();
    idle.end(LARGE_BODY_BYTES);
    vi.advanceTimersByTime(1000);
    expect(collected).toBe(0);
    idle.end(0);
    vi.advanceTimersByTime(1000);
    expect(collected).toBe(1);
    vi.advanceTimersByTime(1000);
    expect(collected).toBe(1);
  });

  it('puts the collection off when a request begins before it ran', () => {
    vi.useFakeTimers();
    let collected = 0;
    const idle = idleCollector(() => collected++, 20);
    idle.begin();
    idle.end(LARGE_BODY_BYTES);
    vi.advanceTimersByTime(10);
    idle.begin();
    vi.advanceTimersByTime(1000);
    expect(collected).toBe(0);
    idle.end(0);
    vi.advanceTimersByTime(1000);
    expect(collected).toBe(1);
  });

  it('never collects after small bodies only', () => {
    vi.useFakeTimers();
    let collected = 0;
    const idle = idleCollector(() => collected++, 20);
    for (let i = 0; i < 5; i++) {
      idle.begin();
      idle.end(LARGE_BODY_BYTES - 1);
    }
    vi.advanceTimersByTime(1000);
    expect(collected).toBe(0);
  });
});

describe('cg proxy', () => {
  it('collects its garbage once it is idle after compacting a large body, and not after a small one', async () => {
    const up = await startFakeUpstream(() => anthropicStream({ text: 'ok' }));
    let collected = 0;
    const p = await startTestProxy({ anthropic: up.url, collect: () => collected++ });
    try {
      const h = { 'x-api-key': 'k', 'x-claude-code-session-id': 'idle-1' };
      const small = JSON.stringify(agentSession(20, { seed: 3, session: 'idle-small' }));
      await send(p.url, '/v1/messages', small, h);
      await new Promise((r) => setTimeout(r, 200));
      expect(collected).toBe(0);
      const large = JSON.stringify(agentSession(4000, { seed: 4, session: 'idle-large' }));
      expect(Buffer.byteLength(large)).toBeGreaterThanOrEqual(LARGE_BODY_BYTES);
      const r = await send(p.url, '/v1/messages', large, h);
      expect(r.status).toBe(200);
      await vi.waitFor(() => expect(collected).toBe(1), { timeout: 5000 });
    } finally {
      await p.close();
      await up.close();
    }
  });
});
