// One benchmarked run of cg: wall time, and the CPU time the child reports through cpu-probe.mjs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const probe = join(dirname(fileURLToPath(import.meta.url)), 'cpu-probe.mjs');

/** Runs `node --import cpu-probe bin args` with input on stdin; throws on a non-zero exit. */
export function timedRun(bin, args, { input, env, maxBuffer = 1 << 28 }) {
  const dir = mkdtempSync(join(tmpdir(), 'cg-bench-cpu-'));
  const cpuFile = join(dir, 'cpu');
  try {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, ['--import', probe, bin, ...args], {
      input,
      env: { ...env, CG_BENCH_CPU_FILE: cpuFile },
      maxBuffer,
    });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`cg ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return { ms, cpuMs: Number(readFileSync(cpuFile, 'utf8')), out: r.stdout.length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
