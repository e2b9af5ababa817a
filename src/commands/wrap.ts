/**
 * `cg wrap <host> [host args…]`: runs an agent host through `cg proxy` for this run only. The proxy
 * is one already answering where the host (its base URL variable) or the user's config points, else
 * a child `cg proxy` on a free loopback port (wrap-proxy.ts) that forwards where the host would have
 * gone without cg. The host is pointed at it its own way (its row's wrap, src/hosts/NAME/wrap.ts) — environment and
 * command-line overrides, never a settings file — and runs in the foreground with the terminal as
 * it is: stdio inherited, in cg's own process group (so the terminal's Ctrl-C, Ctrl-\ and Ctrl-Z
 * reach it directly and are not passed on a second time; SIGTERM and SIGHUP sent to cg are), its
 * exit code returned exactly and a death by signal re-raised on cg. The proxy is stopped after.
 * Fail open: a proxy that cannot start leaves the host to run unwrapped, with one line saying so.
 * With cg's hooks installed too, an output the hook already shortened carries a real marker, and
 * the proxy's pipeline leaves such text as it is (pipeline/gates.ts): no double work.
 *
 * `cg wrap --print-env <host>` prints shell lines pointing the host at the configured proxy.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { didYouMean } from '../config/nearest.js';
import { UsageError } from '../errors.js';
import { HOSTS, WRAP_ONLY_HOSTS } from '../hosts/index.js';
import type { WrapHost } from '../hosts/wrap.js';
import { warn } from '../io.js';
import { isTerminal } from '../terminal.js';
import { type OwnProxy, proxyAnswers, startProxy } from './wrap-proxy.js';

export interface WrapFlags {
  printEnv?: boolean;
  config?: string;
}

function hostOf(name: string): WrapHost {
  const all = [...HOSTS, ...WRAP_ONLY_HOSTS];
  const host = all.find((h) => h.name === name)?.wrap;
  if (host) return host;
  const names = all.map((h) => h.name);
  throw new UsageError(
    `wrap: unknown host ${JSON.stringify(name)}${didYouMean(name, names) || ` (hosts: ${names.join(', ')})`}`,
  );
}

/** The URL of the proxy the user's config describes (its port, on loopback). */
async function configuredUrl(flags: WrapFlags, env: NodeJS.ProcessEnv): Promise<string> {
  try {
    const [{ loadConfig }, { proxySettings }] = await Promise.all([
      import('../config.js'),
      import('./proxy.js'),
    ]);
    const cwd = process.cwd();
    const s = proxySettings(
      flags.config ? { config: flags.config } : {},
      await loadConfig(flags.config, env, cwd),
      cwd,
    );
    const host = s.host === '0.0.0.0' || s.host === '::' ? '127.0.0.1' : s.host;
    return `http://${host.includes(':') ? `[${host}]` : host}:${s.port}`;
  } catch {
    // A broken config is the proxy child's to report (it loads the same config, and fails open).
    return 'http://127.0.0.1:8787';
  }
}

function printEnv(host: WrapHost, url: string, answers: boolean): number {
  const lines = host.printEnv(url);
  if (!Array.isArray(lines)) {
    warn(`wrap: ${lines.unsupported}`);
    return 1;
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  if (!answers) warn(`wrap: no cg proxy answers at ${url} yet: start it with \`cg proxy\``);
  return 0;
}

/** The proxy this run goes through: one already there, else our own; undefined when none starts. */
async function proxyFor(
  host: WrapHost,
  flags: WrapFlags,
  env: NodeJS.ProcessEnv,
): Promise<{ url: string; own?: OwnProxy } | undefined> {
  const base = ownBase(host, env);
  if (base !== undefined && (await proxyAnswers(base))) return { url: base };
  if (base === undefined) {
    const configured = await configuredUrl(flags, env);
    if (await proxyAnswers(configured)) return { url: configured };
  }
  const script = process.argv[1];
  try {
    const own = await startProxy({
      self: script ? [process.execPath, script] : ['cg'],
      args: [
        ...(flags.config ? ['--config', flags.config] : []),
        ...(base !== undefined ? [`--${host.provider}-upstream`, base] : []),
      ],
      env,
      say: (line) => warn(`wrap: ${line}`),
    });
    return { url: own.url, own };
  } catch (err) {
    warn(`wrap: cg proxy could not start (${(err as Error).message}); running ${host.bin} unwrapped`);
    return undefined;
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function ownBase(host: WrapHost, env: NodeJS.ProcessEnv): string | undefined {
  return host.ownBase(env, process.cwd(), readText);
}

type Ended = { code: number } | { signal: NodeJS.Signals };

/** Runs the host in the foreground; resolves with how it ended. */
function runHost(bin: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Ended> {
  return new Promise((resolve) => {
    const child = spawn(bin, args, { stdio: 'inherit', env });
    // A terminal sends its keys' signals to the whole foreground group, the host included: passing
    // them on would deliver them twice (two Ctrl-C quit Claude Code). Without a terminal they were
    // meant for cg, and are the host's.
    const fromTerminal = isTerminal(0);
    const handlers: [NodeJS.Signals, () => void][] = (
      ['SIGINT', 'SIGQUIT', 'SIGTERM', 'SIGHUP'] as const
    ).map((sig) => [
      sig,
      () => {
        if (fromTerminal && (sig === 'SIGINT' || sig === 'SIGQUIT')) return;
        child.kill(sig);
      },
    ]);
    for (const [sig, h] of handlers) process.on(sig, h);
    const done = (e: Ended) => {
      for (const [sig, h] of handlers) process.off(sig, h);
      resolve(e);
    };
    child.once('error', (err: NodeJS.ErrnoException) => {
      warn(
        err.code === 'ENOENT'
          ? `wrap: ${bin}: command not found (is it installed and on PATH?)`
          : `wrap: ${bin}: ${err.message}`,
      );
      done({ code: err.code === 'ENOENT' ? 127 : 126 });
    });
    child.once('exit', (code, signal) => done(signal ? { signal } : { code: code ?? 1 }));
  });
}

export async function wrapCommand(
  name: string,
  args: readonly string[],
  flags: WrapFlags,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const host = hostOf(name);
  if (flags.printEnv) {
    if (args.length > 0) throw new UsageError('wrap --print-env: takes the host only, no host arguments');
    const base = ownBase(host, env);
    if (base !== undefined && (await proxyAnswers(base))) return printEnv(host, base, true);
    const url = await configuredUrl(flags, env);
    return printEnv(host, url, await proxyAnswers(url));
  }
  const elsewhere = host.unwrappable?.(env, process.cwd(), readText);
  const probe: ReturnType<WrapHost['point']> = elsewhere
    ? { unsupported: elsewhere }
    : host.point('http://127.0.0.1', env, args);
  let proxy: { url: string; own?: OwnProxy } | undefined;
  let runEnv: NodeJS.ProcessEnv = env;
  let runArgs: readonly string[] = args;
  if ('unsupported' in probe) warn(`wrap: ${probe.unsupported}; running ${host.bin} unwrapped`);
  else {
    proxy = await proxyFor(host, flags, env);
    if (proxy) {
      const pointed = host.point(proxy.url, env, args);
      if (!('unsupported' in pointed)) {
        runEnv = { ...env, ...pointed.env };
        runArgs = pointed.args;
      }
    }
  }
  let ended: Ended;
  try {
    ended = await runHost(host.bin, runArgs, runEnv);
  } finally {
    await proxy?.own?.stop();
  }
  if ('code' in ended) return ended.code;
  process.kill(process.pid, ended.signal);
  return 128 + (constants.signals[ended.signal] ?? 0);
}
