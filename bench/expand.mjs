// `cg expand` with N markers on stdin (issue 13 item 10: 60,000 took 109 s, quadratic in N). The store
// is filled directly in its public layout (DESIGN §5: store/ab/abcdef…, small entries raw), the
// markers piped in one per line, and the time for 20,000 and 60,000 compared: linear means ≈ 3×.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { timedRun } from './timed.mjs';

function fill(store, n) {
  let text = '';
  for (let i = 0; i < n; i++) {
    const body = `original number ${i}\n`;
    const key = createHash('sha256').update(body).digest('hex').slice(0, 16);
    mkdirSync(join(store, key.slice(0, 2)), { recursive: true, mode: 0o700 });
    writeFileSync(join(store, key.slice(0, 2), key), body, { mode: 0o600 });
    text += `line ${i} <<cg:${key}>> [full output: cg expand ${key}]\n`;
  }
  return text;
}

/** Rows for bench/run.mjs: [label, time, what it did, note]. */
export function benchExpand({ bin, env, counts = [20_000, 60_000] }) {
  const work = mkdtempSync(join(tmpdir(), 'cg-bench-expand-'));
  try {
    const store = join(work, 'store');
    const input = fill(store, Math.max(...counts));
    const lines = input.split('\n');
    const rows = [];
    let first;
    for (const n of counts) {
      const r = timedRun(bin, ['expand'], {
        input: `${lines.slice(0, n).join('\n')}\n`,
        env: { ...env, CG_STORE_DIR: store, CG_STATE_DIR: join(work, 'state') },
      });
      const ms = r.cpuMs;
      first ??= { n, ms };
      rows.push([
        `cg expand, ${n.toLocaleString('en-US')} markers on stdin`,
        `${r.ms.toFixed(0)} ms, cpu ${r.cpuMs.toFixed(0)} ms`,
        `${r.out} bytes out`,
        n === first.n
          ? 'linear: time ∝ markers'
          : `cpu ${(ms / first.ms).toFixed(2)}× the ${first.n.toLocaleString('en-US')}-marker run for ${(n / first.n).toFixed(0)}× the markers`,
      ]);
    }
    return rows;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
