/**
 * The disk store end to end, as an attacker or an unlucky user meets it: a prune racing a re-use,
 * links planted in the store, a corrupt entry, a read-only store, `cg store clear` on a terminal, and
 * what the stats state directory keeps of originals.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createFsStore, entryPath, STORE_DEFAULTS } from '../../src/store/fs-store.js';
import { keyOf } from '../../src/store/keys.js';
import { tempDir } from '../helpers.js';
import { BIN, cg, seq } from './run-cg.js';

const DAY = 86_400_000;
const KEY_RE = /<<cg:([0-9a-f]{16})>>/;

function envFor(store: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    CG_STORE_DIR: store,
    CG_STATE_DIR: `${store}.state`,
    XDG_CONFIG_HOME: `${store}.config`,
  };
}

function start(args: string[], store: string, input = ''): { child: ChildProcess; done: Promise<string> } {
  const child = spawn(process.execPath, [BIN, ...args], { env: envFor(store) });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  const done = new Promise<string>((resolve) => child.on('close', () => resolve(out)));
  child.stdin!.end(input);
  return { child, done };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every file under dir, recursively, as absolute paths. */
function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)],
  );
}

describe('a prune racing a run that re-uses an existing key', () => {
  /**
   * A store of many expired entries in which the re-used one is removed last: its shard is the last
   * the prune lists, and the other entries sit only in shards listed before it. The prune is stopped
   * (SIGSTOP) once it has started removing, so the re-use lands exactly between the prune's scan and
   * its removal of that entry, then it is let go.
   */
  async function race(trigger: 'cg store prune' | 'a run that stashes'): Promise<boolean> {
    const store = join(tempDir('cg-race-'), 'store');
    mkdirSync(store, { recursive: true });
    for (let s = 0; s < 256; s++) mkdirSync(join(store, s.toString(16).padStart(2, '0')));
    const order = readdirSync(store);
    // The issue's `seq 1 100000`, or the next length whose shard comes late enough in listing order.
    let n = 100_000;
    while (order.indexOf(keyOf(seq(n)).slice(0, 2)) < 64) n++;
    const input = seq(n);
    const target = keyOf(input);
    const before = order.slice(0, order.indexOf(target.slice(0, 2)));
    const old = new Date(Date.now() - 30 * DAY);
    await createFsStore({ dir: store, ...STORE_DEFAULTS }).put(input); // first: its lazy prune finds nothing
    const fillers: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const shard = before[i % before.length]!;
      const path = join(store, shard, `${shard}${i.toString(16).padStart(14, '0')}`);
      writeFileSync(path, `expired ${i}\n`);
      utimesSync(path, old, old);
      fillers.push(path);
    }
    utimesSync(entryPath(store, target), old, old);
    const first = join(store, before[0]!, readdirSync(join(store, before[0]!))[0]!);

    if (trigger === 'a run that stashes') utimesSync(join(store, '.last-prune'), old, old); // prune is due
    const pruner =
      trigger === 'cg store prune' ? start(['store', 'prune'], store) : start([], store, seq(50_000));
    while (existsSync(first)) await sleep(1);
    pruner.child.kill('SIGSTOP');
    // Only a round in which the prune had listed the entry and not yet removed it tests anything.
    const hit = existsSync(entryPath(store, target)) && fillers.some((f) => existsSync(f));
    const out = await start([], store, input).done;
    pruner.child.kill('SIGCONT');
    await pruner.done;
    const key = KEY_RE.exec(out)?.[1];
    expect(key).toBe(target);
    const back = cg(['expand', key!], { storeDir: store });
    expect(back.stderr).toBe('');
    expect(back.code).toBe(0);
    expect(back.stdout.equals(Buffer.from(input))).toBe(true);
    return hit;
  }

  it.each(['cg store prune', 'a run that stashes'] as const)(
    'never removes an entry a run re-used while %s was pruning: every printed marker expands',
    async (trigger) => {
      let hits = 0;
      for (let round = 0; round < 5 && hits < 1; round++) if (await race(trigger)) hits++;
      expect(hits).toBeGreaterThan(0);
    },
    60_000,
  );
});

describe('links planted inside the store', () => {
  it('never writes an original through a shard that is a link, and store clear removes the link', () => {
    const store = join(tempDir('cg-links-'), 'store');
    const outside = tempDir('cg-outside-');
    const input = seq(100_000);
    mkdirSync(store, { recursive: true });
    symlinkSync(outside, join(store, keyOf(input).slice(0, 2)));
    const r = cg([], { input, storeDir: store });
    expect(r.code).toBe(0);
    expect(readdirSync(outside)).toEqual([]);
    const key = KEY_RE.exec(r.out)?.[1];
    expect(key).toBe(keyOf(input)); // the link gave way to a real shard inside the store
    expect(cg(['expand', key!], { storeDir: store }).stdout.equals(Buffer.from(input))).toBe(true);
    symlinkSync(outside, join(store, 'ee'));
    writeFileSync(join(outside, 'mine.txt'), 'keep me');
    expect(cg(['store', 'clear'], { storeDir: store }).code).toBe(0);
    expect(existsSync(join(store, 'ee'))).toBe(false);
    expect(readFileSync(join(outside, 'mine.txt'), 'utf8')).toBe('keep me');
  });

  it('never creates the target of a dangling .last-prune link', () => {
    const store = join(tempDir('cg-links-'), 'store');
    const target = join(tempDir('cg-outside-'), 'made-by-cg');
    mkdirSync(store, { recursive: true });
    symlinkSync(target, join(store, '.last-prune'));
    const r = cg([], { input: seq(100_000), storeDir: store });
    expect(r.out).toMatch(KEY_RE);
    expect(existsSync(target)).toBe(false);
    expect(lstatSync(join(store, '.last-prune')).isSymbolicLink()).toBe(false);
  });

  it('reads an entry that is a link to another file as corrupt, and never reads the file', () => {
    const store = join(tempDir('cg-links-'), 'store');
    const input = seq(100_000);
    const key = KEY_RE.exec(cg([], { input, storeDir: store }).out)![1]!;
    const secret = join(tempDir('cg-outside-'), 'secret');
    writeFileSync(secret, input); // even the right bytes are not read through a link
    const path = entryPath(store, key);
    spawnSync('rm', [path]);
    symlinkSync(secret, path);
    const r = cg(['expand', key], { storeDir: store });
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.stderr).toMatch(/corrupt \(.*symbolic link/);
  });
});

describe('a corrupt store entry', () => {
  it('is reported as corrupt (exit 1), and the next run stashes the output again', () => {
    const store = join(tempDir('cg-corrupt-'), 'store');
    const input = seq(100_000);
    const key = KEY_RE.exec(cg([], { input, storeDir: store }).out)![1]!;
    const path = entryPath(store, key);
    writeFileSync(path, readFileSync(path).subarray(0, 100)); // a truncated gzip stream
    const r = cg(['expand', key], { storeDir: store });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`^cg: ${key}: the entry in the store at .* is corrupt .*re-run the command`),
    );
    expect(r.stderr).not.toMatch(/expired or was never stored/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    const again = cg(['--verbose'], { input, storeDir: store });
    expect(again.out).toContain(`<<cg:${key}>>`);
    expect(again.stderr).not.toMatch(/collision/);
    const back = cg(['expand', key], { storeDir: store });
    expect(back.code).toBe(0);
    expect(back.stdout.equals(Buffer.from(input))).toBe(true);
  });
});

describe('a decompression bomb planted under a key', () => {
  // 64 MiB of zeros in about 64 KB, under a store limit of 4 MiB (store.max_entry_mb in the user's
  // config): the same shape as the 14 MB value of 3 GB that took cg expand to 6.37 GB.
  const MIB = 2 ** 20;
  function planted(): { store: string; key: string; input: string; config: string } {
    const store = join(tempDir('cg-bomb-'), 'store');
    const config = `${store}.config`;
    mkdirSync(join(config, 'cg'), { recursive: true });
    writeFileSync(join(config, 'cg', 'config.yaml'), 'store:\n  max_entry_mb: 4\n');
    const input = seq(100_000);
    const key = keyOf(input);
    mkdirSync(join(store, key.slice(0, 2)), { recursive: true });
    writeFileSync(entryPath(store, key), gzipSync(Buffer.alloc(64 * MIB), { level: 1 }));
    return { store, key, input, config };
  }
  const run = (args: string[], p: ReturnType<typeof planted>, input = '') =>
    cg(args, { input, storeDir: p.store, env: { XDG_CONFIG_HOME: p.config } });

  it('is reported by cg expand as corrupt in one line (exit 1), never inflated past the limit', () => {
    const p = planted();
    const r = run(['expand', p.key], p);
    expect(r.code).toBe(1);
    expect(r.stdout.length).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(
        `^cg: ${p.key}: the entry in the store at .* is corrupt \\(it holds more than store\\.max_entry_mb \\(4 MiB\\).*re-run the command to stash its output again\n$`,
      ),
    );
  });

  it('is replaced by the next run that stashes the same output, whose marker then expands', () => {
    const p = planted();
    const again = run([], p, p.input);
    expect(again.code).toBe(0);
    expect(again.out).toContain(`<<cg:${p.key}>>`);
    expect(again.stderr).toBe('');
    const back = run(['expand', p.key], p);
    expect(back.code).toBe(0);
    expect(back.stdout.equals(Buffer.from(p.input))).toBe(true);
    expect(run(['stats', '--json'], p).code).toBe(0);
  });

  it('leaves cg stats answering, as for an original gone from the store', () => {
    const p = planted();
    // A run whose original (counted from the store by cg stats) the bomb then takes the place of.
    const counted = run(['run', '--', 'seq', '1', '100000'], p);
    expect(counted.code).toBe(0);
    expect(counted.out).toContain(`<<cg:${p.key}>>`);
    writeFileSync(entryPath(p.store, p.key), gzipSync(Buffer.alloc(64 * MIB), { level: 1 }));
    const stats = run(['stats', '--json'], p);
    expect(stats.code).toBe(0);
    expect(stats.stderr).toBe('');
    expect(JSON.parse(stats.out).runs).toBe(1);
  });
});

describe('a home directory that does not exist', () => {
  function homeless(): { home: string; env: Record<string, string> } {
    const home = join(tempDir('cg-homeless-'), 'nonexistent');
    return { home, env: { PATH: process.env.PATH ?? '', HOME: home } };
  }

  it('is never created: the output passes with lossless rewrites only, and one line says why', () => {
    const { home, env } = homeless();
    const input = seq(100_000);
    const r = spawnSync(process.execPath, [BIN], { input, env, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(input);
    expect(r.stderr).toBe(
      `cg: no store (the home directory ${home} does not exist); lossless rewrites only: set CG_STORE_DIR to keep originals\n`,
    );
    const run = spawnSync(process.execPath, [BIN, 'run', '--', 'seq', '1', '100000'], {
      env,
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(input);
    expect(spawnSync(process.execPath, [BIN, 'stats'], { env, encoding: 'utf8' }).status).toBe(0);
    expect(existsSync(home)).toBe(false);
  });

  it('still uses the store and state directories the environment names', () => {
    const { home, env } = homeless();
    const dirs = tempDir('cg-named-');
    const named = { ...env, CG_STORE_DIR: join(dirs, 'store'), CG_STATE_DIR: join(dirs, 'state') };
    const r = spawnSync(process.execPath, [BIN], { input: seq(100_000), env: named, encoding: 'utf8' });
    expect(r.stdout).toMatch(KEY_RE);
    expect(r.stderr).toBe('');
    expect(existsSync(home)).toBe(false);
  });
});

/**
 * Runs cg on a store made read-only for real: a read-only bind mount in a private mount namespace
 * when we are root (root ignores permission bits), else permission bits. Undefined when neither works.
 */
function onReadOnly(
  store: string,
  args: string[],
): { code: number; stdout: string; stderr: string } | undefined {
  const env = envFor(store);
  if (process.getuid?.() === 0) {
    const script = `mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"`;
    const r = spawnSync('unshare', ['-m', 'sh', '-c', script, 'sh', store, process.execPath, BIN, ...args], {
      env,
      encoding: 'utf8',
    });
    if (r.error || /unshare|mount/.test(r.stderr ?? '')) return undefined;
    return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  }
  const dirs = [
    store,
    ...readdirSync(store)
      .filter((n) => /^[0-9a-f]{2}$/.test(n))
      .map((n) => join(store, n)),
  ];
  for (const d of dirs) chmodSync(d, 0o555);
  try {
    const r = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8' });
    return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  } finally {
    for (const d of dirs) chmodSync(d, 0o755);
  }
}

describe('a read-only store', () => {
  it.each([
    ['clear', /^cg: store clear: could not remove 2 entries in .*: EROFS|EACCES/],
    ['prune', /^cg: store prune: (cannot write|could not remove).* in .*: (EROFS|EACCES)/],
  ])('makes cg store %s fail with exit 1 instead of reporting nothing removed', async (action, message) => {
    const store = join(tempDir('cg-ro-'), 'store');
    cg([], { input: seq(100_000), storeDir: store });
    cg([], { input: seq(120_000), storeDir: store });
    for (const f of walk(store))
      utimesSync(f, new Date(Date.now() - 30 * DAY), new Date(Date.now() - 30 * DAY));
    const r = onReadOnly(store, ['store', action]);
    if (!r) return; // no way to make a read-only store here
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(1);
    await expect(createFsStore({ dir: store, ...STORE_DEFAULTS }).info()).resolves.toMatchObject({
      entries: 2,
    });
  });
});

describe('cg store clear on a terminal', () => {
  /** Runs `cg store clear` with stdin and stderr on a pseudo-terminal (python's pty), answering `answer`. */
  function clearOnTty(store: string, answer: string, extra: string[] = []) {
    const script = [
      'import os, pty, sys, time',
      'pid, fd = pty.fork()',
      'if pid == 0:',
      '    os.execv(sys.argv[1], sys.argv[1:])',
      'out = b""',
      'sent = False',
      'while True:',
      '    try: chunk = os.read(fd, 4096)',
      '    except OSError: break',
      '    if not chunk: break',
      '    out += chunk',
      `    if not sent and b"[y/N]" in out: os.write(fd, ${JSON.stringify(`${answer}\n`)}.encode()); sent = True`,
      '_, status = os.waitpid(pid, 0)',
      'sys.stdout.write(out.decode("utf8", "replace"))',
      'sys.exit(os.waitstatus_to_exitcode(status))',
    ].join('\n');
    return spawnSync('python3', ['-c', script, process.execPath, BIN, 'store', 'clear', ...extra], {
      env: envFor(store),
      encoding: 'utf8',
    });
  }
  const hasPython = spawnSync('python3', ['-c', 'import pty']).status === 0;

  it.skipIf(!hasPython)('asks first, and removes nothing unless the answer is yes', () => {
    const store = join(tempDir('cg-tty-'), 'store');
    cg([], { input: seq(100_000), storeDir: store });
    const no = clearOnTty(store, 'n');
    expect(no.stdout).toMatch(/remove all 1 entry \(.*\) from .*\? \[y\/N\]/);
    expect(no.stdout).toMatch(/not confirmed; nothing was removed/);
    expect(no.status).toBe(1);
    expect(walk(store).some((f) => /[0-9a-f]{16}$/.test(f))).toBe(true);
    const yes = clearOnTty(store, 'y');
    expect(yes.stdout).toMatch(/removed 1 entry/);
    expect(yes.status).toBe(0);
  });

  it.skipIf(!hasPython)('clears at once with --yes, and never asks when stdin is not a terminal', () => {
    const store = join(tempDir('cg-tty-'), 'store');
    cg([], { input: seq(100_000), storeDir: store });
    const yes = clearOnTty(store, 'n', ['--yes']);
    expect(yes.stdout).not.toMatch(/\[y\/N\]/);
    expect(yes.stdout).toMatch(/removed 1 entry/);
    cg([], { input: seq(100_000), storeDir: store });
    const piped = cg(['store', 'clear'], { storeDir: store });
    expect(piped.out).toBe('removed 1 entry\n');
  });
});

describe('what the stats state directory keeps of originals', () => {
  const SECRET = 'AKIA-this-is-a-secret-in-the-dropped-middle';
  const output = () => {
    const lines = Array.from({ length: 2700 }, (_, i) => `line ${i} of a long build log, nothing to see\n`);
    lines[1350] = `export TOKEN=${SECRET}\n`;
    return lines.join('');
  };

  it('stays small run after run of a 120 KB output, and holds no copy of the original', async () => {
    const store = join(tempDir('cg-stats-bound-'), 'store');
    const input = output();
    expect(input.length).toBeGreaterThan(120_000);
    // 12 real runs here (the 100-run bound is in test/unit/stats/record.test.ts, in one process).
    for (let batch = 0; batch < 3; batch++) {
      // collapse drops the middle, secret included (fold would show a one-off line like it).
      await Promise.all(Array.from({ length: 4 }, () => start(['-c', 'collapse'], store, input).done));
    }
    const state = `${store}.state`;
    const bytes = walk(state).reduce((n, f) => n + statSync(f).size, 0);
    // 12 copies of the original were 1.5 MB; what is left is each run's compacted output (~2 KB,
    // counted exactly by the next `cg stats`) and its ledger lines.
    expect(bytes).toBeLessThan(12 * 4096);
    for (const f of walk(state)) expect(readFileSync(f, 'utf8')).not.toContain(SECRET);
    const stats = JSON.parse(cg(['stats', '--json'], { storeDir: store }).out);
    expect(stats.runs).toBe(12);
    expect(stats.estimated.outputs).toBe(0);
  }, 60_000);

  it('keeps no text of any original once cg store clear has run, and its counts stay exact', () => {
    const store = join(tempDir('cg-stats-clear-'), 'store');
    const input = output();
    const first = input.slice(0, input.indexOf('\n'));
    cg([], { input, storeDir: store });
    cg([], { input: seq(100_000), storeDir: store });
    const state = `${store}.state`;
    expect(walk(state).some((f) => readFileSync(f, 'utf8').includes(first))).toBe(true); // pending, before
    expect(cg(['store', 'clear'], { storeDir: store }).code).toBe(0);
    for (const f of walk(state)) {
      const text = readFileSync(f, 'utf8');
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(first);
      expect(text).not.toContain('\n99999\n');
    }
    const stats = JSON.parse(cg(['stats', '--json'], { storeDir: store }).out);
    expect(stats.runs).toBe(2);
    expect(stats.estimated.outputs).toBe(0);
  });
});

describe('a last ledger line cut short by a crash or a full disk', () => {
  it('does not take the record before it or after it with it', () => {
    const store = join(tempDir('cg-torn-'), 'store');
    cg(['expand', '0123456789abcdef'], { storeDir: store }); // one ledger line: a miss
    const ledger = join(`${store}.state`, 'ledger.jsonl');
    const text = readFileSync(ledger, 'utf8');
    writeFileSync(ledger, text.slice(0, -1)); // the write lost only its newline
    cg([], { input: seq(100_000), storeDir: store });
    cg(['expand', 'fedcba9876543210'], { storeDir: store });
    const stats = JSON.parse(cg(['stats', '--json'], { storeDir: store }).out);
    expect(stats.runs).toBe(1);
    expect(stats.outputs.rewritten).toBe(1);
    expect(stats.expand).toMatchObject({ requests: 2, misses: 2 });
    expect(stats.ledger.badLines).toBe(0);
  });
});
