/**
 * What a turn leaves for its session's next one — the session record saved, the turn's carry made —
 * is done once its body is on its way (src/proxy/compact-request.ts): before the session's next
 * turn starts, however soon that comes, and not at all for a turn whose original went on instead.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentSession, turnOf } from '../../bench/proxy-sessions.mjs';
import type { PutResult, Store } from '../../src/store/store.js';
import { type FakeUpstream, startFakeUpstream } from './fake-upstream.js';
import { send, startTestProxy, type TestProxy } from './harness.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});
async function upstream(): Promise<FakeUpstream> {
  const u = await startFakeUpstream(() => ({ body: 'ok' }));
  open.push(u);
  return u;
}
async function proxy(o: Parameters<typeof startTestProxy>[0]): Promise<TestProxy> {
  const p = await startTestProxy(o);
  open.push(p);
  return p;
}
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
    const upA = await upstream();
    const a = await proxy({ anthropic: upA.url });
    for (const t of turns) await send(a.url, '/v1/messages', JSON.stringify(t), SESSION);
    // The same turns each sent 10 ms after the last, while the last is still being compacted: the
    // proxy takes them in order, each after the last one's finish.
    const upB = await upstream();
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
    const up = await upstream();
    const failing: Store = {
      dir: '/nonexistent',
      writable: async () => true,
      put: async (): Promise<PutResult> => ({
        ok: false,
        key: '0000000000000000',
        reason: 'unwritable',
        detail: 'disk full',
      }),
      get: async () => undefined,
      info: async () => ({ dir: '', entries: 0, bytes: 0, ttlDays: 0, maxBytes: 0, compress: false }),
      prune: async () => ({ removed: 0, freedBytes: 0, remaining: 0, remainingBytes: 0 }),
      clear: async () => 0,
    };
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
