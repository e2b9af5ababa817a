/**
 * A real redis-server for the tests: on 127.0.0.1, on a port found free by binding a socket first
 * (redis cannot listen on port 0 and report it), with its data in a temp dir and every write
 * fsynced to its append-only file, so a restart keeps what it acknowledged. Tests that need it skip
 * with a clear message when redis-server is not installed (`.ci/run` installs it).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './helpers.js';

export const REDIS_SERVER = (() => {
  const r = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
})();

/** Appended to the name of a describe block that needs the server. */
export const NEEDS_REDIS = REDIS_SERVER
  ? ''
  : ' (skipped: redis-server is not installed; apt-get install -y redis-server)';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface RedisServerOptions {
  password?: string;
  /** More redis-server arguments (`--user …`, TLS settings). */
  args?: string[];
  /** The port clients use is a TLS port (the plain port is then switched off). */
  tls?: boolean;
}

export class RedisServer {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly opts: RedisServerOptions,
  ) {}

  static async start(opts: RedisServerOptions = {}): Promise<RedisServer> {
    if (!REDIS_SERVER) throw new Error('redis-server is not installed');
    let lastError: unknown;
    // Another process may take the port between our probe and redis's bind: try a few.
    for (let attempt = 0; attempt < 5; attempt++) {
      const server = new RedisServer(await freePort(), tempDir('cg-redis-'), opts);
      try {
        await server.launch();
        return server;
      } catch (err) {
        lastError = err;
        await server.stop();
      }
    }
    throw lastError;
  }

  /** `redis://[:password@]127.0.0.1:port/0` (rediss:// for a TLS server). */
  url(password = this.opts.password, user?: string): string {
    const who = user ? `${user}${password ? `:${password}` : ''}@` : password ? `:${password}@` : '';
    return `${this.opts.tls ? 'rediss' : 'redis'}://${who}127.0.0.1:${this.port}/0`;
  }

  private async launch(): Promise<void> {
    const portArgs = this.opts.tls
      ? ['--port', '0', '--tls-port', String(this.port)]
      : ['--port', String(this.port)];
    const args = [
      ...portArgs,
      '--bind',
      '127.0.0.1',
      '--dir',
      this.dir,
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--logfile',
      join(this.dir, 'redis.log'),
      ...(this.opts.password ? ['--requirepass', this.opts.password] : []),
      ...(this.opts.args ?? []),
    ];
    const child = spawn(REDIS_SERVER!, args, { stdio: 'ignore' });
    this.child = child;
    let exited = false;
    child.once('exit', () => {
      exited = true;
    });
    for (let i = 0; i < 200; i++) {
      if (exited) throw new Error(`redis-server exited at start (see ${join(this.dir, 'redis.log')})`);
      if (await this.listening()) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('redis-server did not start within 5 s');
  }

  private listening(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port: this.port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  }

  /** SIGTERM and wait: redis finishes its append-only file before it exits. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    // A paused server takes SIGTERM only once it runs again.
    child.kill('SIGCONT');
    await new Promise<void>((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }

  /** SIGSTOP: the server keeps its port and its connections but answers nothing (a hung or slow server). */
  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  /** SIGCONT after pause(): it answers again, every command sent meanwhile included. */
  resume(): void {
    this.child?.kill('SIGCONT');
  }

  /** Stop, then start again on the same port with the same data. */
  async restart(): Promise<void> {
    await this.stop();
    await this.launch();
  }
}
