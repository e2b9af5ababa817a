// The hot paths at size (issue 19 "Speed", issue 13 item 9): collapse of a 100 MB log, format of
// 50 MB of pretty-printed JSON, smartcrush of a 56 MB flat array, and a 60 MB request body, each
// run as `cg` end to end with its wall time, CPU time (user + sys) and peak RSS, next to Node's own
// floor for the same work in a child started the same way (one SHA-256 plus the store's parallel
// gzip for collapse; JSON.parse + JSON.stringify for the JSON inputs). The machine is shared, so
// CPU time is the figure to judge; budgets: collapse ≥ 150 MB/s, format and smartcrush ≤ 3× the
// floor, peak RSS ≤ 2.5× input + 80 MB (DESIGN §7).
//
//   node bench/hotpath.mjs [case …]      cases: collapse format smartcrush body (default: all)
//   CG_BENCH_BIN=/other/bin/cg.js        measure another build (A/B runs)
//   CG_BENCH_SCALE=0.1                   a tenth of every size (a quick look)
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const MB = 1024 * 1024;

/** Writes `bytes` of generated text to path, chunk by chunk (never all of it in one string). */
export function writeChunks(path, bytes, chunk, open = '', close = '') {
  const fd = openSync(path, 'w');
  let written = writeSync(fd, open);
  for (let i = 0; written < bytes; i++) written += writeSync(fd, chunk(i, written === open.length));
  writeSync(fd, close);
  closeSync(fd);
}

const LEVELS = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'];

/** A build-server log, 5,000 lines a chunk (the same lines as bench/run.mjs's). */
export function makeLog(path, bytes) {
  writeChunks(path, bytes, (c) => {
    let s = '';
    for (let j = 0; j < 5000; j++) {
      const i = c * 5000 + j;
      const ts = new Date(1_700_000_000_000 + i * 37).toISOString();
      s += `${ts} ${LEVELS[i % LEVELS.length]} [worker-${i % 16}] request id=${(i * 2654435761) >>> 0} path=/api/v1/items/${i % 977} status=${i % 13 === 0 ? 500 : 200} took=${i % 250}ms\n`;
    }
    return s;
  });
}

function record(i) {
  return {
    id: i,
    name: `item-${(i * 2654435761) >>> 0}`,
    status: i % 97 === 0 ? 'failed' : 'ok',
    price: Math.round(((i * 7919) % 100000) / 7) / 100,
    tags: [`t${i % 7}`, `t${i % 11}`],
    owner: { login: `user${i % 503}`, site_admin: i % 2 === 0 },
    description: `Record ${i} of the generated set, with words like alpha beta gamma ${i % 31}`,
  };
}

function flat(i) {
  return {
    id: i,
    sha: ((i * 2654435761) >>> 0).toString(16).padStart(8, '0'),
    state: i % 89 === 0 ? 'failed' : 'success',
    duration_ms: (i * 37) % 5000,
    branch: `feature/${i % 211}`,
    message: `Commit ${i}: update module ${i % 97}`,
  };
}

/** One pretty-printed JSON array (2-space indent, as `jq .` or a `gh api` call prints it). */
export function makePrettyJson(path, bytes) {
  writeChunks(
    path,
    bytes,
    (c, first) => {
      let s = '';
      for (let j = 0; j < 1000; j++) {
        const body = JSON.stringify(record(c * 1000 + j), null, 2).replace(/\n/g, '\n  ');
        s += `${first && j === 0 ? '' : ',\n'}  ${body}`;
      }
      return s;
    },
    '[\n',
    '\n]\n',
  );
}

/** One compact JSON array of flat objects, one per line. */
export function makeFlatArray(path, bytes) {
  writeChunks(
    path,
    bytes,
    (c, first) => {
      let s = '';
      for (let j = 0; j < 1000; j++)
        s += `${first && j === 0 ? '' : ',\n'}${JSON.stringify(flat(c * 1000 + j))}`;
      return s;
    },
    '[\n',
    '\n]\n',
  );
}

/** An Anthropic Messages body: a conversation of Bash calls, each result a 40 KB log. */
export function makeRequestBody(path, bytes) {
  const log = Array.from(
    { length: 400 },
    (_, i) =>
      `2026-11-01T08:${String(i % 60).padStart(2, '0')}:00Z INFO [worker-${i % 8}] request id=${i * 7919} status=200 took=${i % 97}ms`,
  ).join('\n');
  writeChunks(
    path,
    bytes,
    (i, first) => {
      const use = {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: { command: `cat app-${i}.log` } },
        ],
      };
      const result = {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: `run ${i}\n${log}` }],
      };
      return `${first ? '' : ','}${JSON.stringify(use)},${JSON.stringify(result)}`;
    },
    '{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"Look at the logs."},',
    ',{"role":"user","content":"Thanks."}]}',
  );
}

const FLOOR_HASH_GZIP = `
const { readFileSync } = require('node:fs');
const { createHash } = require('node:crypto');
const { gzip } = require('node:zlib');
const b = readFileSync(0);
createHash('sha256').update(b).digest('hex');
const step = Math.ceil(b.length / 4);
Promise.all([0, 1, 2, 3].map((i) => new Promise((ok, no) =>
  gzip(b.subarray(i * step, Math.min(b.length, (i + 1) * step)), { level: 1, chunkSize: 1 << 20 },
    (e, out) => (e ? no(e) : ok(out)))))).then((parts) => process.stdout.write(String(parts.length)));`;
const FLOOR_JSON = `
const t = require('node:fs').readFileSync(0, 'utf8');
process.stdout.write(JSON.stringify(JSON.parse(t)).length + '\\n');`;

/** One child: wall ms, CPU ms and peak RSS (from the probes preloaded into it), bytes out. */
export function measure(args, file, env = process.env) {
  const dir = mkdtempSync(join(tmpdir(), 'cg-hotpath-m-'));
  const cpuFile = join(dir, 'cpu');
  const rssFile = join(dir, 'rss');
  const fd = openSync(file, 'r');
  try {
    const t0 = performance.now();
    const r = spawnSync(
      process.execPath,
      ['--import', join(here, 'cpu-probe.mjs'), '--import', join(here, 'rss-probe.mjs'), ...args],
      {
        stdio: [fd, 'pipe', 'pipe'],
        env: { ...env, CG_BENCH_CPU_FILE: cpuFile, CG_BENCH_RSS_FILE: rssFile },
        maxBuffer: 1 << 30,
      },
    );
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return {
      ms,
      cpuMs: Number(readFileSync(cpuFile, 'utf8')),
      rss: Number(readFileSync(rssFile, 'utf8')),
      out: r.stdout.length,
    };
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
}

const CASES = {
  collapse: { make: makeLog, mb: 100, args: [], floor: FLOOR_HASH_GZIP, floorName: 'sha256 + gzip' },
  format: {
    make: makePrettyJson,
    mb: 50,
    args: ['--components', 'format'],
    floor: FLOOR_JSON,
    floorName: 'JSON.parse+stringify',
  },
  smartcrush: {
    make: makeFlatArray,
    mb: 56,
    args: ['--components', 'smartcrush'],
    floor: FLOOR_JSON,
    floorName: 'JSON.parse+stringify',
  },
  'shell preset on the array': {
    make: makeFlatArray,
    mb: 56,
    args: [],
    floor: FLOOR_JSON,
    floorName: 'JSON.parse+stringify',
  },
  body: { make: makeRequestBody, mb: 60, args: [], floor: FLOOR_JSON, floorName: 'JSON.parse+stringify' },
};

/** The environment of a measured run: its own store, state and config under `work`, cg enabled. */
export function benchEnv(work) {
  const env = {
    ...process.env,
    CG_STORE_DIR: join(work, 'store'),
    CG_STATE_DIR: join(work, 'state'),
    XDG_CONFIG_HOME: join(work, 'cfg'),
  };
  delete env.CG_DISABLE;
  return env;
}

/** Lines for bench/run.mjs (or the command line): one per case, with its floor beside it. */
export function hotpathLines({
  bin = join(here, '..', 'bin', 'cg.js'),
  names = Object.keys(CASES),
  scale = 1,
} = {}) {
  const work = mkdtempSync(join(tmpdir(), 'cg-hotpath-'));
  const env = benchEnv(work);
  const lines = ['Hot paths (wall / CPU / peak RSS; CPU is the figure on a shared machine):'];
  const made = new Map();
  try {
    for (const name of names) {
      const c = CASES[name];
      if (!c) throw new Error(`unknown case ${name}: ${Object.keys(CASES).join(', ')}`);
      const key = `${c.make.name}-${c.mb}`;
      if (!made.has(key)) {
        const file = join(work, key);
        c.make(file, c.mb * scale * MB);
        made.set(key, file);
      }
      const file = made.get(key);
      const size = readFileSync(file).length;
      const floor = measure(['-e', c.floor], file, env);
      const cg = measure([bin, ...c.args], file, env);
      const mb = size / MB;
      const budget = 2.5 * size + 80 * MB;
      lines.push(
        `  ${`${name}, ${mb.toFixed(0)} MB`.padEnd(34)} ${(cg.ms / 1000).toFixed(2)} s wall, cpu ${(cg.cpuMs / 1000).toFixed(2)} s (${(mb / (cg.cpuMs / 1000)).toFixed(0)} MB/s of CPU), rss ${(cg.rss / MB).toFixed(0)} MB (${(cg.rss / budget).toFixed(2)} of budget), ${cg.out} bytes out` +
          ` │ floor ${c.floorName}: cpu ${(floor.cpuMs / 1000).toFixed(2)} s → ${(cg.cpuMs / floor.cpuMs).toFixed(2)}× floor`,
      );
      rmSync(env.CG_STORE_DIR, { recursive: true, force: true });
    }
    return lines;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const names = process.argv.slice(2);
  for (const line of hotpathLines({
    ...(process.env.CG_BENCH_BIN ? { bin: process.env.CG_BENCH_BIN } : {}),
    ...(names.length ? { names } : {}),
    scale: Number(process.env.CG_BENCH_SCALE ?? 1),
  }))
    console.log(line);
}
