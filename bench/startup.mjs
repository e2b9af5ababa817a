// Start-up figures (DESIGN §7, issue 19): `echo hi | cg`, `cg --version` and `cg expand KEY` against
// `node -e ''` started the same way, and what `cg run -- true` adds over `true`. On a shared, loaded
// machine wall time swings, so every case is run in interleaved rounds (a burst of load hits all of
// them alike) and both figures are reported: wall time (median) and CPU time (user + system of the
// process and every descendant it reaped, median), measured by bash's `time` around the one command
// (getrusage of the children, to the millisecond; bash's own start-up is outside both figures).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The command's stdout is the pipe back to this process (as for a real reader); its stderr is dropped.
const TIMED = 'TIMEFORMAT="%3R %3U %3S"; time "$@" 2>/dev/null';

/** One run under bash's `time`: wall and CPU milliseconds. */
function timeOnce(argv, input, env) {
  const r = spawnSync('bash', ['-c', TIMED, 'cg-bench', ...argv], {
    input,
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const m = /^(\d+\.\d+) (\d+\.\d+) (\d+\.\d+)\s*$/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { wall: Number(m[1]) * 1000, cpu: (Number(m[2]) + Number(m[3])) * 1000 };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Stashes one original and returns its key, for `cg expand KEY`. */
function stashOne(bin, env) {
  let text = '';
  for (let i = 0; i < 20_000; i++) text += `line ${i}\n`;
  const r = spawnSync(process.execPath, [bin], { input: text, env, encoding: 'utf8' });
  const key = /<<cg:([0-9a-f]{16})>>/.exec(r.stdout)?.[1];
  if (!key) throw new Error(`no marker in cg's output: ${r.stdout.slice(0, 200)}${r.stderr}`);
  return key;
}

/** The cases of one build of cg; `key` is an original in the shared store. */
function casesOf(prefix, bin, key) {
  const node = process.execPath;
  return {
    [`${prefix}pipe`]: [[node, bin], 'hi\n'],
    [`${prefix}version`]: [[node, bin, '--version'], ''],
    [`${prefix}expand`]: [[node, bin, 'expand', key], ''],
    [`${prefix}run`]: [[node, bin, 'run', '--', 'true'], ''],
  };
}

/** The four rows of one build, from the medians `m`. */
function rowsOf(prefix, m, label = '') {
  const f = (x) => x.toFixed(1);
  const both = (x) => `${f(x.wall)} ms, cpu ${f(x.cpu)} ms`;
  const ratio = (name, budget) => [
    both(m[prefix + name]),
    `node -e '' ${both(m.node)}`,
    `${(m[prefix + name].wall / m.node.wall).toFixed(2)}×, cpu ${(m[prefix + name].cpu / m.node.cpu).toFixed(2)}× (budget ≤ ${budget}×)`,
  ];
  const run = m[`${prefix}run`];
  return [
    [`start-up${label}: echo hi | cg`, ...ratio('pipe', 1.25)],
    [`start-up${label}: cg --version`, ...ratio('version', 1.25)],
    [`start-up${label}: cg expand KEY`, ...ratio('expand', 1.4)],
    [
      `start-up${label}: cg run -- true`,
      both(run),
      `true ${both(m.true)}`,
      `adds ${f(run.wall - m.true.wall)} ms, cpu ${f(run.cpu - m.true.cpu)} ms (budget ≤ 40 ms; node -e '' alone adds ${f(m.node.wall - m.true.wall)} ms, cpu ${f(m.node.cpu - m.true.cpu)} ms)`,
    ],
  ];
}

/**
 * Rows for bench/run.mjs: [label, wall and CPU, baseline, ratio and budget]. `rounds` interleaved
 * rounds of every case; the order inside a round rotates so none always runs first. `others`
 * ({label: bin}) are further builds measured in the same rounds (an A/B against an older build).
 */
export function benchStartup({ bin, env, rounds = 21, others = {} }) {
  const builds = { '': bin, ...Object.fromEntries(Object.entries(others).map(([l, b]) => [`${l}:`, b])) };
  const m = startupMedians({ bin, env, rounds, others });
  return Object.keys(builds).flatMap((prefix) =>
    rowsOf(prefix, m, prefix ? ` (${prefix.slice(0, -1)})` : ''),
  );
}

/**
 * The medians ({wall, cpu} ms) by case: node, true, and pipe, version, expand, run of this build
 * (each other build's prefixed `label:`), from `rounds` interleaved rounds.
 */
export function startupMedians({ bin, env, rounds = 21, others = {} }) {
  const work = mkdtempSync(join(tmpdir(), 'cg-bench-startup-'));
  const runEnv = {
    ...env,
    CG_STORE_DIR: join(work, 'store'),
    CG_STATE_DIR: join(work, 'state'),
    XDG_CONFIG_HOME: join(work, 'cfg'),
  };
  try {
    const key = stashOne(bin, runEnv);
    const builds = { '': bin, ...Object.fromEntries(Object.entries(others).map(([l, b]) => [`${l}:`, b])) };
    const cases = {
      node: [[process.execPath, '-e', ''], 'hi\n'],
      true: [['/bin/true'], ''],
      ...Object.assign({}, ...Object.entries(builds).map(([prefix, b]) => casesOf(prefix, b, key))),
    };
    const names = Object.keys(cases);
    const samples = Object.fromEntries(names.map((n) => [n, { wall: [], cpu: [] }]));
    for (const n of names) timeOnce(...cases[n], runEnv); // warm the file cache
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < names.length; i++) {
        const n = names[(i + r) % names.length];
        const t = timeOnce(...cases[n], runEnv);
        samples[n].wall.push(t.wall);
        samples[n].cpu.push(t.cpu);
      }
    }
    return Object.fromEntries(
      names.map((n) => [n, { wall: median(samples[n].wall), cpu: median(samples[n].cpu) }]),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// Run alone: `node bench/startup.mjs [rounds] [label=bin …]` (after `node scripts/build.mjs`): this
// build, and each labelled one in the same rounds, e.g. `before=/tmp/old/bin/cg.js`.
if (import.meta.url === `file://${process.argv[1]}`) {
  const bin = new URL('../bin/cg.js', import.meta.url).pathname;
  const env = { ...process.env };
  delete env.CG_DISABLE;
  const others = Object.fromEntries(process.argv.slice(3).map((a) => a.split(/=(.*)/s).slice(0, 2)));
  const rows = benchStartup({ bin, env, rounds: Number(process.argv[2] ?? 21), others });
  const w = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) console.log(r.map((c, i) => c.padEnd(w[i])).join('  │  '));
}
