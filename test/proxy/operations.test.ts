/**
 * What runs the proxy asks of it: /healthz and /readyz (store and session records reachable, not
 * while draining), and a graceful shutdown — in process (drain()) and through the command
 * (SIGTERM): nothing new accepted, every stream in flight served to its end, exit 0.
 */
import { rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config.js';
import { diskRecords, type RecordBackend } from '../../src/session/records.js';
import { createFsStore } from '../../src/store/fs-store.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { tempDir } from '../helpers.js';
import { NEEDS_REDIS, REDIS_SERVER, RedisServer } from '../redis-server.js';
import { anthropicStream, type FakeUpstream, replyBytes, startFakeUpstream } from './fake-upstream.js';
import { send, startTestProxy } from './harness.js';
import { spawnProxy } from './spawn-proxy.js';

const dirs: string[] = [];
const dir = (prefix: string) => {
  const d = tempDir(prefix);
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const json = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** A slow stream: its response is still going out while the test stops the proxy. */
const slowStream = () => {
  const reply = anthropicStream({ text: 'still streaming' }, 'msg_slow');
  return { ...reply, chunks: [...reply.chunks!, ...reply.chunks!], gapMs: 80 };
};

const BODY = JSON.stringify({
  model: 'claude-sonnet-4-5',
  max_tokens: 10,
  messages: [{ role: 'user', content: 'hello' }],
});

/** POSTs over a given agent and reads the answer as it streams (headers first, body on end). */
function post(url: string, agent: Agent) {
  const { hostname, port } = new URL(url);
  return new Promise<{ status: number; connection: string | undefined; body: Promise<Buffer> }>(
    (resolve, reject) => {
      const req = request(
        {
          agent,
          host: hostname,
          port,
          method: 'POST',
          path: '/v1/messages',
          headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          const body = new Promise<Buffer>((done, fail) => {
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => done(Buffer.concat(chunks)));
            res.on('error', fail);
          });
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body });
        },
      );
      req.on('error', reject);
      req.end(BODY);
    },
  );
}

describe('health and readiness', () => {
  it('answers /healthz and /readyz itself, ready with a writable store and records directory', async () => {
    const up = await startFakeUpstream(() => ({ body: '{}' }));
    const proxy = await startTestProxy({ anthropic: up.url });
    try {
      expect(await json(`${proxy.url}/healthz`)).toEqual({ status: 200, body: { status: 'ok' } });
      expect(await json(`${proxy.url}/readyz`)).toEqual({
        status: 200,
        body: { ready: true, store: 'ok', sessions: 'ok' },
      });
      expect(up.requests).toHaveLength(0);
    } finally {
      await proxy.close();
      await up.close();
    }
  });

  it('is not ready, and says why, when the store or the records cannot be written', async () => {
    const base = dir('cg-ready-');
    const readOnly: Store = {
      ...createFsStore({ dir: join(base, 'store'), ttlDays: 1, maxBytes: 1 << 20, compress: false }),
      writable: async () => false,
    };
    const records: RecordBackend = {
      ...diskRecords(join(base, 'sessions')),
      problem: async () => 'disk full',
    };
    const proxy = await startTestProxy({ store: readOnly, records });
    try {
      const r = await json(`${proxy.url}/readyz`);
      expect(r.status).toBe(503);
      expect(r.body).toEqual({
        ready: false,
        store: `${join(base, 'store')}: not writable`,
        sessions: 'disk full',
      });
      // Alive all the same: bodies still go upstream (fail open).
      expect((await json(`${proxy.url}/healthz`)).status).toBe(200);
    } finally {
      await proxy.close();
    }
  });

  describe.skipIf(!REDIS_SERVER)(`with a Redis store${NEEDS_REDIS}`, () => {
    let server: RedisServer;
    beforeAll(async () => {
      server = await RedisServer.start();
    });
    afterAll(async () => {
      await server?.stop();
      if (server) rmSync(server.dir, { recursive: true, force: true });
    });

    it('is not ready while Redis is down, and ready again as soon as it answers', async () => {
      const base = dir('cg-ready-redis-');
      const store = openStore(
        { ...defaultConfig().store, url: server.url() },
        {
          CG_STORE_DIR: join(base, 'store'),
        },
      );
      const proxy = await startTestProxy({ store });
      try {
        expect((await json(`${proxy.url}/readyz`)).status).toBe(200);
        await server.stop();
        const down = await json(`${proxy.url}/readyz`);
        expect(down.status).toBe(503);
        expect(down.body.store).toMatch(/^redis:\/\/127\.0\.0\.1:\d+\/0: .*ECONNREFUSED/);
        await server.restart();
        expect(await json(`${proxy.url}/readyz`)).toMatchObject({ status: 200, body: { ready: true } });
      } finally {
        await proxy.close();
      }
    });
  });
});

describe('graceful shutdown', () => {
  let up: FakeUpstream;
  beforeAll(async () => {
    up = await startFakeUpstream(() => slowStream());
  });
  afterAll(async () => {
    await up.close();
  });

  it('drains: a stream in flight ends whole, a request on its kept-alive connection is served and the connection closed, a new connection is refused', async () => {
    const proxy = await startTestProxy({ anthropic: up.url });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await post(proxy.url, agent);
      expect(first.connection).toBe('keep-alive');
      const drained = proxy.drain();
      // Not ready any more, while still serving what it has.
      expect(proxy.inFlight()).toBe(1);
      // Queued behind the first on the same kept-alive socket: served, with connection: close.
      const second = post(proxy.url, agent);
      expect((await first.body).equals(replyBytes(slowStream()))).toBe(true);
      const s = await second;
      expect(s.status).toBe(200);
      expect(s.connection).toBe('close');
      expect((await s.body).equals(replyBytes(slowStream()))).toBe(true);
      await drained;
      expect(proxy.inFlight()).toBe(0);
      await expect(fetch(`${proxy.url}/healthz`)).rejects.toThrow();
    } finally {
      agent.destroy();
      await proxy.close();
    }
  });

  it('cg proxy on SIGTERM finishes the stream in flight byte for byte and exits 0', async () => {
    const p = await spawnProxy(['--anthropic-upstream', up.url], { dir: dir('cg-sigterm-') });
    const agent = new Agent({ keepAlive: true });
    try {
      const r = await post(p.url, agent);
      expect(r.status).toBe(200);
      const code = p.stop();
      expect((await r.body).equals(replyBytes(slowStream()))).toBe(true);
      // Our end of the kept-alive connection closes, so the proxy need not wait out its keep-alive timeout.
      agent.destroy();
      expect(await code).toBe(0);
      expect(p.stderr()).toMatch(/SIGTERM: draining — no new connections; 1 request in flight finish first/);
    } finally {
      agent.destroy();
      p.child.kill('SIGKILL');
    }
  });
});

describe('a proxy sharing session records', () => {
  it('sends a turn response only once its shared record is written', async () => {
    const upstream = await startFakeUpstream(() => ({ body: '{}' }));
    const events: string[] = [];
    const disk = diskRecords(join(dir('cg-held-'), 'sessions'));
    const records: RecordBackend = {
      ...disk,
      shared: true,
      save: async (...args) => {
        await new Promise((r) => setTimeout(r, 300));
        const r = await disk.save(...args);
        events.push('record written');
        return r;
      },
    };
    const proxy = await startTestProxy({ anthropic: upstream.url, records });
    try {
      const body = JSON.stringify({
        model: 'm',
        max_tokens: 1,
        system: 'agent',
        messages: [
          { role: 'user', content: 'go' },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a\nb\n' }] },
        ],
      });
      await send(proxy.url, '/v1/messages', body, { 'x-api-key': 'k', 'x-cg-session': 'held' });
      events.push('response');
      expect(events).toEqual(['record written', 'response']);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });
});
