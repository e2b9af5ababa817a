// Proxy turn cost (issue 16, DESIGN §7): the built `cg proxy` as its own process in front of a
// fake upstream, on generated Claude Code sessions of 1k, 5k and 20k tool results. For each:
//   first sight  — a fresh proxy (empty store and state) gets the session two messages short of its end;
//   next turn    — the same proxy then gets the whole body (one new tool result);
//   again        — the same body once more (a client's retry);
//   steady       — five more turns (CG_BENCH_STEADY), each one tool result longer (median and least): a session's
//                  usual turn, where the first next turn also pays for what the first sight left;
// each timed from the client's send to the upstream having the whole compacted body (and, for the
// steady turns, to its first byte: where the upstream is a network away, the rest is the upload). Peak RSS is
// the proxy's VmHWM less its RSS before the first request, against the body's size.
// Budgets (issue 32, bench/budgets.mjs): next turn ≤ 2× raw forwarding of the same body (the
// count_tokens route, passed through as it streams, after each steady turn); first sight ≤ 3×
// JSON.parse + stringify of the body; peak RSS ≤ 3× body + the proxy's RSS once warmed up.
// CG_BENCH_BIN=/other/bin/cg.js measures another build with the same sessions (A/B runs, interleaved:
// this machine's speed varies run to run).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentSession, turnOf } from './proxy-sessions.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MB = 1024 * 1024;
const QUICK = process.env.CG_BENCH_QUICK === '1';
const PAUSE_MS = Number(process.env.CG_BENCH_PROXY_PAUSE_MS ?? (QUICK ? 500 : 2000));
const BIN = process.env.CG_BENCH_BIN ?? join(root, 'bin', 'cg.js');
const STEADY_TURNS = Number(process.env.CG_BENCH_STEADY ?? 5);

function upstream() {
  const got = [];
  const server = createServer((req, res) => {
    const chunks = [];
    let first;
    req.on('data', (c) => {
      first ??= performance.now();
      chunks.push(c);
    });
    req.on('end', () => {
      got.push({ first, at: performance.now(), bytes: Buffer.concat(chunks).length });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('event: message_stop\ndata: {"type":"message_stop"}\n\n');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, got, port: server.address().port })),
  );
}

function startProxy(upstreamPort, work) {
  const env = {
    PATH: process.env.PATH,
    HOME: join(work, 'home'),
    XDG_CONFIG_HOME: join(work, 'cfg'),
    CG_STORE_DIR: join(work, 'store'),
    CG_STATE_DIR: join(work, 'state'),
    ...(process.env.UV_THREADPOOL_SIZE ? { UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE } : {}),
  };
  // CG_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the proxy process.
  const nodeArgs = (process.env.CG_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    [...nodeArgs, BIN, 'proxy', '--port', '0', '--anthropic-upstream', `http://127.0.0.1:${upstreamPort}`],
    { env, stdio: ['ignore', 'pipe', 'inherit'] },
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

function post(port, body, path = '/v1/messages') {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(
      {
        agent: false,
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': 'k',
          'x-claude-code-session-id': 'bench-session',
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(t0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The process's CPU time (user + system) in ms: a busy machine inflates wall time, much less this. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Waits until the process uses no CPU for a while (its stats for the last turn are written). */
async function idle(pid) {
  for (let i = 0, last = -1; i < 200; i++) {
    const now = cpuMs(pid);
    if (now === last) return;
    last = now;
    await new Promise((r) => setTimeout(r, 300));
  }
}

function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

export async function benchProxy(sizes = [1000, 5000, 20000]) {
  const rows = [];
  for (const n of sizes) {
    const work = mkdtempSync(join(tmpdir(), 'cg-bench-proxy-'));
    const up = await upstream();
    const proxy = await startProxy(up.port, work);
    try {
      const body = agentSession(n);
      // Bytes, as a client holds them once it has encoded its request: encoding a 23.5 MB string
      // that holds non-Latin-1 characters takes the bench ~80 ms of its own, which is not the proxy's.
      const first = Buffer.from(JSON.stringify(turnOf(body, body.messages.length - 3)));
      const whole = Buffer.from(JSON.stringify(body));
      const mb = whole.length / MB;
      // A small session first: modules (tokenizer, undici) load once per process, not per session.
      await post(proxy.port, Buffer.from(JSON.stringify(agentSession(20, { seed: 9, session: 'warm-up' }))));
      // The fixed cost: the warmed proxy's RSS before the session (its peak so far beside it), once
      // it is idle — what it does while idle after start (src/proxy/warm-up.ts) is part of it.
      await new Promise((r) => setTimeout(r, PAUSE_MS));
      await idle(proxy.child.pid);
      const { rss: base, hwm: warmPeak } = memory(proxy.child.pid);
      // A model takes seconds to answer, and the proxy records stats once a response is done: the
      // pause (and waiting for the proxy to be idle) stands in for that time, so each turn is
      // measured as a client would meet it.
      const timed = async (b, path) => {
        await new Promise((r) => setTimeout(r, PAUSE_MS));
        await idle(proxy.child.pid);
        const c0 = cpuMs(proxy.child.pid);
        const t0 = await post(proxy.port, b, path);
        const got = up.got.at(-1);
        return { wall: got.at - t0, first: got.first - t0, cpu: cpuMs(proxy.child.pid) - c0 };
      };
      const firstMs = await timed(first);
      const nextMs = await timed(whole);
      const againMs = await timed(whole);
      const { hwm } = memory(proxy.child.pid);
      const sent = up.got.at(-1).bytes / MB;
      // The floor, after each steady turn (interleaved, so load hits both alike): the same body
      // through a route the proxy passes through as it streams in (count_tokens), so no compaction
      // at all — what moving the bytes costs on this machine.
      const steady = [];
      const floors = [];
      for (let k = 1; k <= STEADY_TURNS; k++) {
        const b = Buffer.from(JSON.stringify(agentSession(n + k)));
        steady.push(await timed(b));
        floors.push(await timed(b, '/v1/messages/count_tokens'));
      }
      const walls = steady.map((t) => t.wall).sort((a, b) => a - b);
      const middle = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
      const floorMs = { wall: middle(floors.map((t) => t.wall)), cpu: middle(floors.map((t) => t.cpu)) };
      // The other floor: JSON.parse + JSON.stringify of the same body, here (median of three).
      const parseMs = middle(
        [0, 1, 2].map(() => {
          const t0 = performance.now();
          JSON.stringify(JSON.parse(whole.toString('utf8')));
          return performance.now() - t0;
        }),
      );
      const steadyMs = {
        median: walls[walls.length >> 1],
        least: walls[0],
        first: middle(steady.map((t) => t.first)),
        cpu: middle(steady.map((t) => t.cpu)),
      };
      rows.push({
        n,
        mb,
        firstMs,
        nextMs,
        againMs,
        steadyMs,
        floorMs,
        parseMs,
        steadyTurns: STEADY_TURNS,
        base,
        warmPeak,
        hwm,
        budgetNext: 2 * floorMs.wall,
        peak: (hwm - base) / MB,
        sent,
      });
    } finally {
      const exited = new Promise((r) => proxy.child.once('exit', r));
      proxy.child.kill('SIGTERM');
      await exited;
      up.server.close();
      rmSync(work, { recursive: true, force: true });
    }
  }
  return rows;
}

export function proxyLines(rows) {
  const f = (x, d = 0) => x.toFixed(d);
  return rows.map(
    (r) =>
      `  ${String(r.n).padStart(6)} tool results, ${f(r.mb, 1).padStart(5)} MB → ${f(r.sent, 1)} MB sent: first sight ${f(r.firstMs.wall).padStart(6)} ms (cpu ${f(r.firstMs.cpu)})` +
      ` · next turn ${f(r.nextMs.wall).padStart(5)} ms (cpu ${f(r.nextMs.cpu)}; budget ${f(r.budgetNext)} ms), steady ${f(r.steadyMs.median)} (least ${f(r.steadyMs.least)}; first byte upstream ${f(r.steadyMs.first)}; cpu ${f(r.steadyMs.cpu)}) · again ${f(r.againMs.wall).padStart(5)} ms (cpu ${f(r.againMs.cpu)})` +
      ` · passed through ${f(r.floorMs.wall)} ms · parse+stringify ${f(r.parseMs)} ms` +
      ` · peak RSS +${f(r.peak)} MB (${f(r.peak / r.mb, 1)}× body, budget 3×)`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = process.argv.slice(2).map(Number);
  console.log('cg proxy turn cost (generated Claude Code sessions; first sight of 20 MB budget 3000 ms)');
  for (const line of proxyLines(await benchProxy(sizes.length ? sizes : undefined))) console.log(line);
}
