// What a session record in Redis costs a proxy turn (issue 33), as a ratio to the same turn with
// the record on the local disk. The built `cg proxy` as its own process(es), the store in a real
// redis-server for all three (only where the record lives differs), on generated Claude Code
// sessions (bench/proxy-sessions.mjs):
//   local   — one proxy, `proxy.sessions: local` (the record in its state directory);
//   shared  — one proxy, the record in Redis (each turn asks what was written since: nothing);
//   fleet   — two proxies, the record in Redis, turns alternating between them (each turn reads
//             the other's last line); its first turn on the second instance reads the record whole.
// Each turn is timed from the client's send to the response's end (a shared record is written
// before the response goes back, so that is in it) and to the upstream having the body; the figure
// is the median of the steady turns (each one tool result longer; CG_BENCH_STEADY, default 6),
// after two unmeasured turns on each instance (a process's first turns of a session compile what
// the later ones run), with a pause before each (a model's answer time). Rounds interleave the setups (CG_BENCH_ROUNDS, 2):
// this machine's speed varies run to run. Sizes: arguments, or CG_BENCH_FLEET_SIZES ("1000 5000").
// Needs redis-server on PATH (skipped without it).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { createServer as netServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentSession, turnOf } from './proxy-sessions.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = process.env.CG_BENCH_BIN ?? join(root, 'bin', 'cg.js');
const PAUSE_MS = Number(process.env.CG_BENCH_PROXY_PAUSE_MS ?? 1000);
const STEADY = Number(process.env.CG_BENCH_STEADY ?? 6);
const WARM = 2;
const ROUNDS = Number(process.env.CG_BENCH_ROUNDS ?? 2);

function freePort() {
  return new Promise((resolve, reject) => {
    const s = netServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function startRedis(work) {
  const port = await freePort();
  const dir = join(work, 'redis');
  mkdirSync(dir);
  // As README recommends for a fleet: the append-only file, fsynced every second.
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 200; i++) {
    if (spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout?.trim() === 'PONG')
      return { port, child };
    await sleep(25);
  }
  child.kill('SIGKILL');
  throw new Error('redis-server did not start');
}

function upstream() {
  const got = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      got.push({ at: performance.now(), bytes: Buffer.concat(chunks).length });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('event: message_stop\ndata: {"type":"message_stop"}\n\n');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, got, port: server.address().port })),
  );
}

function startProxy(upPort, dir, redisUrl, sessions) {
  mkdirSync(join(dir, 'cfg', 'cg'), { recursive: true });
  writeFileSync(join(dir, 'cfg', 'cg', 'config.yaml'), `proxy:\n  sessions: ${sessions}\n`);
  const env = {
    PATH: process.env.PATH,
    HOME: join(dir, 'home'),
    XDG_CONFIG_HOME: join(dir, 'cfg'),
    CG_STORE_DIR: join(dir, 'store'),
    CG_STATE_DIR: join(dir, 'state'),
    CG_STORE_URL: redisUrl,
  };
  const child = spawn(
    process.execPath,
    [BIN, 'proxy', '--port', '0', '--anthropic-upstream', `http://127.0.0.1:${upPort}`],
    {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.on('exit', (code) => reject(new Error(`cg proxy exited ${code}`)));
  });
}

/** One turn: when the upstream had the body, and when the client had the whole response. */
function post(port, body, up, session) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const n = up.got.length;
    const req = request(
      {
        agent: false,
        host: '127.0.0.1',
        port,
        path: '/v1/messages',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': 'k',
          'x-claude-code-session-id': session,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ done: performance.now() - t0, upstream: (up.got[n]?.at ?? NaN) - t0 }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** One setup over one session: first sight, then the steady turns on `ports` in turn. */
async function run(setup, n, redisUrl, work) {
  const up = await upstream();
  const count = setup === 'fleet' ? 2 : 1;
  const proxies = [];
  try {
    for (let i = 0; i < count; i++) {
      const dir = join(work, `${setup}-${n}-${i}-${Math.random().toString(36).slice(2, 8)}`);
      proxies.push(await startProxy(up.port, dir, redisUrl, setup === 'local' ? 'local' : 'shared'));
    }
    // Modules load once per process, not per session.
    for (const p of proxies)
      await post(p.port, JSON.stringify(agentSession(20, { seed: 9 })), up, `warm-up-${p.port}`);
    // A session of its own per run: runs share one Redis.
    const session = `${setup}-${n}-${Math.random().toString(36).slice(2)}`;
    const body = agentSession(n);
    const turn = async (port, b) => {
      await sleep(PAUSE_MS);
      return post(port, Buffer.from(JSON.stringify(b)), up, session);
    };
    const first = await turn(proxies[0].port, turnOf(body, body.messages.length - 3));
    // The first turn on the other instance (fleet: it reads the record whole), then the steady ones.
    const cross = await turn(proxies[count - 1].port, body);
    const steady = [];
    for (let k = 1; k <= WARM * count + STEADY; k++) {
      const t = await turn(proxies[k % count].port, agentSession(n + k));
      if (k > WARM * count) steady.push(t);
    }
    return { first, cross, steady };
  } finally {
    for (const p of proxies) {
      const exited = new Promise((r) => p.child.once('exit', r));
      p.child.kill('SIGTERM');
      await exited;
    }
    up.server.close();
  }
}

export async function benchFleet(sizes = [1000, 5000]) {
  const work = mkdtempSync(join(tmpdir(), 'cg-bench-fleet-'));
  const redis = await startRedis(work);
  const url = `redis://127.0.0.1:${redis.port}/0`;
  const rows = [];
  try {
    for (const n of sizes) {
      const by = { local: [], shared: [], fleet: [] };
      for (let round = 0; round < ROUNDS; round++)
        for (const setup of ['local', 'shared', 'fleet']) by[setup].push(await run(setup, n, url, work));
      const fig = (setup, pick) => median(by[setup].flatMap((r) => r.steady.map(pick)));
      const row = { n };
      for (const setup of ['local', 'shared', 'fleet'])
        row[setup] = {
          done: fig(setup, (t) => t.done),
          upstream: fig(setup, (t) => t.upstream),
          cross: median(by[setup].map((r) => r.cross.done)),
          first: median(by[setup].map((r) => r.first.done)),
        };
      rows.push(row);
    }
  } finally {
    redis.child.kill('SIGTERM');
    await new Promise((r) => redis.child.once('exit', r));
    rmSync(work, { recursive: true, force: true });
  }
  return rows;
}

export function fleetLines(rows) {
  const f = (x) => x.toFixed(0);
  const ratio = (a, b) => (a / b).toFixed(2);
  return rows.flatMap((r) => [
    `  ${String(r.n).padStart(6)} tool results: steady turn (send → response end) local record ${f(r.local.done)} ms, ` +
      `Redis record ${f(r.shared.done)} ms (${ratio(r.shared.done, r.local.done)}×), two instances alternating ${f(r.fleet.done)} ms (${ratio(r.fleet.done, r.local.done)}×)`,
    `  ${' '.repeat(6)}               send → upstream has the body: ${f(r.local.upstream)} / ${f(r.shared.upstream)} (${ratio(r.shared.upstream, r.local.upstream)}×) / ${f(r.fleet.upstream)} ms (${ratio(r.fleet.upstream, r.local.upstream)}×)` +
      ` · first sight ${f(r.local.first)} / ${f(r.shared.first)} / ${f(r.fleet.first)} ms · first turn on the other instance ${f(r.local.cross)} / ${f(r.shared.cross)} / ${f(r.fleet.cross)} ms`,
  ]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (spawnSync('sh', ['-c', 'command -v redis-server']).status !== 0) {
    console.log('fleet bench skipped: redis-server is not installed');
  } else {
    const args = process.argv.slice(2).map(Number);
    const sizes = args.length
      ? args
      : (process.env.CG_BENCH_FLEET_SIZES ?? '1000 5000').split(/\s+/).filter(Boolean).map(Number);
    console.log(
      'cg proxy session record in Redis vs on local disk (store in Redis for all; medians of steady turns)',
    );
    for (const line of fleetLines(await benchFleet(sizes))) console.log(line);
  }
}
