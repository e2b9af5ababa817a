/**
 * `cg proxy`: a local HTTP server between agents and their providers (src/proxy/). Loads the
 * config, decides the upstreams (flags, else the user's own config's `proxy:` section — never a
 * project's `.cg.yaml`, which could otherwise send bodies and keys elsewhere), refuses a
 * non-loopback bind unless --allow-remote, prints the lines that point a client at it, and serves
 * until SIGINT/SIGTERM: the first drains (nothing new accepted, everything in flight finished, exit
 * 0: a rolling restart drops no request), a second stops at once. With a Redis store, session
 * records are shared in Redis too (`proxy.sessions: local` keeps them on this machine). Everything
 * heavy (node:http, undici, the Redis records) is imported here, on demand.
 */

import { resolve } from 'node:path';
import { type CgConfig, loadConfig } from '../config.js';
import { openDoor } from '../door.js';
import { UsageError } from '../errors.js';
import { warn } from '../io.js';
import { isPreset, PRESET_NAMES } from '../presets.js';
import type { CompactedRequest } from '../proxy/compact-request.js';
import {
  PROXY_CONFIG_DEFAULTS,
  type ProxyConfig,
  RETRIEVAL_MODES,
  type RetrievalMode,
  upstreamUrl,
} from '../proxy/config.js';
import { isLoopback } from '../proxy/loopback.js';
import { observeEnv } from '../proxy/observe-dir.js';
import { setupLines } from '../proxy/setup.js';
import { sessionsDir } from '../session/location.js';
import { diskRecords, type RecordBackend } from '../session/records.js';
import { sharedRedis } from '../store/fleet-store.js';
import type { Store } from '../store/store.js';

export interface ProxyFlags {
  port?: string;
  host?: string;
  allowRemote?: boolean;
  observe?: boolean;
  preset?: string;
  config?: string;
  anthropicUpstream?: string;
  openaiUpstream?: string;
  geminiUpstream?: string;
  timeoutMs?: string;
  retrieval?: string;
  /** commander's --no-store sets this false. */
  store?: boolean;
  verbose?: boolean;
}

export { isLoopback };

function wholeNumber(raw: string, flag: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < min || Number(raw) > max)
    throw new UsageError(`${flag}: expected a whole number in ${min}..${max}, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/**
 * The proxy settings in force: flags over the config's `proxy:` section, which counts only when it
 * comes from the user (an explicit --config or $CG_CONFIG, or $XDG_CONFIG_HOME/cg/config.yaml).
 */
export function proxySettings(
  flags: ProxyFlags,
  config: CgConfig,
  cwd: string,
): ProxyConfig & { ignored?: string } {
  const project =
    config.file !== undefined && resolve(config.file) === resolve(cwd, '.cg.yaml') && !flags.config;
  const base = project ? { ...PROXY_CONFIG_DEFAULTS } : { ...(config.proxy ?? PROXY_CONFIG_DEFAULTS) };
  const url = (raw: string, flag: string) => {
    try {
      return upstreamUrl(raw, flag);
    } catch (err) {
      throw new UsageError(
        `${flag}: ${(err as Error & { reason?: string }).reason ?? (err as Error).message}`,
      );
    }
  };
  if (flags.preset !== undefined && !isPreset(flags.preset))
    throw new UsageError(
      `--preset: expected one of ${PRESET_NAMES.join(', ')}, got ${JSON.stringify(flags.preset)}`,
    );
  if (flags.retrieval !== undefined && !(RETRIEVAL_MODES as readonly string[]).includes(flags.retrieval))
    throw new UsageError(
      `--retrieval: expected one of ${RETRIEVAL_MODES.join(', ')}, got ${JSON.stringify(flags.retrieval)}`,
    );
  return {
    ...base,
    retrieval: (flags.retrieval as RetrievalMode | undefined) ?? base.retrieval,
    anthropic:
      flags.anthropicUpstream !== undefined
        ? url(flags.anthropicUpstream, '--anthropic-upstream')
        : base.anthropic,
    openai: flags.openaiUpstream !== undefined ? url(flags.openaiUpstream, '--openai-upstream') : base.openai,
    gemini: flags.geminiUpstream !== undefined ? url(flags.geminiUpstream, '--gemini-upstream') : base.gemini,
    preset: (flags.preset as ProxyConfig['preset'] | undefined) ?? base.preset,
    host: flags.host ?? base.host,
    port: flags.port !== undefined ? wholeNumber(flags.port, '--port', 0, 65535) : base.port,
    timeoutMs:
      flags.timeoutMs !== undefined
        ? wholeNumber(flags.timeoutMs, '--timeout-ms', 1, 3_600_000)
        : base.timeoutMs,
    sessions: base.sessions,
    ...(project && config.proxy && JSON.stringify(config.proxy) !== JSON.stringify(PROXY_CONFIG_DEFAULTS)
      ? {
          ignored: `${config.file}: proxy settings of a project config are ignored (only your own config or flags set them)`,
        }
      : {}),
  };
}

/**
 * Where session records live: in Redis beside the store when the store is Redis (unless the
 * config keeps them local, or --observe, whose records are its own), else under the state dir.
 */
async function sessionRecords(
  store: Store | null,
  config: CgConfig,
  sessions: ProxyConfig['sessions'],
  dir: string | undefined,
  observe: boolean,
): Promise<RecordBackend | undefined> {
  const redis = observe || sessions === 'local' ? undefined : sharedRedis(store);
  if (!redis) return dir === undefined ? undefined : diskRecords(dir);
  const { sharedRecords } = await import('../session/shared-records.js');
  return sharedRecords({
    link: redis.link,
    prefix: config.store.prefix,
    ttlDays: config.store.ttlDays,
    dir,
    warn,
  });
}

/**
 * Records one forwarded request in the ledger (observe mode: the observe ledger): its decisions as
 * ev lines through the proxy's door, and one req line with the body's size before and after and
 * what cg's own model calls cost for it — also for a request sent unchanged, so `cg stats` counts
 * every request, not only those cg shortened.
 */
async function record(
  c: CompactedRequest,
  config: CgConfig,
  env: NodeJS.ProcessEnv,
  storeDir: string | undefined,
) {
  const { recordCompaction, recordRequest } = await import('../stats/index.js');
  const session = c.session !== undefined ? { session: c.session } : {};
  const host = c.host !== undefined ? { host: c.host } : {};
  if (c.events.length > 0)
    await recordCompaction(c.events, {
      ...session,
      ...host,
      via: 'proxy',
      format: c.format,
      tokenizer: config.tokenizer,
      ...(storeDir !== undefined ? { storeDir } : {}),
      // What the decisions counted exactly is not counted again (the counter uses config.tokenizer).
      ...(c.known ? { known: c.known } : {}),
      env,
    });
  await recordRequest({
    format: c.format,
    bytesIn: c.bytesIn,
    bytesOut: c.bytesOut,
    events: c.events,
    ...session,
    ...host,
    env,
  });
}

export async function proxyCommand(
  flags: ProxyFlags,
  env: NodeJS.ProcessEnv = process.env,
  onListening?: (url: string) => void,
): Promise<number> {
  const cwd = process.cwd();
  const config = await loadConfig(flags.config, env, cwd);
  const settings = proxySettings(flags, config, cwd);
  if (settings.ignored) warn(settings.ignored);
  if (!isLoopback(settings.host)) {
    if (!flags.allowRemote)
      throw new UsageError(
        `--host ${settings.host} is not a loopback address: add --allow-remote to listen there`,
      );
    warn(
      `listening on ${settings.host}: anyone who can reach it can use your upstreams with their own keys${env[settings.tokenEnv] ? '' : `; GET /expand serves no original until $${settings.tokenEnv} holds a token`}`,
    );
  }
  const { store, filters } = openDoor(config, {
    env,
    cwd,
    ...(flags.store === false ? { store: false } : {}),
    ...(flags.verbose ? { onNote: warn } : {}),
  });
  // Observe mode keeps its ledger and session records apart from what was really sent.
  const stateEnv = flags.observe ? observeEnv(env) : env;
  const modelEnv = proxyEngineEnv(stateEnv, settings);
  const { createProxy } = await import('../proxy/server.js');
  const sessionDir = sessionsDir(stateEnv);
  const records = await sessionRecords(store, config, settings.sessions, sessionDir, !!flags.observe);
  const proxy = await createProxy({
    config,
    upstreams: { anthropic: settings.anthropic, openai: settings.openai, gemini: settings.gemini },
    preset: settings.preset,
    store,
    filters,
    observe: !!flags.observe,
    timeoutMs: settings.timeoutMs,
    env: modelEnv,
    ...(sessionDir !== undefined ? { sessionDir } : {}),
    ...(records ? { records } : {}),
    ...(flags.verbose ? { log: (line: string) => warn(`proxy: ${line}`) } : {}),
    onRefused: (line) => warn(`proxy: ${line}`),
    retrieval: {
      mode: settings.retrieval,
      maxRounds: settings.retrievalRounds,
      maxBytes: settings.retrievalMaxBytes,
    },
    ...(env[settings.tokenEnv] ? { token: env[settings.tokenEnv] } : {}),
    statsEnv: stateEnv,
    // A first body's one-time costs (cold code, lazy loads) are paid while idle, not in a turn.
    warmUp: true,
    // Observe mode stashes nothing, so its records carry their texts instead of store keys.
    onCompacted: (c) => record(c, config, stateEnv, flags.observe ? undefined : store?.dir),
  });
  let running: Awaited<ReturnType<typeof proxy.listen>>;
  try {
    running = await proxy.listen(settings.port, settings.host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'EADDRINUSE'
        ? `port ${settings.port} on ${settings.host} is in use (another cg proxy?); choose one with --port`
        : `cannot listen on ${settings.host}:${settings.port}: ${(err as Error).message}`,
    );
  }
  process.stdout.write(
    `cg proxy listening on ${running.url} (preset ${settings.preset}${flags.observe ? ', observe only: bodies go on unchanged' : ''}; ` +
      `anthropic → ${settings.anthropic}, openai → ${settings.openai}, gemini → ${settings.gemini})\n${setupLines(running.url)}`,
  );
  onListening?.(running.url);
  await new Promise<void>((done) => {
    let draining = false;
    const stop = (signal: NodeJS.Signals) => {
      if (draining) {
        warn(`${signal} again: stopping now, ${running.inFlight()} requests cut`);
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        running.close().then(done, done);
        return;
      }
      draining = true;
      const n = running.inFlight();
      warn(
        `${signal}: draining — no new connections; ${n} request${n === 1 ? '' : 's'} in flight finish first (${signal} again stops now)`,
      );
      running.drain().then(done, done);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return 0;
}

/**
 * The environment the proxy's engine sees: the user's own (key variables, state locations), with
 * model-assisted components asking "the incoming model" sent to the same upstreams, never back
 * here, and without CG_SESSION — one exported in the proxy's shell would make every client's
 * requests one session.
 */
export function proxyEngineEnv(
  env: NodeJS.ProcessEnv,
  upstreams: { anthropic: string; openai: string },
): NodeJS.ProcessEnv {
  const { CG_SESSION: _oneSession, ...own } = env;
  return { ...own, ANTHROPIC_BASE_URL: upstreams.anthropic, OPENAI_BASE_URL: `${upstreams.openai}/v1` };
}
