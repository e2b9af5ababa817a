// The proxy's idle warm-up (src/proxy/warm-up.ts) pays a first body's one-time costs before a
// client's first turn, and leaves no trace: nothing in the store, no session record, no ledger
// event, and the same bytes upstream as a proxy that never warmed up.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { agentSession } from '../../bench/proxy-sessions.mjs';
import { defaultConfig } from '../../src/config.js';
import { createFilterSource } from '../../src/dsl/registry.js';
import { warmUp } from '../../src/proxy/warm-up.js';
import { tempDir } from '../helpers.js';
import { anthropicStream, startFakeUpstream } from './fake-upstream.js';
import { send, startTestProxy } from './harness.js';

function files(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String).sort() : [];
}

describe('warmUp', () => {
  const base = () => ({
    config: defaultConfig(),
    preset: 'agent',
    filters: createFilterSource({ cwd: tempDir('cg-warm-'), env: {} }),
  });

  it('runs every step while the proxy is idle', async () => {
    expect(await warmUp({ ...base(), busy: () => false, stopped: () => false, steps: 2 })).toBe(2);
  });

  it('starts no step once the proxy is stopped, and none while it is busy', async () => {
    expect(await warmUp({ ...base(), busy: () => false, stopped: () => true, steps: 2 })).toBe(0);
    let busyFor = 3;
    let stop = false;
    const done = warmUp({
      ...base(),
      busy: () => {
        if (busyFor-- > 0) return true;
        stop = true;
        return false;
      },
      stopped: () => stop,
      steps: 2,
    });
    // Busy on the first looks, then stopped before any step could start.
    expect(await done).toBe(0);
  });
});

describe('cg proxy with its warm-up', () => {
  it('stores, records and reports nothing of the warm-up, and sends the bytes an unwarmed proxy sends', async () => {
    const up = await startFakeUpstream(() => anthropicStream({ text: 'ok' }));
    const warm = await startTestProxy({ anthropic: up.url, warmUp: true });
    const cold = await startTestProxy({ anthropic: up.url });
    try {
      await vi.waitFor(() => expect(warm.log.some((l) => /^warm-up: \d+ steps done$/.test(l))).toBe(true), {
        timeout: 60_000,
        interval: 100,
      });
      expect(warm.log.find((l) => l.startsWith('warm-up:'))).not.toBe('warm-up: 0 steps done');
      const storeDir = warm.store.dir;
      expect(files(storeDir)).toEqual([]);
      expect(files(join(warm.stateDir, 'sessions'))).toEqual([]);
      expect(warm.compacted).toEqual([]);

      const body = JSON.stringify(agentSession(120, { seed: 5, session: 'warm-same' }));
      const h = { 'x-api-key': 'k', 'x-claude-code-session-id': 'warm-same' };
      await send(warm.url, '/v1/messages', body, h);
      await send(cold.url, '/v1/messages', body, h);
      const [a, b] = up.requests.slice(-2);
      expect(a!.body.length).toBeLessThan(Buffer.byteLength(body));
      expect(a!.body.equals(b!.body)).toBe(true);
      expect((await warm.store.info()).entries).toBe((await cold.store.info()).entries);
    } finally {
      await warm.close();
      await cold.close();
      await up.close();
    }
  }, 90_000);
});
