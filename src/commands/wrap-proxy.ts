/**
 * The `cg proxy` a `cg wrap` run goes through: one already answering (GET /_cg/health says
 * `cg: proxy`), or a child `cg proxy` of its own on 127.0.0.1 and a free port, in its own process
 * group (a Ctrl-C in the terminal is the host's, and must not drain the proxy under it), its output
 * kept off the terminal (the host owns it; the last lines are kept to say why it failed). A child
 * that dies while the host runs is started again on the same port, so the host's next request goes
 * through; a crash loop (more than RESTARTS in a minute) gives up with one line. stop() ends it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { valueAt } from '../json/payload.js';
import { isLoopback } from '../proxy/loopback.js';

/**
 * Whether a cg proxy answers at `url` (a short wait: a closed port answers at once). Only a
 * loopback URL is asked: a provider or a gateway the host points at gets no request from cg.
 */
export async function proxyAnswers(url: string, timeoutMs = 800): Promise<boolean> {
  try {
    if (!isLoopback(new URL(url).hostname)) return false;
    const res = await fetch(`${url.replace(/\/+$/, '')}/_cg/health`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    return valueAt(await res.json(), 'cg') === 'proxy';
  } catch {
    return false;
  }
}

export interface OwnProxy {
  url: string;
  /** SIGTERM (the proxy drains; nothing is in flight once the host has gone), SIGKILL after a while. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** How cg itself is started: [node, script] (process.execPath and process.argv[1]). */
  self: readonly string[];
  /** `cg proxy` arguments besides --host and --port. */
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  /** One line for the user (restarts, giving up). */
  say(line: string): void;
  startTimeoutMs?: number;
}

const RESTARTS = 5;
const TAIL = 4096;

interface Started {
  child: ChildProcess;
  url: string;
}

/** Starts one `cg proxy` on `port` (0: any free one); rejects with the reason when it does not listen. */
function startOnce(o: StartOptions, port: number): Promise<Started> {
  const [cmd, ...pre] = o.self;
  const child = spawn(cmd!, [...pre, 'proxy', '--host', '127.0.0.1', '--port', String(port), ...o.args], {
    env: o.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err = (err + d.toString('utf8')).slice(-TAIL);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('it did not listen within its start time'));
    }, o.startTimeoutMs ?? 15_000);
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(why));
    };
    child.once('error', (e) => fail(e.message));
    child.once('exit', (code, signal) => {
      const last = err.trim().split('\n').at(-1)?.replace(/^cg: /, '');
      fail(last || (signal ? `it was killed by ${signal}` : `it exited ${code}`));
    });
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.removeAllListeners('error');
      child.on('error', () => {});
      out = '';
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume(); // read on, so a chatty proxy never blocks on a full pipe
      resolve({ child, url: m[1]! });
    });
  });
}

/** Starts the proxy and keeps it up until stop(). */
export async function startProxy(o: StartOptions): Promise<OwnProxy> {
  let current = await startOnce(o, 0);
  const url = current.url;
  const port = Number(new URL(url).port);
  let stopping = false;
  let restarts: number[] = [];
  const watch = (s: Started) => {
    s.child.once('exit', (code, signal) => {
      if (stopping) return;
      const now = Date.now();
      restarts = restarts.filter((t) => now - t < 60_000);
      const how = signal ? `was killed by ${signal}` : `exited ${code}`;
      if (restarts.length >= RESTARTS) {
        o.say(`cg proxy ${how} again (${RESTARTS} restarts in a minute); not restarting it`);
        return;
      }
      restarts.push(now);
      startOnce(o, port).then(
        (next) => {
          current = next;
          if (stopping) next.child.kill('SIGTERM');
          else watch(next);
        },
        (e: Error) => o.say(`cg proxy ${how} and could not be restarted on port ${port}: ${e.message}`),
      );
    });
  };
  watch(current);
  return {
    url,
    stop: () => {
      stopping = true;
      const child = current.child;
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      return new Promise<void>((done) => {
        const hard = setTimeout(() => child.kill('SIGKILL'), 3000);
        child.once('exit', () => {
          clearTimeout(hard);
          done();
        });
        child.kill('SIGTERM');
      });
    },
  };
}
