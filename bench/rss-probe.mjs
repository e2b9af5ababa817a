// Preloaded into a benchmarked process: writes its peak RSS (bytes) to $CG_BENCH_RSS_FILE at exit.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const file = process.env.CG_BENCH_RSS_FILE;
  if (file) writeFileSync(file, String(process.resourceUsage().maxRSS * 1024));
});
