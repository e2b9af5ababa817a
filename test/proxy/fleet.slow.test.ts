/**
 * The fleet deployment with the real parts: two `cg proxy` processes (bin/cg.js, each with its own
 * disk) behind a real HAProxy (round-robin) sharing one real redis-server for the store and the
 * session records, in front of a scripted upstream; beside them, one `cg proxy` alone on the same
 * Redis (database 1), sent the very same turns. A 30-turn Claude Code session of the corpus goes
 * through both, turn by turn, three times:
 *   1. alternating between the instances;
 *   2. with the instance serving turn 11 sent SIGTERM while that turn's stream is under way
 *      (the stream ends whole, the process exits 0), turns 12-19 on the other, then it restarted;
 *   3. with Redis stopped for turns 11-15 (for the lone proxy too) and started again.
 * Each time: every forwarded body's earlier messages stay as stable (byte-identical, cache_control
 * aside) as the lone proxy's on the same turns — in fact the bodies are the same bytes; every
 * marker expands to its exact original from either instance's machine (its store settings,
 * `cg expand` included); every stream reaches the client byte for byte.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestAt, sessionFiles, toolTexts, turnEnds } from '../../bench/transcripts.mjs';
import { defaultConfig } from '../../src/config.js';
import { keyOf } from '../../src/store/keys.js';
import { markerKeys } from '../../src/store/marker.js';
import { openStore } from '../../src/store/open.js';
import { BIN } from '../e2e/run-cg.js';
import { HAPROXY, HAProxy, NEEDS_HAPROXY, SERVED_BY } from '../haproxy.js';
import { HAS_CORPUS, tempDir } from '../helpers.js';
import { freePort, NEEDS_REDIS, REDIS_SERVER, RedisServer } from '../redis-server.js';
import {
  anthropicStream,
  type FakeUpstream,
  type Reply,
  replyBytes,
  startFakeUpstream,
} from './fake-upstream.js';

const TURNS = 30;
const SESSION_FILE = 'spotter_258c7280_opus46_main.anthropic.json';

interface Instance {
  name: string;
  port: number;
  dir: string;
  env: Record<string, string>;
  url: string;
  stderr: () => string;
  /** Resolves with the exit code once the process is gone. */
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
}

/** One `cg proxy` on its own machine: its own home, store and state; the shared Redis at redisUrl. */
function instanceEnv(dir: string, redisUrl: string): Record<string, string> {
  // The default config: nothing but the environment says where things are.
  return {
    PATH: process.env.PATH ?? '',
    HOME: join(dir, 'home'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    CG_STORE_DIR: join(dir, 'store'),
    CG_STATE_DIR: join(dir, 'state'),
    CG_STORE_URL: redisUrl,
  };
}

function startInstance(name: string, port: number, dir: string, redisUrl: string, upstream: string) {
  const env = instanceEnv(dir, redisUrl);
  const child = spawn(
    process.execPath,
    [BIN, 'proxy', '--port', String(port), '--anthropic-upstream', upstream],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return new Promise<Instance>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      if (/listening on http:\/\//.test(out))
        resolve({
          name,
          port,
          dir,
          env,
          url: `http://127.0.0.1:${port}`,
          stderr: () => err,
          exited,
          kill: (s) => child.kill(s),
        });
    });
    void exited.then((code) => reject(new Error(`cg proxy ${name} exited ${code} before listening: ${err}`)));
  });
}

/** The messages of a body with every cache_control left out: breakpoints move each turn by design. */
function messagesOf(body: Buffer): string[] {
  const parsed = JSON.parse(body.toString('utf8')) as { messages: unknown[] };
  return parsed.messages.map((m) => JSON.stringify(m, (k, v) => (k === 'cache_control' ? undefined : v)));
}

/** Turns whose every earlier message is byte-identical to what the turn before sent. */
function stableTurns(bodies: Buffer[]): number {
  let stable = 0;
  for (let k = 1; k < bodies.length; k++) {
    const before = messagesOf(bodies[k - 1]!);
    const now = messagesOf(bodies[k]!);
    if (before.every((m, i) => now[i] === m)) stable++;
  }
  return stable;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!REDIS_SERVER || !HAPROXY || !HAS_CORPUS)(
  `two cg proxy behind HAProxy sharing Redis${NEEDS_REDIS}${NEEDS_HAPROXY}`,
  () => {
    let redis: RedisServer;
    let up: FakeUpstream;
    let balancer: HAProxy;
    let alone: Instance;
    const fleet: Record<string, Instance> = {};
    const dirs: string[] = [];
    let requests: string[] = [];
    /** Turns whose stream is slow (sent while an instance is stopped under it). */
    const slow = new Set<string>();

    const replyFor = (turn: string): Reply => {
      const reply = anthropicStream({ text: `answer to ${turn}` }, `msg_${turn}`);
      return slow.has(turn)
        ? { ...reply, chunks: [...reply.chunks!, ...reply.chunks!, ...reply.chunks!], gapMs: 100 }
        : reply;
    };
    const urlOf = (db: number) => redis.url().replace(/\/0$/, `/${db}`);

    beforeAll(async () => {
      const file = sessionFiles().find((f) => f.endsWith(SESSION_FILE))!;
      const body = JSON.parse(readFileSync(file, 'utf8'));
      requests = turnEnds(body)
        .slice(0, TURNS)
        .map((end: number) => requestAt(body, end));
      redis = await RedisServer.start();
      up = await startFakeUpstream((req) => replyFor(String(req.headers['x-test-turn'])));
      const ports = { a: await freePort(), b: await freePort() };
      for (const name of ['a', 'b'] as const) {
        const dir = tempDir(`cg-fleet-${name}-`);
        dirs.push(dir);
        fleet[name] = await startInstance(name, ports[name], dir, urlOf(0), up.url);
      }
      const dir = tempDir('cg-fleet-alone-');
      dirs.push(dir);
      alone = await startInstance('alone', await freePort(), dir, urlOf(1), up.url);
      balancer = await HAProxy.start(ports);
      await inRotation(['a', 'b']);
    }, 120_000);

    afterAll(async () => {
      for (const i of [...Object.values(fleet), alone]) {
        if (!i) continue;
        i.kill('SIGKILL');
        await i.exited;
      }
      await balancer?.stop();
      await up?.close();
      await redis?.stop();
      if (redis) rmSync(redis.dir, { recursive: true, force: true });
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });

    /** Waits until the balancer sends requests to every named instance. */
    async function inRotation(names: string[]) {
      const seen = new Set<string>();
      for (let i = 0; i < 400 && names.some((n) => !seen.has(n)); i++) {
        const res = await fetch(`${balancer.url}/healthz`).catch(() => undefined);
        const by = res?.headers.get(SERVED_BY);
        if (res?.ok && by) seen.add(by);
        await res?.arrayBuffer();
        if (names.some((n) => !seen.has(n))) await sleep(50);
      }
      expect([...seen].sort()).toEqual(expect.arrayContaining(names));
    }

    /** Waits until every instance can reach the store and its session records again. */
    async function ready(instances: Instance[]) {
      for (const i of instances) {
        let status = 0;
        for (let n = 0; n < 400 && status !== 200; n++) {
          status = (await fetch(`${i.url}/readyz`)).status;
          if (status !== 200) await sleep(50);
        }
        expect(status, `${i.name} ready`).toBe(200);
      }
    }

    interface Sent {
      servedBy: string;
      /** What the upstream got. */
      forwarded: Buffer;
    }

    /** One turn to `url` (the balancer, or the lone proxy): the client's answer checked byte for byte. */
    async function turn(
      url: string,
      k: number,
      session: string,
      id: string,
      during?: (servedBy: string) => void,
    ) {
      const res = await fetch(`${url}/v1/messages`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': 'k',
          'x-cg-session': session,
          'x-test-turn': id,
        },
        body: requests[k]!,
      });
      expect(res.status, id).toBe(200);
      const servedBy = res.headers.get(SERVED_BY) ?? 'alone';
      during?.(servedBy);
      const got = Buffer.from(await res.arrayBuffer());
      expect(got.equals(replyBytes(replyFor(id))), `stream of ${id} byte for byte`).toBe(true);
      const forwarded = up.requests.find((r) => r.headers['x-test-turn'] === id)!.body;
      return { servedBy, forwarded } satisfies Sent;
    }

    /**
     * The session through the balancer and through the lone proxy, turn by turn; `before(k)` runs
     * ahead of turn k, `during(k, servedBy)` once turn k's response has begun.
     */
    async function session(
      name: string,
      hooks: { before?: (k: number) => Promise<void>; during?: (k: number, servedBy: string) => void } = {},
    ) {
      const viaFleet: Sent[] = [];
      const viaAlone: Sent[] = [];
      for (let k = 0; k < TURNS; k++) {
        await hooks.before?.(k);
        viaFleet.push(await turn(balancer.url, k, name, `${name}-fleet-${k}`, (by) => hooks.during?.(k, by)));
        viaAlone.push(await turn(alone.url, k, name, `${name}-alone-${k}`));
      }
      const fleetBodies = viaFleet.map((s) => s.forwarded);
      const aloneBodies = viaAlone.map((s) => s.forwarded);
      return {
        served: viaFleet.map((s) => s.servedBy),
        stable: stableTurns(fleetBodies),
        stableAlone: stableTurns(aloneBodies),
        sameBytes: fleetBodies.filter((b, k) => b.equals(aloneBodies[k]!)).length,
        bodies: fleetBodies,
      };
    }

    /** Every marker in the bodies expands to its exact original on either instance's machine. */
    async function expandsEverywhere(bodies: Buffer[]): Promise<number> {
      const originals = new Map<string, string>();
      for (const r of requests)
        for (const t of toolTexts(JSON.parse(r))) originals.set(keyOf(t.text), t.text);
      const keys = [...new Set(bodies.flatMap((b) => markerKeys(b.toString('utf8'))))];
      for (const i of Object.values(fleet)) {
        const store = openStore(
          { ...defaultConfig().store, url: urlOf(0) },
          { CG_STORE_DIR: i.env.CG_STORE_DIR! },
        );
        for (const key of keys) {
          const bytes = await store.get(key);
          expect(bytes?.toString('utf8'), `${key} from ${i.name}`).toBe(originals.get(key));
        }
        // And through the command a person would type, for the first and the last.
        for (const key of [keys[0]!, keys.at(-1)!]) {
          const r = spawnSync(process.execPath, [BIN, 'expand', key], { env: i.env, encoding: 'utf8' });
          expect(r.status, r.stderr).toBe(0);
          expect(r.stdout).toBe(originals.get(key));
        }
      }
      return keys.length;
    }

    it('keeps a session alternating between the instances as stable as one instance, every marker expanding on either', async () => {
      const r = await session('alternating');
      console.log(
        `alternating: served ${r.served.join('')}; stable ${r.stable}/${TURNS - 1} (alone ${r.stableAlone}); same bytes as alone ${r.sameBytes}/${TURNS}`,
      );
      for (let k = 1; k < TURNS; k++) expect(r.served[k]).not.toBe(r.served[k - 1]);
      expect(r.stable).toBe(r.stableAlone);
      expect(r.sameBytes).toBe(TURNS);
      expect(await expandsEverywhere(r.bodies)).toBeGreaterThan(10);
    });

    it('loses nothing when an instance is stopped mid-stream (SIGTERM) and started again', async () => {
      let stopped: Instance | undefined;
      const r = await session('restart', {
        before: async (k) => {
          if (k === 10) slow.add('restart-fleet-10');
          if (k === 20 && stopped) {
            expect(await stopped.exited).toBe(0);
            expect(stopped.stderr()).toMatch(/SIGTERM: draining/);
            // The same machine: its disk as it was, its memory gone.
            fleet[stopped.name] = await startInstance(
              stopped.name,
              stopped.port,
              stopped.dir,
              urlOf(0),
              up.url,
            );
            await inRotation(['a', 'b']);
          }
        },
        during: (k, by) => {
          if (k !== 10) return;
          stopped = fleet[by]!;
          stopped.kill('SIGTERM');
        },
      });
      console.log(
        `restart: served ${r.served.join('')}; stable ${r.stable}/${TURNS - 1} (alone ${r.stableAlone}); same bytes as alone ${r.sameBytes}/${TURNS}`,
      );
      const other = stopped!.name === 'a' ? 'b' : 'a';
      expect(r.served.slice(12, 20).every((s) => s === other)).toBe(true);
      expect(new Set(r.served.slice(20)).size).toBe(2);
      expect(r.stable).toBe(r.stableAlone);
      expect(r.sameBytes).toBe(TURNS);
      expect(await expandsEverywhere(r.bodies)).toBeGreaterThan(10);
    });

    it('sends every body while Redis is stopped for five turns, and is as stable as one instance through it', async () => {
      const r = await session('outage', {
        before: async (k) => {
          if (k === 10) await redis.stop();
          if (k === 15) {
            await redis.restart();
            await ready([...Object.values(fleet), alone]);
          }
        },
      });
      console.log(
        `outage: served ${r.served.join('')}; stable ${r.stable}/${TURNS - 1} (alone ${r.stableAlone}); same bytes as alone ${r.sameBytes}/${TURNS}`,
      );
      expect(r.stable).toBe(r.stableAlone);
      expect(await expandsEverywhere(r.bodies)).toBeGreaterThan(10);
      const said = Object.values(fleet).map((i) => i.stderr());
      expect(said.some((s) => /session records: redis:\/\/.*; using the local records in /.test(s))).toBe(
        true,
      );
      expect(said.some((s) => /answers again; records are shared again/.test(s))).toBe(true);
    });
  },
);
