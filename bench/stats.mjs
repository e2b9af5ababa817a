// `cg stats` on a 200,000-event ledger (issue 7: well under a second). Writes a ledger in the v1 line
// format (src/stats/line.ts) with a realistic mix — per run a run line, component decisions, an out
// line when something was rewritten, some settled (d:1) lines and expands — spread over 60 days and
// a few sessions, then times `cg stats`, `--json` and `--since 7d --session` (median of runs).
// Nothing is pending, so no tokenizer is loaded. Run alone (node bench/stats.mjs) or from run.mjs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'cg.js');

export function makeLedger(dir, events = 200_000, now = Date.now()) {
  const commands = [
    'pytest -x tests',
    'npm test',
    'git log',
    'cargo build',
    'make',
    'ls -la',
    'kubectl get pods',
  ];
  const lines = [];
  let run = 0;
  const span = 60 * 86_400_000;
  while (lines.length < events) {
    const t = now - span + Math.floor((run / (events / 4)) * span);
    const r = `r${run.toString(36)}`;
    const s = `,"s":"sess-${run % 5}"`;
    const cmd = commands[run % commands.length];
    const settled = run % 3 === 0;
    let i = 0;
    // d/i come right after r, as line.ts writes them.
    const tail = () => (settled ? `,"d":1,"i":${i++}` : '');
    const rewritten = run % 2 === 0;
    const bi = 2000 + (run % 977) * 37;
    const ti = Math.floor(bi / 3.7);
    const to = Math.floor(ti / 9);
    lines.push(
      `{"v":1,"t":${t},"e":"run","r":"${r}"${tail()}${s},"fmt":"text","tk":"o200k","cmd":"${cmd}","n":1,"rw":${rewritten ? 1 : 0},"ub":${rewritten ? 0 : bi}}`,
    );
    if (rewritten) {
      lines.push(
        `{"v":1,"t":${t},"e":"out","r":"${r}"${tail()}${s},"o":"stdin","cmd":"${cmd}","bi":${bi},"bo":${Math.floor(bi / 9)},"ti":${ti},"to":${to},"k":"0123456789abcdef"}`,
      );
    }
    lines.push(
      `{"v":1,"t":${t},"e":"ev","r":"${r}"${tail()}${s},"c":"format","a":"skip","o":"stdin","cmd":"${cmd}","why":"does not apply","bi":${bi},"bo":0}`,
    );
    lines.push(
      `{"v":1,"t":${t},"e":"ev","r":"${r}"${tail()}${s},"c":"cmdfilter","a":"skip","o":"stdin","cmd":"${cmd}","why":"no filter matches","bi":${bi},"bo":0}`,
    );
    lines.push(
      rewritten
        ? `{"v":1,"t":${t},"e":"ev","r":"${r}"${tail()}${s},"c":"collapse","a":"rewrite","o":"stdin","cmd":"${cmd}","bi":${bi},"bo":${Math.floor(bi / 9)},"ti":${ti},"to":${to},"k":"0123456789abcdef","loss":"tail"}`
        : `{"v":1,"t":${t},"e":"ev","r":"${r}"${tail()}${s},"c":"collapse","a":"skip","o":"stdin","cmd":"${cmd}","why":"under max_tokens","bi":${bi},"bo":0}`,
    );
    if (run % 10 === 0) {
      lines.push(
        `{"v":1,"t":${t},"e":"x","r":"x${r}"${s},"k":"0123456789abcdef","hit":${run % 30 ? 1 : 0},"b":${bi},"tr":${run % 30 ? ti : 0}}`,
      );
    }
    run++;
  }
  lines.length = events;
  const file = join(dir, 'ledger.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return statSync(file).size;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export function benchStats({ runs = 5, events = 200_000 } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'cg-bench-stats-'));
  try {
    const bytes = makeLedger(work, events);
    const env = { ...process.env, CG_STATE_DIR: work, NO_COLOR: '1' };
    const time = (args) => {
      const times = [];
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        const r = spawnSync(process.execPath, [bin, 'stats', ...args], { env, maxBuffer: 1 << 26 });
        times.push(performance.now() - t0);
        if (r.status !== 0) throw new Error(`cg stats ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
      }
      return median(times);
    };
    const nodeMs = median(
      Array.from({ length: runs }, () => {
        const t0 = performance.now();
        spawnSync(process.execPath, ['-e', '']);
        return performance.now() - t0;
      }),
    );
    return {
      events,
      bytes,
      nodeMs,
      tableMs: time([]),
      jsonMs: time(['--json']),
      filteredMs: time(['--since', '7d', '--session', 'sess-1']),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = benchStats({ runs: Number(process.env.CG_BENCH_RUNS ?? 5) });
  const mb = (r.bytes / 1024 / 1024).toFixed(1);
  console.log(`cg stats, ${r.events.toLocaleString('en-US')}-event ledger (${mb} MB), median of runs:`);
  console.log(`  table                  ${r.tableMs.toFixed(0)} ms`);
  console.log(`  --json                 ${r.jsonMs.toFixed(0)} ms`);
  console.log(`  --since 7d --session   ${r.filteredMs.toFixed(0)} ms`);
  console.log(`  (node -e '' start-up   ${r.nodeMs.toFixed(0)} ms)`);
}
