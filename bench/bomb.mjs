// Planted decompression bombs (issue 27 "What broke" 3): a gzip value of 3 GB of zeros (13 MB)
// set under a key's name, in the disk store and in Redis, and the peak RSS and wall time of
// `cg expand KEY` (which must fail: the entry is corrupt) and of a run that stashes the key's own
// original over it (its compare is bounded by the original's length). Before the bound the same
// value took cg expand to 6.37 GB and the stash to 2.17 GB. The floor is `cg expand` of a missing
// key (process, config, store); the budget is DESIGN §7's 80 MB over it plus the value itself and
// the 32 MiB a read may hold unverified (store/verify.ts). Redis rows need redis-server. Runs alone
// (node bench/bomb.mjs; CG_BENCH_BOMB_GB=1 for a smaller bomb) or from bench/run.mjs.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createGzip } from 'node:zlib';
import { startRedis } from './store.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'cg.js');
const probe = join(root, 'bench', 'rss-probe.mjs');
const MB = 2 ** 20;
const HELD_MAX = 32 * MB;

/** gzip of `bytes` zeros, streamed (never the zeros whole in memory). */
function zeroBomb(bytes) {
  return new Promise((resolve, reject) => {
    const z = createGzip({ level: 1, chunkSize: MB });
    const parts = [];
    z.on('data', (d) => parts.push(d));
    z.on('end', () => resolve(Buffer.concat(parts)));
    z.on('error', reject);
    const zero = Buffer.alloc(16 * MB);
    let left = bytes;
    const write = () => {
      while (left > 0) {
        const n = Math.min(left, zero.length);
        left -= n;
        if (!z.write(n === zero.length ? zero : zero.subarray(0, n))) return z.once('drain', write);
      }
      z.end();
    };
    write();
  });
}

/** One cg process: exit code, first stderr line, wall ms and peak RSS. */
function measure(args, env, input = '') {
  const rssFile = join(env.CG_BENCH_WORK, `rss-${Math.random().toString(36).slice(2)}`);
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', probe, bin, ...args], {
    env: { ...env, CG_BENCH_RSS_FILE: rssFile },
    input,
    maxBuffer: 1 << 28,
  });
  const ms = performance.now() - t0;
  return {
    code: r.status,
    err: r.stderr.toString().split('\n')[0],
    out: r.stdout.toString(),
    ms,
    rss: Number(readFileSync(rssFile, 'utf8')),
  };
}

/** Sets a binary value in Redis with redis-cli's -x (the value read from stdin). */
function redisSet(port, name, value) {
  const r = spawnSync('redis-cli', ['-p', String(port), '-x', 'set', name], { input: value });
  if (r.status !== 0) throw new Error(`redis-cli: ${r.stderr}`);
}

export async function bombBench() {
  const gb = Number(process.env.CG_BENCH_BOMB_GB ?? 3);
  const work = mkdtempSync(join(tmpdir(), 'cg-bench-bomb-'));
  const lines = [];
  const redis = await startRedis(work);
  try {
    const bomb = await zeroBomb(gb * 1e9);
    let original = '';
    for (let i = 1; i <= 100_000; i++) original += `${i}\n`;
    const key = createHash('sha256').update(original).digest('hex').slice(0, 16);
    const base = {
      PATH: process.env.PATH ?? '',
      HOME: work,
      XDG_CONFIG_HOME: join(work, 'cfg'),
      CG_BENCH_WORK: work,
    };
    const budget = (floor) => floor + 80 * MB + bomb.length + HELD_MAX;
    lines.push(
      `planted gzip bomb: ${gb} GB of zeros in ${(bomb.length / MB).toFixed(1)} MB under a key (before the bound: expand 6.37 GB, stash 2.17 GB)`,
    );
    const row = (label, env, plant) => {
      const floor = measure(['expand', '0123456789abcdef'], env).rss;
      plant();
      const expand = measure(['expand', key], env);
      plant();
      const stash = measure([], env, original);
      const again = measure(['expand', key], env);
      const ok =
        expand.code === 1 &&
        /corrupt/.test(expand.err) &&
        stash.out.includes(`<<cg:${key}>>`) &&
        again.code === 0;
      const mb = (n) => `${(n / MB).toFixed(0)} MB`;
      lines.push(
        `  ${label.padEnd(6)} expand rss ${mb(expand.rss)} in ${(expand.ms / 1000).toFixed(1)} s, stash over it rss ${mb(stash.rss)} in ${(stash.ms / 1000).toFixed(1)} s` +
          ` │ floor ${mb(floor)}, budget ${mb(budget(floor))} (${(Math.max(expand.rss, stash.rss) / budget(floor)).toFixed(2)} of it)` +
          `${ok ? '' : ` │ UNEXPECTED: expand exit ${expand.code} "${expand.err}", re-expand exit ${again.code}`}`,
      );
    };
    const diskDir = join(work, 'disk');
    const diskEnv = { ...base, CG_STORE_DIR: diskDir, CG_STATE_DIR: join(work, 'state-disk') };
    row('disk', diskEnv, () => {
      mkdirSync(join(diskDir, key.slice(0, 2)), { recursive: true });
      writeFileSync(join(diskDir, key.slice(0, 2), key), bomb);
    });
    if (redis) {
      const redisEnv = {
        ...base,
        CG_STORE_DIR: join(work, 'local'),
        CG_STATE_DIR: join(work, 'state-redis'),
        CG_STORE_URL: `redis://127.0.0.1:${redis.port}/0`,
      };
      row('redis', redisEnv, () => redisSet(redis.port, `cg:${key}`, bomb));
    } else {
      lines.push('  redis  skipped (redis-server is not installed: apt-get install -y redis-server)');
    }
  } finally {
    await redis?.stop();
    rmSync(work, { recursive: true, force: true });
  }
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of await bombBench()) console.log(line);
  process.exit(0);
}
