import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { BIN, cg, seq } from './run-cg.js';

describe('cg run', () => {
  it('prints stdout and stderr in the order they were written and keeps the exit code', () => {
    const r = cg(['run', '--', 'sh', '-c', 'for i in 1 2 3; do echo o$i; echo e$i >&2; done; exit 3']);
    expect(r.code).toBe(3);
    expect(r.out).toBe('o1\ne1\no2\ne2\no3\ne3\n');
    expect(r.stderr).toBe('');
  });

  it('exits 127 with the usual one-line message when the command cannot start', () => {
    const r = cg(['run', '--', 'no-such-cmd-cg-test', '--flag']);
    expect(r.code).toBe(127);
    expect(r.stderr).toBe('cg: no-such-cmd-cg-test: command not found\n');
    expect(r.out).toBe('');
  });

  it('reports a child killed by a signal as 128+N', () => {
    expect(cg(['run', '--', 'sh', '-c', 'kill -TERM $$']).code).toBe(143);
    expect(cg(['run', '--', 'sh', '-c', 'kill -KILL $$']).code).toBe(137);
  });

  it('passes stdin through to the command', () => {
    const r = cg(['run', '--', 'tr', 'a-z', 'A-Z'], { input: 'hello\n' });
    expect(r.out).toBe('HELLO\n');
  });

  it('compacts long output with a marker that expands to exactly what the command printed', () => {
    const store = tempDir();
    const r = cg(['run', '--', 'seq', '1', '100000'], { storeDir: store });
    expect(r.code).toBe(0);
    expect(r.out.trimEnd().split('\n')).toHaveLength(13);
    const key = /<<cg:([0-9a-f]{16})>>/.exec(r.out)![1]!;
    expect(cg(['expand', key], { storeDir: store }).out).toBe(seq(100_000));
  });

  it('writes raw output with --raw, with CG_DISABLE=1 and when stdout is a regular file', () => {
    expect(cg(['run', '--raw', '--', 'seq', '1', '100000']).out).toBe(seq(100_000));
    expect(cg(['run', '--', 'seq', '1', '100000'], { env: { CG_DISABLE: '1' } }).out).toBe(seq(100_000));
    const dir = tempDir();
    execFileSync('sh', ['-c', `node "${BIN}" run -- seq 1 100000 > out.txt`], {
      cwd: dir,
      env: { ...process.env, CG_STORE_DIR: join(dir, 'store') },
    });
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe(seq(100_000));
  });

  it('runs a shell script with --shell', () => {
    const r = cg(['run', '--shell', 'seq 1 5 | tail -n 2; exit 4']);
    expect(r.code).toBe(4);
    expect(r.out).toBe('4\n5\n');
  });

  it('refuses a run with no command, exit 2', () => {
    const r = cg(['run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^cg: run: no command given/);
  });

  it('forwards SIGINT to the command and ends with its status', async () => {
    const child = spawn(process.execPath, [BIN, 'run', '--', 'sleep', '30'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await new Promise((r) => setTimeout(r, 700));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    // 130 = 128 + SIGINT: sleep itself died of the forwarded signal (it would otherwise exit 0).
    expect(code).toBe(130);
  });

  it('prints one footer line with the tokens saved when a person watches the terminal, for cg run and a pipe', () => {
    const dir = tempDir();
    let out: string;
    try {
      out = execFileSync(
        'script',
        [
          '-qc',
          `seq 1 100000 | node "${BIN}" > /dev/null; node "${BIN}" run -- seq 1 50000 > /dev/null`,
          '/dev/null',
        ],
        {
          encoding: 'utf8',
          env: { ...process.env, CG_STORE_DIR: join(dir, 'store'), CG_STATE_DIR: join(dir, 'state') },
        },
      );
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // no script(1) here to fake a terminal
      throw err;
    }
    const footers = out
      .split(/[\r\n]+/)
      .filter((l) => /cg: [\d,]+ → [\d,]+ tokens \(−\d+%\) · cg expand [0-9a-f]{16}/.test(l));
    expect(footers).toHaveLength(2);
  });
});
