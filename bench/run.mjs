// npm run bench: figures as ratios measured in one run (DESIGN §7), so a slow or busy machine
// shifts both sides alike. Start-up of `echo hi | cg`, `cg --version` and `cg expand KEY` vs
// `node -e ''`, and what `cg run -- true` adds over `true`; passthrough and collapse throughput on a
// generated 100 MB log vs cat; peak RSS of each run vs its input.
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'cg.js');
const probe = join(root, 'bench', 'rss-probe.mjs');
const work = mkdtempSync(join(tmpdir(), 'cg-bench-'));
// The bench's runs are not the user's: its store, config and stats ledger are its own.
const env = {
  ...process.env,
  CG_STORE_DIR: join(work, 'store'),
  CG_STATE_DIR: join(work, 'state'),
  XDG_CONFIG_HOME: join(work, 'cfg'),
};
delete env.CG_DISABLE;
const MB = 1024 * 1024;
const sizeMb = Number(process.env.CG_BENCH_MB ?? 100);

function makeLog(path, bytes) {
  const fd = openSync(path, 'w');
  const levels = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'];
  let written = 0;
  let i = 0;
  while (written < bytes) {
    let chunk = '';
    for (let j = 0; j < 5000; j++, i++) {
      const ts = new Date(1_700_000_000_000 + i * 37).toISOString();
      chunk += `${ts} ${levels[i % levels.length]} [worker-${i % 16}] request id=${(i * 2654435761) >>> 0} path=/api/v1/items/${i % 977} status=${i % 13 === 0 ? 500 : 200} took=${i % 250}ms\n`;
    }
    writeSync(fd, chunk);
    written += Buffer.byteLength(chunk);
  }
  closeSync(fd);
  return statSync(path).size;
}

/** Runs cmd with the file on stdin and a drained pipe on stdout; returns ms, bytes out, peak RSS. */
function throughput(cmd, args, file, extraEnv = {}) {
  return new Promise((resolve, reject) => {
    const rssFile = join(work, `rss-${Math.random().toString(36).slice(2)}`);
    const fd = openSync(file, 'r');
    const t0 = performance.now();
    const child = spawn(cmd, args, {
      stdio: [fd, 'pipe', 'pipe'],
      env: { ...env, ...extraEnv, CG_BENCH_RSS_FILE: rssFile },
    });
    let out = 0;
    let err = '';
    child.stdout.on('data', (d) => {
      out += d.length;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      closeSync(fd);
      if (code !== 0) return reject(new Error(`${cmd} exited ${code}: ${err}`));
      let rss;
      try {
        rss = Number(readFileSync(rssFile, 'utf8'));
      } catch {
        rss = undefined;
      }
      resolve({ ms, out, rss });
    });
  });
}

const fmt = (x, d = 1) => x.toFixed(d);
const rows = [];

// 1. Start-up: the pipe, --version, expand KEY and run -- true, interleaved (bench/startup.mjs).
const { benchStartup } = await import('./startup.mjs');
rows.push(...benchStartup({ bin, env, rounds: Number(process.env.CG_BENCH_RUNS ?? 21) }));

// 2. Throughput and memory on a generated log.
const log = join(work, 'big.log');
const size = makeLog(log, sizeMb * MB);
const sizeMB = size / MB;
const cat = await throughput('cat', [], log);
const pass = await throughput(process.execPath, ['--import', probe, bin, '--preset', 'off'], log);
const coll = await throughput(process.execPath, ['--import', probe, bin], log);
const catRate = sizeMB / (cat.ms / 1000);
for (const [label, r] of [
  ['passthrough (--preset off)', pass],
  ['collapse (default preset)', coll],
]) {
  const rate = sizeMB / (r.ms / 1000);
  const budget = 2.5 * size + 80 * MB;
  rows.push([
    `${label}, ${fmt(sizeMB, 0)} MB log`,
    `${fmt(rate)} MB/s (${fmt(r.ms, 0)} ms, ${r.out} bytes out)`,
    `cat ${fmt(catRate)} MB/s`,
    `${fmt(rate / catRate, 3)}× cat; budget ≥ 100 MB/s`,
  ]);
  if (r.rss !== undefined) {
    rows.push([
      `peak RSS, ${label}`,
      `${fmt(r.rss / MB)} MB`,
      `input ${fmt(sizeMB)} MB`,
      `${fmt(r.rss / budget, 2)}× of budget (2.5× input + 80 MB)`,
    ]);
  }
}

// 3. `cg stats` on a 1,000,000-event ledger (bench/stats.mjs).
const { benchStats } = await import('./stats.mjs');
const st = benchStats({ runs: Number(process.env.CG_BENCH_RUNS ?? 5) });
rows.push([
  `cg stats, ${st.events.toLocaleString('en-US')}-event ledger`,
  `${fmt(st.tableMs, 0)} ms, CPU ${fmt(st.tableCpuMs, 0)} ms (--json ${fmt(st.jsonMs, 0)} ms, discover ${fmt(st.discoverMs, 0)} ms)`,
  `node -e '' ${fmt(st.nodeMs)} ms`,
  'budget ≤ 1 s',
]);

const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i].length)));
for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  │  '));
rmSync(work, { recursive: true, force: true });

// 1 MB of each input shape, end to end: time linear in input size (bench/shapes.mjs); cg expand with
// many markers (bench/expand.mjs).
{
  const { benchShapes } = await import('./shapes.mjs');
  const { benchExpand } = await import('./expand.mjs');
  const shapeRows = [...benchShapes({ bin, env }), ...benchExpand({ bin, env })];
  const w = [0, 1, 2, 3].map((i) => Math.max(...shapeRows.map((r) => r[i].length)));
  console.log('');
  for (const r of shapeRows) console.log(r.map((c, i) => c.padEnd(w[i])).join('  │  '));
}

// The hot paths at size (bench/hotpath.mjs) and peak RSS over sizes and shapes (bench/memory.mjs),
// against DESIGN §7's 2.5 × input + 80 MB; CG_BENCH_HOTPATH=0 / CG_BENCH_MEMORY=0 skip them.
if (process.env.CG_BENCH_HOTPATH !== '0') {
  const { hotpathLines } = await import('./hotpath.mjs');
  console.log('');
  for (const line of hotpathLines({ bin })) console.log(line);
}
if (process.env.CG_BENCH_MEMORY !== '0') {
  const { memoryLines } = await import('./memory.mjs');
  console.log('');
  for (const line of memoryLines({ bin })) console.log(line);
}

// Hook latency on Claude Code and Codex payloads (bench/hook.mjs).
{
  const { hookBench } = await import('./hook.mjs');
  console.log('');
  for (const line of await hookBench()) console.log(line);
}

// Store latency: the disk store against Redis (bench/store.mjs; Redis rows need redis-server).
{
  const { storeBench } = await import('./store.mjs');
  console.log('');
  for (const line of await storeBench()) console.log(line);
}

// Planted decompression bombs, disk and Redis: peak RSS of expand and of a stash over one (bench/bomb.mjs).
if (process.env.CG_BENCH_BOMB !== '0') {
  const { bombBench } = await import('./bomb.mjs');
  console.log('');
  for (const line of await bombBench()) console.log(line);
}

// rtk parity on rtk's own fixtures (bench/rtk.mjs).
{
  const { rtkLines } = await import('./rtk.mjs');
  console.log('');
  for (const line of await rtkLines()) console.log(line);
}

// The long tail: fold on logs, grep/find grouping, failure locations (bench/longtail.mjs).
{
  const { longtailLines } = await import('./longtail.mjs');
  console.log('');
  for (const line of await longtailLines()) console.log(line);
}

// Outputs nobody tuned for: the unseen-shapes set, tune and holdout parts, piped and run (bench/unseen.mjs).
{
  const { unseenLines } = await import('./unseen.mjs');
  console.log('');
  for (const line of await unseenLines()) console.log(line);
}

// Transcript components on the corpus sessions: replay figures and per-component savings.
if (existsSync(join(root, '..', 'shared', 'corpus'))) {
  const { main: transcripts } = await import('./transcripts.mjs');
  console.log('');
  for (const line of await transcripts()) console.log(line);
  // summarize's checkpoint policy on the same sessions, with a stand-in model (bench/summarize.mjs).
  const { main: summarize } = await import('./summarize.mjs');
  console.log('');
  for (const line of await summarize()) console.log(line);
}

// skeleton vs `repomix --compress` on the corpus source files (bench/skeleton.mjs).
if (process.env.CG_BENCH_SKELETON !== '0') {
  const { skeletonBench } = await import('./skeleton.mjs');
  console.log('');
  for (const line of (await skeletonBench({ env })).lines) console.log(line);
}

// cg proxy turn cost on generated sessions of 1k, 5k and 20k tool results (bench/proxy.mjs);
// CG_BENCH_PROXY=0 skips it, CG_BENCH_PROXY_SIZES="1000 5000" picks the sizes.
if (process.env.CG_BENCH_PROXY !== '0') {
  const { benchProxy, proxyLines } = await import('./proxy.mjs');
  const sizes = (process.env.CG_BENCH_PROXY_SIZES ?? '1000 5000 20000')
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  console.log('');
  console.log(
    'cg proxy turn cost (client send → upstream has the body; budgets: next turn 15 ms + 3 ms/MB, first sight of 20 MB 3 s, peak RSS 3× body)',
  );
  for (const line of proxyLines(await benchProxy(sizes))) console.log(line);
}
