/**
 * Starts `cg proxy` in-process (createProxy from src/, the server the command runs) in front of a
 * fake upstream, with a private store and state directory, and sends requests to it.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { CgConfig } from '../../src/config.js';
import { defaultConfig } from '../../src/config.js';
import { createFilterSource } from '../../src/dsl/registry.js';
import type { CompactedRequest } from '../../src/proxy/compact-request.js';
import { PROXY_CONFIG_DEFAULTS } from '../../src/proxy/config.js';
import { createProxy, type ProxyOptions, type RunningProxy } from '../../src/proxy/server.js';
import type { RecordBackend } from '../../src/session/records.js';
import { createFsStore } from '../../src/store/fs-store.js';
import type { PutResult, Store } from '../../src/store/store.js';
import { tempDir } from '../helpers.js';

/** A store whose every put fails (a full disk): nothing it was asked to keep is kept. */
export function failingStore(): Store {
  return {
    dir: '/nonexistent',
    writable: async () => true,
    put: async (): Promise<PutResult> => ({
      ok: false,
      key: '0000000000000000',
      reason: 'unwritable',
      detail: 'disk full',
    }),
    get: async () => undefined,
    info: async () => ({ dir: '', entries: 0, bytes: 0, ttlDays: 0, maxBytes: 0, compress: false }),
    prune: async () => ({ removed: 0, freedBytes: 0, remaining: 0, remainingBytes: 0 }),
    clear: async () => 0,
  };
}

export interface TestProxy extends RunningProxy {
  store: Store;
  stateDir: string;
  compacted: CompactedRequest[];
  log: string[];
  /** The lines the proxy says about requests it refused to route (shown with or without --verbose). */
  refused: string[];
}

export interface TestProxyOptions {
  anthropic?: string;
  openai?: string;
  gemini?: string;
  observe?: boolean;
  timeoutMs?: number;
  preset?: string;
  store?: Store | null;
  config?: CgConfig;
  /** Stands in for the idle-time collection (src/proxy/idle-collect.ts). */
  collect?: () => void;
  /** The session record backend (default: files under the proxy's state dir). */
  records?: RecordBackend;
  /** cg_expand answered by the proxy: `cg proxy`'s defaults unless given (mode never: off). */
  retrieval?: Partial<NonNullable<ProxyOptions['retrieval']>>;
  /** The token GET /expand asks for beyond loopback. */
  token?: string;
  /** Where to listen (default 127.0.0.1). */
  host?: string;
  /** A state directory of the test's own (a restarted proxy's), kept at close; default one removed at close. */
  stateDir?: string;
  /** The idle warm-up (src/proxy/warm-up.ts), which `cg proxy` runs; off unless asked for. */
  warmUp?: boolean;
}

export async function startTestProxy(o: TestProxyOptions = {}): Promise<TestProxy> {
  const dir = tempDir('cg-proxy-');
  const stateDir = o.stateDir ?? join(dir, 'state');
  mkdirSync(stateDir, { recursive: true });
  const store =
    o.store === undefined
      ? createFsStore({ dir: join(dir, 'store'), ttlDays: 14, maxBytes: 1 << 30, compress: true })
      : o.store;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CG_STATE_DIR: stateDir,
    XDG_CONFIG_HOME: join(dir, 'cfg'),
  };
  delete env.CG_SESSION;
  const compacted: CompactedRequest[] = [];
  const log: string[] = [];
  const refused: string[] = [];
  const proxy = await createProxy({
    config: o.config ?? defaultConfig(),
    upstreams: {
      anthropic: o.anthropic ?? 'http://127.0.0.1:9',
      openai: o.openai ?? 'http://127.0.0.1:9',
      gemini: o.gemini ?? 'http://127.0.0.1:9',
    },
    preset: o.preset ?? 'agent',
    store,
    filters: createFilterSource({ cwd: dir, env }),
    observe: !!o.observe,
    timeoutMs: o.timeoutMs ?? 30_000,
    env,
    log: (l) => log.push(l),
    onRefused: (l) => refused.push(l),
    ...(o.collect ? { collect: o.collect } : {}),
    ...(o.records ? { records: o.records } : {}),
    retrieval: {
      mode: PROXY_CONFIG_DEFAULTS.retrieval,
      maxRounds: PROXY_CONFIG_DEFAULTS.retrievalRounds,
      maxBytes: PROXY_CONFIG_DEFAULTS.retrievalMaxBytes,
      ...o.retrieval,
    },
    ...(o.token !== undefined ? { token: o.token } : {}),
    ...(o.warmUp ? { warmUp: true } : {}),
    onCompacted: (c) => {
      compacted.push(c);
    },
  });
  const running = await proxy.listen(0, o.host ?? '127.0.0.1');
  const close = async () => {
    await running.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { ...running, close, store: store as Store, stateDir, compacted, log, refused };
}

export interface Sent {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** POSTs a body through the proxy and reads the whole answer as bytes. */
export async function send(
  url: string,
  path: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
  method = 'POST',
): Promise<Sent> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(method === 'GET' || method === 'HEAD' ? {} : { body }),
  });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}
