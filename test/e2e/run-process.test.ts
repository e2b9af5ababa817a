/**
 * `cg run` as a process among processes: it ends when its reader goes away, holds a bounded amount
 * of output, and the signals it gets reach the whole command (its process group), not just the
 * direct child. Linux /proc is used to watch the command's processes; elsewhere those tests skip.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { BIN } from './run-cg.js';

const HAS_PROC = existsSync('/proc/self/stat');

function env(dir: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    CG: BIN,
    XDG_CONFIG_HOME: join(dir, 'no-config'),
    CG_STORE_DIR: join(dir, 'store'),
    CG_STATE_DIR: join(dir, 'state'),
  };
}

/** The state letter of a process (R, S, T, Z, …), or undefined once it is gone. */
function stateOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

const alive = (pid: number) => {
  const s = stateOf(pid);
  return s !== undefined && s !== 'Z' && s !== 'X';
};

function childrenOf(pid: number): number[] {
  const kids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) kids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return kids;
}

/** Polls until `test` holds; a hang guard, not a timing assertion (the deadline is generous). */
async function until<T>(probe: () => T | undefined | false, what: string, ms = 45_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const started: number[] = [];
afterEach(() => {
  // Whatever a failing test left running is ours: end it by its pid.
  for (const pid of started.splice(0)) {
    try {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** Starts `cg run --shell SCRIPT` whose script runs `sleep` in the foreground; resolves the sleep's pid. */
async function cgWithSleep(dir: string, seconds: string): Promise<{ cg: ChildProcess; sleep: number }> {
  const child = spawn(
    process.execPath,
    [BIN, 'run', '--shell', `echo $$ > sh.pid; sleep ${seconds}; echo after`],
    { cwd: dir, env: env(dir), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  started.push(child.pid!);
  const shPid = await until(() => {
    try {
      return Number(readFileSync(join(dir, 'sh.pid'), 'utf8')) || undefined;
    } catch {
      return undefined;
    }
  }, 'the script to start');
  started.push(shPid);
  const sleep = await until(() => childrenOf(shPid)[0], 'sleep to start');
  started.push(sleep);
  return { cg: child, sleep };
}

/**
 * Runs a shell line in a process group of its own; a hang guard (not a timing assertion) kills the
 * whole group, so a failing test leaves nothing running.
 */
function shInGroup(line: string, dir: string, ms = 50_000) {
  return new Promise<{ out: string; stderr: string; timedOut: boolean }>((resolve) => {
    const child = spawn('sh', ['-c', line], { cwd: dir, env: env(dir), detached: true });
    let out = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      process.kill(-child.pid!, 'SIGKILL');
    }, ms);
    child.on('close', () => {
      clearTimeout(timer);
      resolve({ out, stderr, timedOut });
    });
  });
}

const exitOf = (child: ChildProcess) =>
  new Promise<{ code: number | null; out: string }>((resolve) => {
    let out = '';
    child.stdout?.on('data', (d) => {
      out += d;
    });
    child.on('close', (code) => resolve({ code, out }));
  });

describe('cg run and its reader', () => {
  it('stops the command and exits when the reader goes away (cg run -- yes | head -1)', async () => {
    const dir = tempDir();
    const r = await shInGroup('{ node "$CG" run -- yes; echo "cg=$?" >&2; } | head -n 1', dir);
    expect(r.timedOut).toBe(false);
    expect(r.out).toBe('y\n');
    // As in a shell pipeline, the command (and so cg run) ends by SIGPIPE: 128 + 13.
    expect(r.stderr).toBe('cg=141\n');
  });

  it('streams an output past the spool cap to the reader whole, in order, stdout and stderr together', async () => {
    const dir = tempDir();
    const script = 'seq 1 12000000; echo tail >&2';
    const direct = spawnSync('sh', ['-c', `sh -c '${script}' 2>&1 | cksum`], { encoding: 'utf8' });
    const viaCg = await shInGroup(`node "$CG" run --shell '${script}' | cksum`, dir);
    expect(viaCg.out).toBe(direct.stdout);
  });

  it('passes output through live, before the command ends, once it streams raw', async () => {
    const dir = tempDir();
    // --raw streams from the start: the first line arrives while the command still runs.
    const child = spawn(process.execPath, [BIN, 'run', '--raw', '--shell', 'echo first; sleep 30'], {
      cwd: dir,
      env: env(dir),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(child.pid!);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    await until(() => out === 'first\n', 'the first line');
    child.kill('SIGTERM');
    const code = await new Promise((r) => child.on('close', r));
    expect(code).toBe(143);
  });
});

describe.skipIf(!HAS_PROC)('cg run and signals', () => {
  it('sends SIGTERM to the whole command: no sleep is left behind', async () => {
    const dir = tempDir();
    const { cg, sleep } = await cgWithSleep(dir, '47');
    const done = exitOf(cg);
    cg.kill('SIGTERM');
    const { code, out } = await done;
    expect(code).toBe(143);
    expect(out).not.toMatch(/after/);
    await until(() => !alive(sleep), 'sleep to end');
  });

  it('sends SIGINT to the whole command, as Ctrl-C would reach a foreground job', async () => {
    const dir = tempDir();
    const { cg, sleep } = await cgWithSleep(dir, '48');
    const done = exitOf(cg);
    cg.kill('SIGINT');
    expect((await done).code).toBe(130);
    await until(() => !alive(sleep), 'sleep to end');
  });

  it('takes the whole command down when cg itself is killed outright (SIGKILL, as a host timeout does)', async () => {
    const dir = tempDir();
    const { cg, sleep } = await cgWithSleep(dir, '46');
    const done = exitOf(cg);
    cg.kill('SIGKILL');
    await done;
    await until(() => !alive(sleep), 'sleep to end');
  });

  it('leaves what the command put in the background running when the command ends normally', async () => {
    const dir = tempDir();
    // The background sleep still holds the output pipe: cg reads on while it is quiet, then ends.
    const r = await shInGroup(`node "$CG" run --shell 'sleep 45 & echo $! > bg.pid; echo done'`, dir);
    expect([r.timedOut, r.out]).toEqual([false, 'done\n']);
    const bg = Number(readFileSync(join(dir, 'bg.pid'), 'utf8'));
    started.push(bg);
    expect(alive(bg)).toBe(true);
  });

  it('stops the whole command on SIGTSTP (Ctrl-Z) and resumes it on SIGCONT (fg)', async () => {
    const dir = tempDir();
    const { cg, sleep } = await cgWithSleep(dir, '49');
    const done = exitOf(cg);
    cg.kill('SIGTSTP');
    await until(() => stateOf(sleep) === 'T', 'sleep to stop');
    await until(() => stateOf(cg.pid!) === 'T', 'cg to stop');
    cg.kill('SIGCONT');
    await until(() => stateOf(sleep) === 'S', 'sleep to resume');
    cg.kill('SIGTERM');
    expect((await done).code).toBe(143);
  });
});
