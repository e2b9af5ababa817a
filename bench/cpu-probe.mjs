// Preloaded into a benchmarked process: writes its CPU time (user + system, ms) to $CG_BENCH_CPU_FILE
// at exit. On a shared machine wall time swings with the load; CPU time barely does.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const file = process.env.CG_BENCH_CPU_FILE;
  if (!file) return;
  const { userCPUTime, systemCPUTime } = process.resourceUsage();
  writeFileSync(file, String((userCPUTime + systemCPUTime) / 1000));
});
