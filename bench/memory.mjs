// Peak RSS of whole `cg` runs over sizes and shapes (issue 13 item 9, DESIGN §7: any run ≤ 2.5× its
// input + 80 MB): a build log, pretty-printed JSON records, a flat JSON array (one object a line)
// and an Anthropic request body, each at 1, 4, 16 and 64 MB, through the default preset — what a
// user or an agent's hook runs — each in a fresh store. The generators are bench/hotpath.mjs's.
//
//   node bench/memory.mjs [shape …]        shapes: log pretty flat body (default: all)
//   CG_BENCH_BIN=/other/bin/cg.js          measure another build (A/B runs)
//   CG_BENCH_MEMORY_SIZES="1 4 16"         pick the sizes (MB)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchEnv, makeFlatArray, makeLog, makePrettyJson, makeRequestBody, measure } from './hotpath.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const MB = 1024 * 1024;
const SHAPES = { log: makeLog, pretty: makePrettyJson, flat: makeFlatArray, body: makeRequestBody };

/** One line per run, and the worst ratio of peak to budget. */
export function memoryLines({
  bin = join(here, '..', 'bin', 'cg.js'),
  shapes = Object.keys(SHAPES),
  sizes = [1, 4, 16, 64],
} = {}) {
  const work = mkdtempSync(join(tmpdir(), 'cg-memory-'));
  const env = benchEnv(work);
  const lines = ['Peak RSS of `cg < input` (default preset) against 2.5 × input + 80 MB:'];
  let worst = 0;
  try {
    for (const shape of shapes) {
      const make = SHAPES[shape];
      if (!make) throw new Error(`unknown shape ${shape}: ${Object.keys(SHAPES).join(', ')}`);
      const row = [];
      for (const mb of sizes) {
        const file = join(work, `${shape}-${mb}`);
        make(file, mb * MB);
        const size = readFileSync(file).length;
        const r = measure([bin], file, env);
        const ratio = r.rss / (2.5 * size + 80 * MB);
        worst = Math.max(worst, ratio);
        row.push(`${mb} MB ${(r.rss / MB).toFixed(0)} MB (${ratio.toFixed(2)})`);
        rmSync(file, { force: true });
        rmSync(env.CG_STORE_DIR, { recursive: true, force: true });
        rmSync(env.CG_STATE_DIR, { recursive: true, force: true });
      }
      lines.push(`  ${shape.padEnd(7)} ${row.join('  ')}`);
    }
    lines.push(`  worst: ${worst.toFixed(2)} of the budget`);
    return lines;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const shapes = process.argv.slice(2);
  const sizes = process.env.CG_BENCH_MEMORY_SIZES?.split(/\s+/).filter(Boolean).map(Number);
  for (const line of memoryLines({
    ...(process.env.CG_BENCH_BIN ? { bin: process.env.CG_BENCH_BIN } : {}),
    ...(shapes.length ? { shapes } : {}),
    ...(sizes ? { sizes } : {}),
  }))
    console.log(line);
}
