// npm run bench: figures as ratios to floors measured in the same run (DESIGN §7, issue 32), so a slow
// or busy machine shifts both sides alike. First the budget tables (bench/budgets.mjs): the pipe
// (passthrough, the default preset and format vs node's own pipe and JSON.parse + stringify, peak
// RSS vs 2.5 × input + 80 MB), per call (start-up, a hook call, cg stats) and, further down, the
// proxy (a turn vs raw forwarding); then the detail sections; last, a summary of every budget row,
// pass or over. CG_BENCH_QUICK=1: the budgets only, at smaller sizes and fewer rounds.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'cg.js');
const work = mkdtempSync(join(tmpdir(), 'cg-bench-'));
// The bench's runs are not the user's: its store, config and stats ledger are its own.
const env = {
  ...process.env,
  CG_STORE_DIR: join(work, 'store'),
  CG_STATE_DIR: join(work, 'state'),
  XDG_CONFIG_HOME: join(work, 'cfg'),
};
delete env.CG_DISABLE;
const { budgetLines, pipeRows, callRows, proxyRows, summaryLines, row, quick } = await import(
  './budgets.mjs'
);
/** Every budget row of the run, for the summary at the end. */
const budgets = [];
const table = (rows, title) => {
  budgets.push(...rows);
  console.log(title);
  for (const line of budgetLines(rows)) console.log(`  ${line}`);
  console.log('');
};

// 1. The pipe and the per-call figures against their floors, interleaved (bench/budgets.mjs).
table(pipeRows({ bin }), 'The pipe against its floors (medians of interleaved runs):');
table(await callRows({ bin, env }), 'Per call (start-up: bench/startup.mjs; cg stats: bench/stats.mjs):');
rmSync(work, { recursive: true, force: true });
// CG_BENCH_QUICK=1: the budgets only, at smaller sizes.
const full = !quick;

// 1 MB of each input shape, end to end: time linear in input size (bench/shapes.mjs); cg expand with
// many markers (bench/expand.mjs).
if (full) {
  const { benchShapes } = await import('./shapes.mjs');
  const { benchExpand } = await import('./expand.mjs');
  const shapeRows = [...benchShapes({ bin, env }), ...benchExpand({ bin, env })];
  const w = [0, 1, 2, 3].map((i) => Math.max(...shapeRows.map((r) => r[i].length)));
  console.log('');
  for (const r of shapeRows) console.log(r.map((c, i) => c.padEnd(w[i])).join('  │  '));
}

// The hot paths at size (bench/hotpath.mjs) and peak RSS over sizes and shapes (bench/memory.mjs),
// against DESIGN §7's 2.5 × input + 80 MB; CG_BENCH_HOTPATH=0 / CG_BENCH_MEMORY=0 skip them.
if (full && process.env.CG_BENCH_HOTPATH !== '0') {
  const { hotpathLines } = await import('./hotpath.mjs');
  console.log('');
  for (const line of hotpathLines({ bin })) console.log(line);
}
if (full && process.env.CG_BENCH_MEMORY !== '0') {
  const { memoryLines } = await import('./memory.mjs');
  console.log('');
  const lines = memoryLines({ bin });
  for (const line of lines) console.log(line);
  budgets.push(
    row('peak RSS, worst run of bench/memory.mjs', 'at-most', 'input', 0, lines.worst, 1, 'of budget'),
  );
}

// Hook latency on Claude Code and Codex payloads (bench/hook.mjs).
if (full) {
  const { hookBench } = await import('./hook.mjs');
  console.log('');
  for (const line of await hookBench()) console.log(line);
}

// Store latency: the disk store against Redis (bench/store.mjs; Redis rows need redis-server).
if (full) {
  const { storeBench } = await import('./store.mjs');
  console.log('');
  for (const line of await storeBench()) console.log(line);
}

// Planted decompression bombs, disk and Redis: peak RSS of expand and of a stash over one (bench/bomb.mjs).
if (full && process.env.CG_BENCH_BOMB !== '0') {
  const { bombBench } = await import('./bomb.mjs');
  console.log('');
  for (const line of await bombBench()) console.log(line);
}

// rtk parity on rtk's own fixtures (bench/rtk.mjs).
if (full) {
  const { rtkLines } = await import('./rtk.mjs');
  console.log('');
  for (const line of await rtkLines()) console.log(line);
}

// The long tail: fold on logs, grep/find grouping, failure locations (bench/longtail.mjs).
if (full) {
  const { longtailLines } = await import('./longtail.mjs');
  console.log('');
  for (const line of await longtailLines()) console.log(line);
}

// Outputs nobody tuned for: the unseen-shapes set, tune and holdout parts, piped and run (bench/unseen.mjs).
if (full) {
  const { unseenLines } = await import('./unseen.mjs');
  console.log('');
  for (const line of await unseenLines()) console.log(line);
}

// Transcript components on the corpus sessions: replay figures and per-component savings.
if (full && existsSync(join(root, '..', 'shared', 'corpus'))) {
  const { main: transcripts } = await import('./transcripts.mjs');
  console.log('');
  for (const line of await transcripts()) console.log(line);
  // summarize's checkpoint policy on the same sessions, with a stand-in model (bench/summarize.mjs).
  const { main: summarize } = await import('./summarize.mjs');
  console.log('');
  for (const line of await summarize()) console.log(line);
}

// skeleton vs `repomix --compress` on the corpus source files (bench/skeleton.mjs).
if (full && process.env.CG_BENCH_SKELETON !== '0') {
  const { skeletonBench } = await import('./skeleton.mjs');
  console.log('');
  for (const line of (await skeletonBench({ env })).lines) console.log(line);
}

// cg proxy turn cost on generated sessions of 1k, 5k and 20k tool results (bench/proxy.mjs);
// CG_BENCH_PROXY=0 skips it, CG_BENCH_PROXY_SIZES="1000 5000" picks the sizes.
if (process.env.CG_BENCH_PROXY !== '0') {
  const { benchProxy, proxyLines } = await import('./proxy.mjs');
  const sizes = (process.env.CG_BENCH_PROXY_SIZES ?? (quick ? '1000 5000' : '1000 5000 20000'))
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  console.log('');
  const results = await benchProxy(sizes);
  console.log('cg proxy turn cost (client send → upstream has the body):');
  for (const line of proxyLines(results)) console.log(line);
  console.log('');
  table(proxyRows(results), 'cg proxy against its floors:');
}

// What a session record in Redis costs a proxy turn against one on disk (bench/fleet.mjs): the
// record's own work on 1k-20k outputs (the proxies side by side: `node bench/fleet.mjs`, slower).
// Needs redis-server; CG_BENCH_FLEET=0 skips it.
if (full && process.env.CG_BENCH_FLEET !== '0') {
  const { benchRecords, recordLines } = await import('./fleet-records.mjs');
  console.log('');
  if (spawnSync('sh', ['-c', 'command -v redis-server']).status !== 0)
    console.log('session records in Redis: skipped (redis-server is not installed)');
  else {
    console.log('session record work per turn, in Redis vs on disk (medians)');
    for (const line of recordLines(await benchRecords())) console.log(line);
  }
}

console.log('');
for (const line of summaryLines(budgets)) console.log(line);
