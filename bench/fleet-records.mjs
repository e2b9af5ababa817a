// What a session record in Redis costs a proxy turn, the record's own work alone (issue 33): a
// whole turn's time varies here far more than the record costs, so the record backends
// (src/session/records.ts, shared-records.ts, bundled from the sources with esbuild) are timed in
// this process on a record of n outputs (85 % of them final placeholders, as in a long session): a
// steady turn's load and save of one new output — on the instance that wrote last (shared: one
// round trip to ask, one to write), and alternating between two instances (each reads the other's
// line) — against the same with the record on disk (a stat, an appended line); and the whole
// record written at first sight, and read whole by another instance. Medians of `turns` turns,
// after 20 unmeasured ones.
// Needs redis-server on PATH (bench/fleet.mjs skips it without).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedis } from './store.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const WARM = 20;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** The record backends from the sources, bundled (ioredis included) into a module of its own. */
async function recordModules(work) {
  const { build } = await import('esbuild');
  const file = join(work, 'records-bundle.mjs');
  await build({
    stdin: {
      contents: [
        "export { sharedRecords } from './src/session/shared-records.ts';",
        "export { diskRecords } from './src/session/records.ts';",
        "export { keptRecord } from './src/session/kept-record.ts';",
        "export { createRedisLink } from './src/store/redis-link.ts';",
        "export { parseRedisUrl } from './src/store/redis-url.ts';",
      ].join('\n'),
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: file,
    logLevel: 'warning',
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  });
  return import(file);
}

const hex = (i) => i.toString(16).padStart(16, '0');

/** A record of n outputs as a long session's is: most of them final placeholders. */
function recordOf(n) {
  const outputs = new Map();
  for (let i = 0; i < n; i++)
    outputs.set(
      `toolu_${String(i).padStart(6, '0')}abcdefgh`,
      i % 20 < 17
        ? {
            h: hex(i),
            t: `[older tool output masked] <<cg:${hex(i)}>> [full output: cg expand ${hex(i)}]`,
            f: 1,
          }
        : { h: hex(i) },
    );
  return { id: 'bench', outputs };
}

/**
 * Median ms of a steady turn's record work — load, then save one new output — over `turns` turns
 * taken by `backends` in turn (one: the instance that wrote last; two: each reads the other's line).
 */
async function recordTurns(m, backends, key, n, turns) {
  const kept = backends.map(() => m.keptRecord());
  // The first sight: the whole record written once, and read once by each other instance.
  let t0 = performance.now();
  const start = await backends[0].load(key, 'bench', kept[0]);
  await backends[0].save(key, start, recordOf(n), kept[0]);
  const first = performance.now() - t0;
  t0 = performance.now();
  for (let i = 1; i < backends.length; i++) await backends[i].load(key, 'bench', kept[i]);
  const whole = performance.now() - t0;
  const ms = [];
  // The first turns after a first sight also pay for collecting what it left: not measured.
  for (let k = 0; k < WARM + turns; k++) {
    const i = k % backends.length;
    const one = { id: 'bench', outputs: new Map([[`toolu_new${k}`, { h: hex(1e9 + k) }]]) };
    t0 = performance.now();
    const r = await backends[i].load(key, 'bench', kept[i]);
    await backends[i].save(key, r, one, kept[i]);
    if (k >= WARM) ms.push(performance.now() - t0);
  }
  return { turn: median(ms), first, whole };
}

export async function benchRecords(sizes = [1000, 5000, 20000], turns = 200) {
  const work = mkdtempSync(join(tmpdir(), 'cg-bench-records-'));
  mkdirSync(join(work, 'redis'));
  const redis = await startRedis(join(work, 'redis'));
  if (!redis) throw new Error('redis-server did not start');
  const rows = [];
  try {
    const m = await recordModules(work);
    const url = m.parseRedisUrl(`redis://127.0.0.1:${redis.port}/0`);
    const shared = (dir) =>
      m.sharedRecords({
        link: m.createRedisLink(url, 2000),
        prefix: 'bench:',
        ttlDays: 14,
        dir,
        warn: (line) => console.error(line),
      });
    for (const n of sizes) {
      const key = hex(n);
      const disk = m.diskRecords(join(work, `disk-${n}`));
      const local = await recordTurns(m, [disk], key, n, turns);
      const same = await recordTurns(m, [shared(join(work, `s-${n}`))], hex(n + 1), n, turns);
      const a = shared(join(work, `a-${n}`));
      const b = shared(join(work, `b-${n}`));
      const other = await recordTurns(m, [a, b], hex(n + 2), n, turns);
      rows.push({ n, local, same, other });
    }
  } finally {
    await redis.stop();
    rmSync(work, { recursive: true, force: true });
  }
  return rows;
}

export function recordLines(rows) {
  const f = (x) => x.toFixed(2);
  return rows.map(
    (r) =>
      `  ${String(r.n).padStart(6)} outputs: a steady turn's record work (load + save of one new output) on disk ${f(r.local.turn)} ms, ` +
      `in Redis ${f(r.same.turn)} ms (${(r.same.turn / r.local.turn).toFixed(2)}×) on the instance that wrote last, ${f(r.other.turn)} ms (${(r.other.turn / r.local.turn).toFixed(2)}×) alternating between two (each reads the other's line)` +
      ` · the whole record written at first sight ${f(r.local.first)} / ${f(r.same.first)} ms, read whole by another instance ${f(r.other.whole)} ms`,
  );
}
