// A proxy that carries a session's last turn (src/proxy/turn/) reads and writes only what is
// new on the next; what it sends must still be exactly what a proxy that never saw the session
// sends for the same body and the same session record (determinism, cache-stable replay).
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentSession, turnOf } from '../../bench/proxy-sessions.mjs';
import { settledTurns } from '../../src/proxy/compact-request.js';
import { anthropicStream, type FakeUpstream, startFakeUpstream } from './fake-upstream.js';
import { send, startTestProxy, type TestProxy } from './harness.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

interface Pair {
  up: FakeUpstream;
  carried: TestProxy;
}

async function pair(): Promise<Pair> {
  const up = await startFakeUpstream(() => anthropicStream({ text: 'ok' }));
  open.push(up);
  const carried = await startTestProxy({ anthropic: up.url });
  open.push(carried);
  return { up, carried };
}

/**
 * Sends `body` through the carrying proxy, and through a fresh proxy (same store) that starts from
 * a copy of the session record the carrying one had just before; returns both bodies sent upstream.
 */
async function both(p: Pair, body: string): Promise<{ carried: Buffer; fresh: Buffer }> {
  // The carrying proxy saves a turn's record after its body is on its way: the copy must wait for
  // that, or a busy machine hands the fresh proxy the record of two turns back.
  await settledTurns();
  const fresh = await startTestProxy({ anthropic: p.up.url, store: p.carried.store });
  try {
    const sessions = join(p.carried.stateDir, 'sessions');
    rmSync(join(fresh.stateDir, 'sessions'), { recursive: true, force: true });
    if (existsSync(sessions)) cpSync(sessions, join(fresh.stateDir, 'sessions'), { recursive: true });
    const h = { 'x-api-key': 'k', 'x-claude-code-session-id': 'carry-1' };
    await send(fresh.url, '/v1/messages', body, h);
    const fromFresh = p.up.requests.at(-1)!.body;
    await send(p.carried.url, '/v1/messages', body, h);
    return { carried: p.up.requests.at(-1)!.body, fresh: fromFresh };
  } finally {
    await fresh.close();
  }
}

type Body = ReturnType<typeof agentSession>;
type Block = Record<string, unknown>;

/** The turn ending at message `end`, with Claude Code's moving breakpoint on its last block. */
function withMovingBreakpoint(body: Body, end: number): Body {
  const t = structuredClone(turnOf(body, end)) as Body;
  const blocks = t.messages.at(-1)!.content as Block[];
  blocks[blocks.length - 1]!.cache_control = { type: 'ephemeral' };
  return t;
}

describe('cg proxy: a next turn through the carried last turn', () => {
  it('sends exactly what a fresh proxy sends for the same body and session record, turn after turn', async () => {
    const p = await pair();
    const body = agentSession(120, { session: 'aaaaaaaa-2222-4333-8444-555555555555' });
    const ends = body.messages.flatMap((m, i) => (m.role === 'user' ? [i] : [])).slice(-12);
    for (const end of ends) {
      const { carried, fresh } = await both(p, JSON.stringify(withMovingBreakpoint(body, end)));
      expect(carried.toString()).toBe(fresh.toString());
    }
    expect(p.carried.log.join('\n')).not.toMatch(/fail/);
  });

  it('sends what a fresh proxy sends when the client rewrote an earlier message or sent non-ASCII text', async () => {
    const p = await pair();
    const body = agentSession(80, { session: 'bbbbbbbb-2222-4333-8444-555555555555' });
    const ends = body.messages.flatMap((m, i) => (m.role === 'user' ? [i] : [])).slice(-6);
    for (const [k, end] of ends.entries()) {
      const t = structuredClone(turnOf(body, end)) as Body;
      // A later turn edits an earlier tool result and adds text beyond ASCII to a new message.
      if (k >= 3) {
        const earlier = (t.messages[40]!.content as Block[])[0]!;
        earlier.content = `${String(earlier.content)}\nédité — ✓ ${k}`;
        (t.messages.at(-2)!.content as Block[])[0]!.text = `Schritt ${k}: prüfe „${k}“ 🚀`;
      }
      const { carried, fresh } = await both(p, JSON.stringify(t));
      expect(carried.toString()).toBe(fresh.toString());
    }
  });
});
