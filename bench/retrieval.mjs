// What retrieval (issue 34) costs a proxy turn: the built `cg proxy` as its own process, on generated
// sessions, its CPU time for a steady turn (median of CG_BENCH_STEADY, default 5) with
// `--retrieval auto` against the same turn with `--retrieval never`:
//   coding agent — the session offers a shell (Bash): decided once, `client`, nothing more to do;
//   app          — it offers none: every turn its body is mapped, the session's splices checked and
//                  cg_expand added before compaction (no hidden round: the model answers at once).
// Each figure is a ratio to its own floor measured in the same run (DESIGN §7); budgets: coding agent
// ≤ 1.1×, app ≤ 1.5×. `node bench/retrieval.mjs [sizes…]` (default 1000 5000 tool results).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentSession } from './proxy-sessions.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = process.env.CG_BENCH_BIN ?? join(root, 'bin', 'cg.js');
const STEADY = Number(process.env.CG_BENCH_STEADY ?? 5);
const SHELL = { name: 'Bash', input_schema: { type: 'object', properties: { command: { type: 'string' } } } };
const APP = { name: 'read_log', input_schema: { type: 'object', properties: {} } };

function upstream() {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('event: message_stop\ndata: {"type":"message_stop"}\n\n');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port })),
  );
}

function startProxy(upstreamPort, work, mode) {
  const env = {
    PATH: process.env.PATH,
    HOME: join(work, 'home'),
    XDG_CONFIG_HOME: join(work, 'cfg'),
    CG_STORE_DIR: join(work, 'store'),
    CG_STATE_DIR: join(work, 'state'),
  };
  const args = [
    BIN,
    'proxy',
    '--port',
    '0',
    '--retrieval',
    mode,
    '--anthropic-upstream',
    `http://127.0.0.1:${upstreamPort}`,
  ];
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
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

function post(port, body) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent: false,
        host: '127.0.0.1',
        port,
        path: '/v1/messages',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'x-cg-session': 'bench-retrieval' },
      },
      (res) => {
        res.resume();
        res.on('end', resolve);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function idle(pid) {
  for (let i = 0, last = -1; i < 200; i++) {
    const now = cpuMs(pid);
    if (now === last) return;
    last = now;
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** The median CPU ms of a steady turn of a session of n tool results offering `tool`. */
async function steady(n, tool, mode) {
  const work = mkdtempSync(join(tmpdir(), 'cg-bench-retrieval-'));
  const up = await upstream();
  const proxy = await startProxy(up.port, work, mode);
  const body = (k) => Buffer.from(JSON.stringify({ ...agentSession(n + k), tools: [tool] }));
  try {
    await post(proxy.port, body(0));
    const cpu = [];
    for (let k = 1; k <= STEADY; k++) {
      const b = body(k);
      await idle(proxy.child.pid);
      const c0 = cpuMs(proxy.child.pid);
      await post(proxy.port, b);
      await idle(proxy.child.pid);
      cpu.push(cpuMs(proxy.child.pid) - c0);
    }
    return { cpu: cpu.sort((a, b) => a - b)[cpu.length >> 1], mb: body(0).length / 2 ** 20 };
  } finally {
    proxy.child.kill('SIGTERM');
    up.server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
for (const n of sizes.length > 0 ? sizes : [1000, 5000]) {
  for (const [label, tool, budget] of [
    ['coding agent', SHELL, 1.1],
    ['app', APP, 1.5],
  ]) {
    const floor = await steady(n, tool, 'never');
    const auto = await steady(n, tool, 'auto');
    const ratio = auto.cpu / Math.max(1, floor.cpu);
    console.log(
      `${String(n).padStart(6)} results ${floor.mb.toFixed(1).padStart(5)} MB  ${label.padEnd(12)}  never ${String(floor.cpu).padStart(5)} ms  auto ${String(auto.cpu).padStart(5)} ms  ${ratio.toFixed(2)}× (budget ${budget}×)${ratio > budget ? '  OVER' : ''}`,
    );
  }
}
