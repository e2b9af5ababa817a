/**
 * A real HAProxy for the tests (Debian's `haproxy`; `.ci/run` installs it): in front of the given
 * loopback backends, round-robin, on a free loopback port, in the foreground (-db), with its
 * config in a temp dir. Health checks ask each backend's GET /healthz every 200 ms (three failures
 * take it out, two answers bring it back: a check slowed by a busy machine does not), and a request
 * whose connection is refused goes to the other backend at once (retries, redispatch on each), as a
 * deployment would set it up; each response says which backend served it (x-cg-instance: its name). Tests
 * that need it skip with a clear message when haproxy is not installed.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './helpers.js';
import { freePort } from './redis-server.js';

export const HAPROXY = (() => {
  const r = spawnSync('sh', ['-c', 'command -v haproxy || ls /usr/sbin/haproxy'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim().split('\n')[0] : undefined;
})();

/** Appended to the name of a describe block that needs it. */
export const NEEDS_HAPROXY = HAPROXY
  ? ''
  : ' (skipped: haproxy is not installed; apt-get install -y haproxy)';

/** The response header naming the backend that served a request. */
export const SERVED_BY = 'x-cg-instance';

function config(port: number, backends: Record<string, number>): string {
  return [
    'global',
    '  maxconn 256',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 120s',
    '  timeout server 120s',
    '  timeout http-keep-alive 5s',
    '  timeout check 5s',
    '  retries 3',
    '  option redispatch 1',
    'frontend fleet',
    `  bind 127.0.0.1:${port}`,
    '  default_backend cg',
    'backend cg',
    '  balance roundrobin',
    '  option httpchk',
    '  http-check send meth GET uri /healthz',
    '  http-check expect status 200',
    '  default-server check inter 200ms fall 3 rise 2',
    `  http-response set-header ${SERVED_BY} %[srv_name]`,
    ...Object.entries(backends).map(([name, p]) => `  server ${name} 127.0.0.1:${p}`),
    '',
  ].join('\n');
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export class HAProxy {
  private constructor(
    readonly url: string,
    private readonly dir: string,
    private readonly child: ChildProcess,
    private readonly log: () => string,
  ) {}

  /** Balances over `backends` (name → port on 127.0.0.1). */
  static async start(backends: Record<string, number>): Promise<HAProxy> {
    if (!HAPROXY) throw new Error('haproxy is not installed');
    const dir = tempDir('cg-haproxy-');
    const port = await freePort();
    const file = join(dir, 'haproxy.cfg');
    writeFileSync(file, config(port, backends));
    const check = spawnSync(HAPROXY, ['-c', '-f', file], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`haproxy refused its config: ${check.stdout}${check.stderr}`);
    const child = spawn(HAPROXY, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout!.on('data', (d) => {
      log += d;
    });
    child.stderr!.on('data', (d) => {
      log += d;
    });
    const h = new HAProxy(`http://127.0.0.1:${port}`, dir, child, () => log);
    for (let i = 0; i < 200; i++) {
      if (child.exitCode !== null) throw new Error(`haproxy exited at start: ${log}`);
      if (await listening(port)) return h;
      await new Promise((r) => setTimeout(r, 25));
    }
    await h.stop();
    throw new Error(`haproxy did not listen within 5 s: ${log}`);
  }

  /** What haproxy printed (its warnings, backends going up and down). */
  output(): string {
    return this.log();
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child.exitCode === null && child.signalCode === null)
      await new Promise<void>((resolve) => {
        const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      });
    rmSync(this.dir, { recursive: true, force: true });
  }
}
