// What a session record in Redis costs a proxy turn (issue 33), as a ratio to the same turn with
// the record on the local disk. The built `cg proxy` as its own process(es), the store in a real
// redis-server for all of them (only where the record lives differs), on generated Claude Code
// sessions (bench/proxy-sessions.mjs):
//   local   — one proxy, `proxy.sessions: local` (the record in its state directory);
//   shared  — one proxy, the record in Redis (each turn asks what was written since: nothing);
//   fleet   — two proxies, the record in Redis, turns alternating between them (each turn reads
//             the other's last line); its first turn on the second instance reads the record whole.
// The setups run side by side and take turns: turn k goes to each in turn before turn k+1, so the
// machine's load (it varies many-fold here) falls on all of them alike. Each turn is timed from the
// client's send to the response's end (a shared record is written before the response goes back,
// so that is in it), and by the serving process's CPU time until it is idle again (the turn's
// deferred work included). Figures are medians of the steady turns (each one tool result longer;
// CG_BENCH_STEADY, default 8), after two unmeasured turns on each instance, with a pause before each
// (a model's answer time). Sizes: arguments, or CG_BENCH_FLEET_SIZES ("1000 5000").
// The record's own work alone: bench/fleet-records.mjs (both print with `node bench/fleet.mjs`).
// Needs redis-server on PATH (skipped without it).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchRecords, recordLines } from './fleet-records.mjs';
import { agentSession, turnOf } from './proxy-sessions.mjs';
import { startRedis } from './store.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = process.env.CG_BENCH_BIN ?? join(root, 'bin', 'cg.js');
const PAUSE_MS = Number(process.env.CG_BENCH_PROXY_PAUSE_MS ?? 1000);
const STEADY = Number(process.env.CG_BENCH_STEADY ?? 8);
const WARM = 2;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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

/** The process's CPU time (user + system) in ms. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Waits until the process uses no CPU for a while (the turn's deferred work done). */
async function idle(pid) {
  for (let i = 0, last = -1; i < 200; i++) {
    const now = cpuMs(pid);
    if (now === last) return;
    last = now;
    await sleep(150);
  }
}

const SETUPS = ['local', 'shared', 'fleet'];

export async function benchFleet(sizes = [1000, 5000]) {
  const work = mkdtempSync(join(tmpdir(), 'cg-bench-fleet-'));
  mkdirSync(join(work, 'redis'));
  const redis = await startRedis(join(work, 'redis'));
  if (!redis) throw new Error('redis-server did not start');
  const url = `redis://127.0.0.1:${redis.port}/0`;
  const rows = [];
  try {
    for (const n of sizes) {
      const up = await upstream();
      const proxies = {};
      try {
        for (const setup of SETUPS) {
          proxies[setup] = [];
          for (let i = 0; i < (setup === 'fleet' ? 2 : 1); i++)
            proxies[setup].push(
              await startProxy(
                up.port,
                join(work, `${setup}-${n}-${i}`),
                url,
                setup === 'local' ? 'local' : 'shared',
              ),
            );
        }
        const all = Object.values(proxies).flat();
        // Modules load once per process, not per session.
        for (const p of all)
          await post(p.port, JSON.stringify(agentSession(20, { seed: 9 })), up, `warm-up-${p.port}`);
        const times = Object.fromEntries(SETUPS.map((s) => [s, { done: [], upstream: [], cpu: [] }]));
        const once = Object.fromEntries(SETUPS.map((s) => [s, []]));
        /** Turn `k` of each setup's session, one setup after another. */
        const round = async (body, pick) => {
          for (const setup of SETUPS) {
            const p = pick(proxies[setup]);
            await sleep(PAUSE_MS);
            await idle(p.child.pid);
            const c0 = cpuMs(p.child.pid);
            const t = await post(p.port, Buffer.from(JSON.stringify(body)), up, `bench-${setup}-${n}`);
            await idle(p.child.pid);
            t.cpu = cpuMs(p.child.pid) - c0;
            once[setup].push(t);
          }
        };
        const body = agentSession(n);
        await round(turnOf(body, body.messages.length - 3), (ps) => ps[0]);
        // The first turn on the other instance (fleet: it reads the record whole).
        await round(body, (ps) => ps[ps.length - 1]);
        for (let k = 1; k <= 2 * WARM + STEADY; k++) {
          const before = Object.fromEntries(SETUPS.map((s) => [s, once[s].length]));
          await round(agentSession(n + k), (ps) => ps[k % ps.length]);
          if (k <= 2 * WARM) continue;
          for (const s of SETUPS) {
            const t = once[s][before[s]];
            times[s].done.push(t.done);
            times[s].upstream.push(t.upstream);
            times[s].cpu.push(t.cpu);
          }
        }
        const row = { n };
        for (const s of SETUPS)
          row[s] = {
            done: median(times[s].done),
            upstream: median(times[s].upstream),
            cpu: median(times[s].cpu),
            first: once[s][0].done,
            cross: once[s][1].done,
          };
        rows.push(row);
      } finally {
        for (const p of Object.values(proxies).flat()) {
          const exited = new Promise((r) => p.child.once('exit', r));
          p.child.kill('SIGTERM');
          await exited;
        }
        up.server.close();
      }
    }
  } finally {
    await redis.stop();
    rmSync(work, { recursive: true, force: true });
  }
  return rows;
}

export function fleetLines(rows) {
  const f = (x) => x.toFixed(0);
  const r2 = (a, b) => `${(a / b).toFixed(2)}×`;
  return rows.flatMap((r) => [
    `  ${String(r.n).padStart(6)} tool results, steady turn: local record ${f(r.local.done)} ms (cpu ${f(r.local.cpu)}), ` +
      `Redis record ${f(r.shared.done)} ms (cpu ${f(r.shared.cpu)}) = ${r2(r.shared.done, r.local.done)} (cpu ${r2(r.shared.cpu, r.local.cpu)}), ` +
      `two instances alternating ${f(r.fleet.done)} ms (cpu ${f(r.fleet.cpu)}) = ${r2(r.fleet.done, r.local.done)} (cpu ${r2(r.fleet.cpu, r.local.cpu)})`,
    `  ${' '.repeat(6)}               send → upstream has the body ${f(r.local.upstream)} / ${f(r.shared.upstream)} / ${f(r.fleet.upstream)} ms` +
      ` · first sight ${f(r.local.first)} / ${f(r.shared.first)} / ${f(r.fleet.first)} ms · next turn on the other instance ${f(r.local.cross)} / ${f(r.shared.cross)} / ${f(r.fleet.cross)} ms`,
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
    // CG_BENCH_RECORD_SIZES=0 skips the record's own figures, CG_BENCH_FLEET_TURNS=0 the proxies'.
    const recordSizes = (process.env.CG_BENCH_RECORD_SIZES ?? '1000 5000 20000')
      .split(/\s+/)
      .map(Number)
      .filter((n) => n > 0);
    if (recordSizes.length > 0) {
      console.log('session record work per turn, alone (medians; bundled from src/)');
      const turns = Number(process.env.CG_BENCH_RECORD_TURNS ?? 200);
      for (const line of recordLines(await benchRecords(recordSizes, turns))) console.log(line);
    }
    if (process.env.CG_BENCH_FLEET_TURNS !== '0') {
      console.log(
        'cg proxy session record in Redis vs on local disk (store in Redis for all; medians of steady turns)',
      );
      for (const line of fleetLines(await benchFleet(sizes))) console.log(line);
    }
  }
}
