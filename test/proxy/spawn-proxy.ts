/**
 * Runs the built `cg proxy` (bin/cg.js) as a user would, on 127.0.0.1 and a free port, with a private
 * store and state directory; resolves once it prints where it listens.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { BIN } from '../e2e/run-cg.js';
import { tempDir } from '../helpers.js';

export interface SpawnedProxy {
  url: string;
  child: ChildProcess;
  storeDir: string;
  stateDir: string;
  env: Record<string, string>;
  stdout: () => string;
  stderr: () => string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export function proxyEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: join(dir, 'home'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    CG_STORE_DIR: join(dir, 'store'),
    CG_STATE_DIR: join(dir, 'state'),
    ...extra,
  };
}

export function spawnProxy(
  args: string[],
  o: { dir?: string; env?: Record<string, string> } = {},
): Promise<SpawnedProxy> {
  const dir = o.dir ?? tempDir('cg-proxy-e2e-');
  const env = proxyEnv(dir, o.env);
  const child = spawn(process.execPath, [BIN, 'proxy', '--port', '0', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => {
    err += d;
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m)
        resolve({
          url: m[1]!,
          child,
          storeDir: env.CG_STORE_DIR!,
          stateDir: env.CG_STATE_DIR!,
          env,
          stdout: () => out,
          stderr: () => err,
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done(child.exitCode);
              child.once('exit', (code) => done(code));
              child.kill('SIGTERM');
            }),
        });
    });
    child.once('exit', (code) => reject(new Error(`cg proxy exited ${code} before listening: ${err}`)));
  });
}
