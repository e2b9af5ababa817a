// Hook latency (DESIGN §7: a hook call ≤ 100 ms): `cg hook claude` on PostToolUse payloads as Claude
// Code sends them — a small output (most tool calls: answered without loading anything), a 16 KB log
// and a failing pytest -v (compacted: the engine, the filters and the tokenizer load) — and `cg hook
// codex` on a PreToolUse pytest call (a rewrite), each the median of several runs next to
// `node -e ''` started the same way, so a busy machine shifts both sides alike.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = process.env.CG_BENCH_BIN ?? join(root, 'bin', 'cg.js');
const probe = join(root, 'bench', 'cpu-probe.mjs');

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Median wall and CPU (user + sys, from cpu-probe.mjs) of n runs: CPU barely moves with the load. */
function time(args, input, env, n) {
  const times = [];
  const cpu = [];
  const dir = mkdtempSync(join(tmpdir(), 'cg-bench-hook-cpu-'));
  const cpuFile = join(dir, 'cpu');
  try {
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const r = spawnSync(process.execPath, ['--import', probe, ...args], {
        input,
        env: { ...env, CG_BENCH_CPU_FILE: cpuFile },
      });
      times.push(performance.now() - t0);
      if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
      cpu.push(Number(readFileSync(cpuFile, 'utf8')));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { wall: median(times), cpu: median(cpu) };
}

const bash = (command, stdout) =>
  JSON.stringify({
    session_id: 'bench',
    cwd: root,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command },
    tool_response: { stdout, stderr: '', interrupted: false, isImage: false },
  });

function pytestOutput() {
  const lines = [
    '============================= test session starts ==============================',
    'collected 150 items',
    '',
  ];
  for (let i = 0; i < 150; i++)
    lines.push(
      `tests/test_calc.py::test_case_${i} ${i % 37 === 0 ? 'FAILED' : 'PASSED'}  [ ${Math.round((i / 150) * 100)}%]`,
    );
  lines.push('', '=================================== FAILURES ===================================');
  for (let i = 0; i < 150; i += 37)
    lines.push(
      `___ test_case_${i} ___`,
      '    def test():',
      `>       assert describe(${i}) == want`,
      `E       AssertionError: record ${i} differs`,
      '',
    );
  lines.push('=========================== short test summary info ============================');
  for (let i = 0; i < 150; i += 37)
    lines.push(`FAILED tests/test_calc.py::test_case_${i} - AssertionError: record ${i} differs`);
  lines.push('========================= 5 failed, 145 passed in 0.31s =========================');
  return lines.join('\n');
}

/**
 * The budget row's figures (bench/budgets.mjs): a compacting call (the 16 KB log) and `node -e ''`,
 * interleaved run by run, medians of `runs`.
 */
export async function hookTimes({ runs = 11 } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'cg-bench-hook-'));
  const env = {
    ...process.env,
    CG_STORE_DIR: join(work, 'store'),
    CG_STATE_DIR: join(work, 'state'),
    XDG_CONFIG_HOME: join(work, 'cfg'),
  };
  delete env.CG_DISABLE;
  delete env.CG_HOOK_DEBUG;
  try {
    const input = bash('cat app.log', appLog());
    const node = [];
    const cg = [];
    for (let i = 0; i < runs; i++) {
      node.push(time(['-e', ''], '', env, 1));
      cg.push(time([bin, 'hook', 'claude'], input, env, 1));
    }
    const m = (xs) => ({ wall: median(xs.map((x) => x.wall)), cpu: median(xs.map((x) => x.cpu)) });
    return { label: `PostToolUse, ${(input.length / 1024).toFixed(0)} KB log`, node: m(node), cg: m(cg) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function appLog() {
  return Array.from(
    { length: 200 },
    (_, i) =>
      `2026-11-01T08:00:${String(i % 60).padStart(2, '0')}Z INFO [worker-${i % 8}] request id=${i * 7919} status=200`,
  ).join('\n');
}

export async function hookBench({ runs = 7 } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'cg-bench-hook-'));
  const env = {
    ...process.env,
    CG_STORE_DIR: join(work, 'store'),
    CG_STATE_DIR: join(work, 'state'),
    XDG_CONFIG_HOME: join(work, 'cfg'),
  };
  delete env.CG_DISABLE;
  delete env.CG_HOOK_DEBUG;
  const log = appLog();
  const cases = [
    ['claude PostToolUse, small output (ls)', ['hook', 'claude'], bash('ls', 'README.md\nsrc\ntest\n')],
    ['claude PostToolUse, 16 KB log (cat)', ['hook', 'claude'], bash('cat app.log', log)],
    [
      'claude PostToolUse, failing pytest -v',
      ['hook', 'claude'],
      bash('python3 -m pytest -v', pytestOutput()),
    ],
    [
      'codex PreToolUse, pytest (a rewrite)',
      ['hook', 'codex'],
      JSON.stringify({
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        cwd: root,
        tool_input: { command: 'python3 -m pytest -q' },
      }),
    ],
  ];
  const node = time(['-e', ''], '', env, runs);
  const lines = [
    `Hook latency (median of ${runs}; node -e '' ${node.wall.toFixed(0)} ms, cpu ${node.cpu.toFixed(0)} ms on this machine now; budget ≤ 100 ms a call):`,
  ];
  for (const [label, args, input] of cases) {
    const t = time([bin, ...args], input, env, runs);
    lines.push(
      `  ${label.padEnd(40)} ${t.wall.toFixed(0).padStart(5)} ms  (${(t.wall / node.wall).toFixed(2)}× node, +${(t.wall - node.wall).toFixed(0)} ms)  cpu ${t.cpu.toFixed(0).padStart(4)} ms (+${(t.cpu - node.cpu).toFixed(0)} ms over node)`,
    );
  }
  rmSync(work, { recursive: true, force: true });
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await hookBench()) console.log(line);
}
