// Store latency, the disk store against Redis (issue 18): in one process, put (a new original) and
// expand (get) of 10 KB, 1 MB and 10 MB logs, median of runs, the Redis connection already open; then
// end to end, `cg expand KEY` of a 1 MB original as a user runs it (process start, config, connect).
// Redis is a redis-server this script starts on a free loopback port and stops; without redis-server
// the Redis rows are skipped with a note. Runs alone (node bench/store.mjs) or from bench/run.mjs.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'cg.js');

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A redis-server on a free loopback port with its data in dir; undefined without redis-server. */
export async function startRedis(dir) {
  if (spawnSync('sh', ['-c', 'command -v redis-server']).status !== 0) return undefined;
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''],
    {
      stdio: 'ignore',
    },
  );
  for (let i = 0; i < 200; i++) {
    const up = await new Promise((resolve) => {
      const s = createConnection({ host: '127.0.0.1', port });
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (up) {
      const stop = () =>
        new Promise((resolve) => {
          child.once('exit', resolve);
          child.kill('SIGTERM');
        });
      return { port, stop };
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  child.kill('SIGKILL');
  return undefined;
}

/**
 * The store module, bundled from src for this process (the CLI bundle exports no store); written
 * under node_modules so that the external ioredis resolves from there.
 */
async function loadOpenStore() {
  const out = join(root, 'node_modules', '.cache', 'cg-bench', 'open-store.mjs');
  await build({
    entryPoints: [join(root, 'src', 'store', 'open.ts')],
    outfile: out,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['ioredis'],
    logLevel: 'error',
  });
  return (await import(pathToFileURL(out).href)).openStore;
}

function logOf(bytes, salt) {
  const line = `2026-01-01T00:00:00Z INFO [worker] request ${salt} path=/api/v1/items status=200 took=12ms\n`;
  return `run ${salt}\n${line.repeat(Math.ceil(bytes / line.length))}`;
}

const STORE_CONFIG = {
  ttlDays: 14,
  maxBytes: 512 * 2 ** 20,
  compress: true,
  hint: '',
  prefix: 'bench:',
  timeoutMs: 5000,
  fallback: false,
  cache: false,
  maxEntryBytes: 64 * 2 ** 20,
};

async function latency(store, bytes, runs) {
  const puts = [];
  const gets = [];
  const keys = [];
  for (let i = 0; i < runs; i++) {
    const text = logOf(bytes, `${bytes}-${i}-${Math.random()}`);
    const t0 = performance.now();
    const r = await store.put(text);
    puts.push(performance.now() - t0);
    if (!r.ok) throw new Error(`put failed: ${r.reason} ${r.detail ?? ''}`);
    keys.push(r.key);
  }
  for (const key of keys) {
    const t0 = performance.now();
    if (!(await store.get(key))) throw new Error('get missed');
    gets.push(performance.now() - t0);
  }
  return { put: median(puts), get: median(gets) };
}

function expandMs(env, key, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [bin, 'expand', key], { env, maxBuffer: 1 << 28 });
    times.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`cg expand exited ${r.status}: ${r.stderr}`);
  }
  return median(times);
}

export async function storeBench({ runs = Number(process.env.CG_BENCH_RUNS ?? 7) } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'cg-bench-store-'));
  const lines = [];
  const redis = await startRedis(work);
  try {
    const openStore = await loadOpenStore();
    const quiet = () => undefined;
    const baseEnv = { PATH: process.env.PATH ?? '', HOME: work, XDG_CONFIG_HOME: join(work, 'cfg') };
    const diskEnv = { ...baseEnv, CG_STORE_DIR: join(work, 'disk'), CG_STATE_DIR: join(work, 'state-disk') };
    const disk = openStore(STORE_CONFIG, diskEnv, quiet);
    const redisEnv = redis && {
      ...baseEnv,
      CG_STORE_DIR: join(work, 'local'),
      CG_STATE_DIR: join(work, 'state-redis'),
      CG_STORE_URL: `redis://127.0.0.1:${redis.port}/0`,
    };
    const shared = redis && openStore(STORE_CONFIG, redisEnv, quiet);
    if (shared) await shared.put('warm the connection'); // in-process figures exclude the connect
    lines.push('store latency, median (in process; Redis on loopback, connection open)');
    for (const [label, bytes] of [
      ['10 KB', 10 * 1024],
      ['1 MB', 2 ** 20],
      ['10 MB', 10 * 2 ** 20],
    ]) {
      const d = await latency(disk, bytes, runs);
      const r = shared ? await latency(shared, bytes, runs) : undefined;
      const redisText = r
        ? `redis put ${r.put.toFixed(1)} ms, expand ${r.get.toFixed(1)} ms`
        : 'redis skipped';
      lines.push(
        `  ${label.padEnd(6)} disk put ${d.put.toFixed(1)} ms, expand ${d.get.toFixed(1)} ms  │  ${redisText}`,
      );
    }
    // End to end: a 1 MB original stashed by the CLI itself, then `cg expand KEY` as a process.
    const original = logOf(2 ** 20, 'e2e');
    const keyOn = (env) => {
      const r = spawnSync(process.execPath, [bin], { env, input: original, maxBuffer: 1 << 28 });
      return /<<cg:([0-9a-f]{16})>>/.exec(r.stdout.toString())?.[1];
    };
    const dk = keyOn(diskEnv);
    const rk = redisEnv && keyOn(redisEnv);
    const de = dk ? expandMs(diskEnv, dk, runs) : undefined;
    const re = rk ? expandMs(redisEnv, rk, runs) : undefined;
    lines.push(
      `  cg expand of 1 MB, whole process: disk ${de?.toFixed(1) ?? '?'} ms  │  redis ${re !== undefined ? `${re.toFixed(1)} ms` : 'skipped'}`,
    );
    if (!redis) lines.push('  (redis-server is not installed: apt-get install -y redis-server)');
  } finally {
    await redis?.stop();
    rmSync(work, { recursive: true, force: true });
  }
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of await storeBench()) console.log(line);
  process.exit(0);
}
