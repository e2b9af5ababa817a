/**
 * Two proxies in process sharing one Redis (store and session records), each with its own disk:
 * a session's turns alternating between them are sent as one proxy would send them, concurrent
 * turns of one session leave one consistent record, and a stopped Redis costs lossless turns,
 * never a body. The real deployment — two `cg proxy` processes behind HAProxy, a corpus session —
 * is fleet.slow.test.ts.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config.js';
import { readTranscript } from '../../src/input/read.js';
import { keptRecord } from '../../src/session/kept-record.js';
import { diskRecords, type RecordBackend } from '../../src/session/records.js';
import { sharedRecords } from '../../src/session/shared-records.js';
import { sharedRedis } from '../../src/store/fleet-store.js';
import { markerKeys } from '../../src/store/marker.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { tempDir } from '../helpers.js';
import { NEEDS_REDIS, REDIS_SERVER, RedisServer } from '../redis-server.js';
import { type FakeUpstream, startFakeUpstream } from './fake-upstream.js';
import { send, startTestProxy, type TestProxy } from './harness.js';
import { spawnProxy } from './spawn-proxy.js';

const bigOutput = (i: number) =>
  Array.from({ length: 120 }, (_, k) => `file${i}.ts line ${k}: const value${k} = compute(${k});`).join('\n');

/** A Claude Code-like conversation of `turns` Reads; extract decides each by the latest query. */
function conversation(turns: number): string {
  const messages: unknown[] = [{ role: 'user', content: 'Refactor the compute module' }];
  for (let i = 0; i < turns; i++) {
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Reading file${i}.ts for value${i}` },
        { type: 'tool_use', id: `t${i}`, name: 'Read', input: { file_path: `/src/file${i}.ts` } },
      ],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: bigOutput(i) }],
    });
  }
  return JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 100, system: 'agent', messages });
}

const sentOutputs = (body: Buffer) =>
  readTranscript(body.toString('utf8'), 'anthropic', {}).outputs.map((o) => o.text);

describe.skipIf(!REDIS_SERVER)(`proxies sharing session records in Redis${NEEDS_REDIS}`, () => {
  let server: RedisServer;
  let up: FakeUpstream;
  const dirs: string[] = [];
  let prefixes = 0;

  beforeAll(async () => {
    server = await RedisServer.start();
    up = await startFakeUpstream(() => ({ body: '{}' }));
  });
  afterAll(async () => {
    await up?.close();
    await server?.stop();
    if (server) rmSync(server.dir, { recursive: true, force: true });
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** An instance: its own disk (store fallback, records), the shared Redis under `prefix`. */
  async function instance(prefix: string, shared = true): Promise<TestProxy & { records: RecordBackend }> {
    const dir = tempDir('cg-fleet-');
    dirs.push(dir);
    const cfg = { ...defaultConfig().store, url: server.url(), prefix };
    const store: Store = openStore(cfg, { CG_STORE_DIR: join(dir, 'store') }, () => undefined);
    const records = shared
      ? sharedRecords({
          link: sharedRedis(store)!.link,
          prefix,
          ttlDays: cfg.ttlDays,
          dir: join(dir, 'sessions'),
          warn: () => undefined,
        })
      : diskRecords(join(dir, 'sessions'));
    const proxy = await startTestProxy({ anthropic: up.url, store, records });
    return { ...proxy, records };
  }

  let sent = 0;
  /** One turn through p; what the upstream got for it. */
  const turn = async (p: TestProxy, turns: number, session: string) => {
    const id = String(sent++);
    const r = await send(p.url, '/v1/messages', conversation(turns), {
      'x-api-key': 'k',
      'x-cg-session': session,
      'x-test-turn': id,
    });
    expect(r.status).toBe(200);
    return up.requests.find((q) => q.headers['x-test-turn'] === id)!.body;
  };

  /** Every marker in the bodies, looked up in each instance's store: its exact original is there. */
  async function expandEverywhere(bodies: Buffer[], instances: TestProxy[]) {
    const { keyOf } = await import('../../src/store/keys.js');
    const keys = [...new Set(bodies.flatMap((b) => markerKeys(b.toString('utf8'))))];
    for (const p of instances)
      for (const key of keys) {
        const bytes = await p.store.get(key);
        expect(bytes && keyOf(bytes), `marker ${key}`).toBe(key);
      }
    return keys.length;
  }

  it('sends a turn that lands on the other instance exactly as the instance of the last turn would have', async () => {
    const prefix = `f${prefixes++}:`;
    const [a, b] = [await instance(prefix), await instance(prefix)];
    const [one] = [await instance(`f${prefixes++}:`)];
    try {
      const alone: Buffer[] = [];
      const fleet: Buffer[] = [];
      for (let k = 1; k <= 6; k++) {
        alone.push(await turn(one, k, 'alone'));
        fleet.push(await turn(k % 2 ? a : b, k, 'fleet'));
      }
      // The same session on one proxy and on two alternating: the same bytes, turn by turn.
      expect(fleet.map((x) => x.toString('utf8'))).toEqual(alone.map((x) => x.toString('utf8')));
      // Every earlier output sent again as sent, and the compaction did happen (markers).
      for (let k = 1; k < fleet.length; k++)
        expect(sentOutputs(fleet[k]!).slice(0, k)).toEqual(sentOutputs(fleet[k - 1]!));
      expect(await expandEverywhere(fleet, [a, b])).toBeGreaterThan(0);
    } finally {
      await Promise.all([a.close(), b.close(), one.close()]);
    }
  });

  it('without shared records the other instance decides earlier outputs afresh, and they change', async () => {
    const prefix = `f${prefixes++}:`;
    const [a, b] = [await instance(prefix, false), await instance(prefix, false)];
    try {
      const first = await turn(a, 3, 'local');
      const second = await turn(b, 4, 'local');
      expect(sentOutputs(second).slice(0, 3)).not.toEqual(sentOutputs(first));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('leaves one consistent record when two turns of one session run at once on both instances', async () => {
    const prefix = `f${prefixes++}:`;
    const [a, b] = [await instance(prefix), await instance(prefix)];
    try {
      await turn(a, 2, 'race');
      // Two requests of one session at once (a main conversation and a side request sharing its id).
      const [x, y] = await Promise.all([turn(a, 4, 'race'), turn(b, 5, 'race')]);
      expect(sentOutputs(x).length).toBe(4);
      expect(sentOutputs(y).length).toBe(5);
      // What either sends next agrees with the record both now read: the turn after is the same
      // from both instances.
      const fromA = await turn(a, 6, 'race');
      const fromB = await turn(b, 6, 'race');
      expect(fromB.toString('utf8')).toEqual(fromA.toString('utf8'));
      const key = (await import('../../src/session/id.js')).sessionIdentity(
        { format: 'anthropic', messages: [] },
        'race',
      )!.key;
      const truth = await b.records.load(key, 'race', keptRecord());
      expect([...truth.outputs.keys()].sort()).toEqual(['t0', 't1', 't2', 't3', 't4', 't5']);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('cg proxy with a Redis store keeps session records in Redis, and on the machine with proxy.sessions: local', async () => {
    const admin = new Redis({ host: '127.0.0.1', port: server.port, lazyConnect: true });
    await admin.connect();
    try {
      for (const sessions of ['shared', 'local'] as const) {
        const dir = tempDir('cg-fleet-cmd-');
        dirs.push(dir);
        mkdirSync(join(dir, 'config', 'cg'), { recursive: true });
        const prefix = `cmd-${sessions}:`;
        writeFileSync(
          join(dir, 'config', 'cg', 'config.yaml'),
          `store:\n  prefix: "${prefix}"\nproxy:\n  sessions: ${sessions}\n`,
        );
        const p = await spawnProxy(['--anthropic-upstream', up.url], {
          dir,
          env: { CG_STORE_URL: server.url() },
        });
        try {
          await turn({ url: p.url } as TestProxy, 3, 'command');
        } finally {
          expect(await p.stop()).toBe(0);
        }
        // The session's two records: its replay decisions and its retrieval state (whether the
        // proxy answers cg_expand), both in the one place proxy.sessions names, none in the other.
        const inRedis = await admin.keys(`${prefix}rec:*`);
        const onDisk = existsSync(join(p.stateDir, 'sessions'))
          ? readdirSync(join(p.stateDir, 'sessions')).filter((f) => f.endsWith('.json'))
          : [];
        if (sessions === 'shared') {
          expect(inRedis).toHaveLength(2);
          expect(onDisk).toEqual([]);
        } else {
          expect(inRedis).toEqual([]);
          expect(onDisk).toHaveLength(2);
        }
      }
    } finally {
      admin.disconnect();
    }
  });

  it('forwards every body while Redis is stopped, and replays the session again once it is back', async () => {
    const prefix = `f${prefixes++}:`;
    const [a, b] = [await instance(prefix), await instance(prefix)];
    try {
      const before = await turn(a, 3, 'outage');
      expect(markerKeys(before.toString('utf8')).length).toBeGreaterThan(0);
      await server.stop();
      let during: Buffer[] = [];
      try {
        during = [await turn(b, 4, 'outage'), await turn(a, 5, 'outage')];
      } finally {
        await server.restart();
      }
      // Readiness revives the links; then the session replays what was sent before the outage.
      expect((await fetch(`${a.url}/readyz`)).status).toBe(200);
      expect((await fetch(`${b.url}/readyz`)).status).toBe(200);
      const after = await turn(b, 6, 'outage');
      expect(sentOutputs(after).slice(0, 3)).toEqual(sentOutputs(before));
      // No marker went out, during the outage or since, whose original is not in Redis.
      expect(await expandEverywhere([before, ...during, after], [a, b])).toBeGreaterThan(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
