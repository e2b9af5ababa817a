// `cg stats` on a 1,000,000-event ledger (issue 19: ≤ 1 s). Writes a ledger in the v1 line format
// (src/stats/line.ts) with a realistic mix — per run a run line naming its host and door, component
// decisions, an out line when something was rewritten (host-capped figures on the long ones), the
// filter a cmdfilter rewrite applied, some settled (d:1) lines and expands of real keys — spread
// over 60 days and a few sessions, then times `cg stats`, `--json`, `--since 7d --session` and
// `cg discover` (median of runs). Wall time on a shared machine says little, so each figure also
// has the child's CPU time (user + system, from /proc/self/stat of this process after the child
// is reaped). Nothing is pending, so no tokenizer is loaded. The first `cg stats` on the fresh ledger
// reads it all and leaves a checkpoint (src/stats/read-cache.ts): it is timed apart as the first
// run; the medians are of the runs after it, which go on from the checkpoint (a --since report has
// none, so it reads the ledger every time). Run alone (node bench/stats.mjs, CG_BENCH_EVENTS to
// change the size, CG_BENCH_BIN to time another build) or from run.mjs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const defaultBin = process.env.CG_BENCH_BIN || join(root, 'bin', 'cg.js');

export function makeLedger(dir, events = 1_000_000, now = Date.now()) {
  const commands = [
    'pytest -x tests',
    'npm test',
    'git log',
    'cargo build',
    'make',
    'ls -la',
    'kubectl get pods',
  ];
  const hosts = [',"h":"claude-code"', ',"h":"codex"', ''];
  const lines = [];
  let run = 0;
  const span = 60 * 86_400_000;
  const key = (n) => n.toString(16).padStart(16, '0');
  while (lines.length < events) {
    const t = now - span + Math.floor((run / (events / 5)) * span);
    const r = `r${run.toString(36)}`;
    const s = `,"s":"sess-${run % 5}"`;
    const cmd = commands[run % commands.length];
    const h = hosts[run % hosts.length];
    const settled = run % 3 === 0;
    let i = 0;
    // d/i come right after r, as line.ts writes them.
    const tail = () => (settled ? `,"d":1,"i":${i++}` : '');
    const rewritten = run % 2 === 0;
    const filtered = run % 4 === 0;
    const bi = 2000 + (run % 977) * 37;
    const ti = Math.floor(bi / 3.7);
    const to = Math.floor(ti / 9);
    const capped = bi > 30_000 && h ? `,"hi":${Math.min(ti, 560)}` : '';
    const k = key(run % 50_000);
    lines.push(
      `{"v":1,"t":${t},"e":"run","r":"${r}"${tail()}${s},"fmt":"text","tk":"o200k","cmd":"${cmd}","n":1,"rw":${rewritten ? 1 : 0},"ub":${rewritten ? 0 : bi}${h},"via":"hook"}`,
    );
    if (rewritten) {
      lines.push(
        `{"v":1,"t":${t},"e":"out","r":"${r}"${tail()}${s},"o":"stdin","cmd":"${cmd}"${h}${filtered ? '' : ',"nf":1'},"bi":${bi},"bo":${Math.floor(bi / 9)},"ti":${ti}${capped},"to":${to},"k":"${k}"}`,
      );
    }
    lines.push(
      `{"v":1,"t":${t},"e":"ev","r":"${r}"${tail()}${s},"c":"format","a":"skip","o":"stdin","cmd":"${cmd}","why":"does not apply","bi":${bi},"bo":0}`,
    );
    lines.push(
      rewritten && filtered
        ? `{"v":1,"t":${t},"e":"ev","r":"${r}"${tail()}${s},"c":"cmdfilter","a":"rewrite","f":"${cmd.split(' ')[0]}","o":"stdin","cmd":"${cmd}","bi":${bi},"bo":${Math.floor(bi / 9)},"ti":${ti},"to":${to},"k":"${k}","loss":"whole"}`
        : `{"v":1,"t":${t},"e":"ev","r":"${r}"${tail()}${s},"c":"cmdfilter","a":"skip","o":"stdin","cmd":"${cmd}","why":"no filter matches"${rewritten ? ',"ro":1' : ''},"bi":${bi},"bo":0}`,
    );
    lines.push(
      rewritten && !filtered
        ? `{"v":1,"t":${t},"e":"ev","r":"${r}"${tail()}${s},"c":"collapse","a":"rewrite","o":"stdin","cmd":"${cmd}","bi":${bi},"bo":${Math.floor(bi / 9)},"ti":${ti},"to":${to},"k":"${k}","loss":"tail"}`
        : `{"v":1,"t":${t},"e":"ev","r":"${r}"${tail()}${s},"c":"collapse","a":"skip","o":"stdin","cmd":"${cmd}","why":"under max_tokens","bi":${bi},"bo":0}`,
    );
    if (run % 10 === 0) {
      lines.push(
        `{"v":1,"t":${t},"e":"x","r":"x${r}"${s},"k":"${k}","hit":${run % 30 ? 1 : 0}${h},"b":${bi},"tr":${run % 30 ? ti : 0}}`,
      );
    }
    run++;
  }
  lines.length = events;
  const file = join(dir, 'ledger.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return statSync(file).size;
}

/** CPU seconds (user + system) of this process's reaped children, from /proc (Linux), else NaN. */
function childCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of stat(5) (cutime, cstime), in clock ticks of 10 ms on Linux.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return Number.NaN;
  }
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export function benchStats({ runs = 5, events = 1_000_000, bin = defaultBin } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'cg-bench-stats-'));
  try {
    const bytes = makeLedger(work, events);
    const env = { ...process.env, CG_STATE_DIR: work, NO_COLOR: '1' };
    const time = (args, n = runs) => {
      const wall = [];
      const cpu = [];
      for (let i = 0; i < n; i++) {
        const c0 = childCpuMs();
        const t0 = performance.now();
        const r = spawnSync(process.execPath, [bin, ...args], { env, maxBuffer: 1 << 26 });
        wall.push(performance.now() - t0);
        cpu.push(childCpuMs() - c0);
        if (r.status !== 0) throw new Error(`cg ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
      }
      return { wall: median(wall), cpu: median(cpu) };
    };
    const nodeMs = median(
      Array.from({ length: runs }, () => {
        const t0 = performance.now();
        spawnSync(process.execPath, ['-e', '']);
        return performance.now() - t0;
      }),
    );
    const first = time(['stats'], 1);
    const table = time(['stats']);
    const json = time(['stats', '--json']);
    const filtered = time(['stats', '--since', '7d', '--session', 'sess-1']);
    const discover = time(['discover']);
    return {
      events,
      bytes,
      nodeMs,
      firstMs: first.wall,
      firstCpuMs: first.cpu,
      tableMs: table.wall,
      tableCpuMs: table.cpu,
      jsonMs: json.wall,
      jsonCpuMs: json.cpu,
      filteredMs: filtered.wall,
      filteredCpuMs: filtered.cpu,
      discoverMs: discover.wall,
      discoverCpuMs: discover.cpu,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = benchStats({
    runs: Number(process.env.CG_BENCH_RUNS ?? 5),
    events: Number(process.env.CG_BENCH_EVENTS ?? 1_000_000),
  });
  const mb = (r.bytes / 1024 / 1024).toFixed(1);
  const row = (label, wall, cpu) =>
    console.log(`  ${label.padEnd(22)} ${wall.toFixed(0).padStart(5)} ms  (CPU ${cpu.toFixed(0)} ms)`);
  console.log(`cg stats, ${r.events.toLocaleString('en-US')}-event ledger (${mb} MB), median of runs:`);
  row('first run (full read)', r.firstMs, r.firstCpuMs);
  row('table', r.tableMs, r.tableCpuMs);
  row('--json', r.jsonMs, r.jsonCpuMs);
  row('--since 7d --session', r.filteredMs, r.filteredCpuMs);
  row('cg discover', r.discoverMs, r.discoverCpuMs);
  console.log(`  (node -e '' start-up   ${r.nodeMs.toFixed(0)} ms)`);
}
