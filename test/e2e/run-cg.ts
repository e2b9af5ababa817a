/**
 * Spawns the built CLI (bin/cg.js → dist/) with pipes and a private store, as a user would.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, tempDir } from '../helpers.js';

export const BIN = join(ROOT, 'bin', 'cg.js');

export interface CgRun {
  code: number;
  stdout: Buffer;
  stderr: string;
  out: string;
}

export interface RunOptions {
  input?: string | Buffer;
  env?: Record<string, string>;
  storeDir?: string;
  cwd?: string;
  /** Options for node itself, before the CLI (a heap limit, say). */
  nodeArgs?: string[];
}

function envFor(o: RunOptions) {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    XDG_CONFIG_HOME: join(o.storeDir ?? tempDir(), 'no-config'),
    CG_STORE_DIR: o.storeDir ?? join(tempDir(), 'store'),
    // Stats and session records never land in the real home directory; calls that share a store
    // share their state too, as one user's runs would.
    CG_STATE_DIR: o.storeDir ? `${o.storeDir}.state` : join(tempDir(), 'state'),
    ...o.env,
  };
}

export function cg(args: string[], o: RunOptions = {}): CgRun {
  const r = spawnSync(process.execPath, [...(o.nodeArgs ?? []), BIN, ...args], {
    input: o.input ?? '',
    env: envFor(o),
    cwd: o.cwd ?? ROOT,
    maxBuffer: 1 << 30,
  });
  return {
    code: r.status ?? -1,
    stdout: r.stdout,
    out: r.stdout.toString('utf8'),
    stderr: r.stderr.toString('utf8'),
  };
}

export function cgAsync(args: string[], o: RunOptions = {}): Promise<CgRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: envFor(o), cwd: o.cwd ?? ROOT });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) => {
      const stdout = Buffer.concat(out);
      resolve({
        code: code ?? -1,
        stdout,
        out: stdout.toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
    child.stdin.end(o.input ?? '');
  });
}

export function seq(n: number): string {
  let s = '';
  for (let i = 1; i <= n; i++) s += `${i}\n`;
  return s;
}
