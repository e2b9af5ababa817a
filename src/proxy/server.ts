/**
 * The proxy server: node:http in front, undici to the upstreams. Each request is routed
 * (routes.ts); a compacted route's body is read whole and goes through compactRequest, any other
 * request streams through untouched. The upstream for each provider is fixed at start-up — the
 * request only ever chooses a path on it, so this is not an open proxy (an absolute-form target or
 * CONNECT is refused). Nothing here logs a body or a secret: --verbose prints the route, sizes,
 * timings and the header names with secret-bearing values redacted. Four paths are the proxy's
 * own: GET /_cg/health, which `cg doctor` asks, /healthz and /readyz (health.ts), and GET
 * /expand/KEY (retrieval/expand-route.ts). A session whose client cannot open markers gets
 * cg_expand answered by the proxy (retrieval/): the only hook here is prepare() around compaction
 * and respond() in place of forward(). Stats are recorded after the response is done, so they never
 * add to a turn's latency.
 *
 * drain() is a graceful shutdown: no new connection is accepted, every request in flight — a
 * stream included — is served to its end, and so is a request that arrives meanwhile on a
 * kept-alive connection (answered with `connection: close`; a balancer that reuses its connection
 * to us until it sees the listener gone loses nothing); connections idle when the drain begins are
 * closed then, the others once they have been idle for the server's keep-alive timeout. Then the
 * work turns left for their sessions is done, and the server is closed.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FilterSource } from '../component.js';
import type { CgConfig } from '../config.js';
import { clientHost } from '../hosts/client-host.js';
import type { PipelineEvent } from '../pipeline/run.js';
import { sessionsDir } from '../session/location.js';
import { diskRecords, type RecordBackend } from '../session/records.js';
import type { Store } from '../store/store.js';
import { createTokens, type Tokens } from '../tokens.js';
import { BodyTooLarge, readBody } from './body.js';
import { type CompactedRequest, compactRequest, settledTurns } from './compact-request.js';
import type { ProxyConfig } from './config.js';
import { providerError } from './errors.js';
import { forwardRequestHeaders, redactedHeaders } from './headers.js';
import { type Answer, HEALTHZ_PATH, healthz, READYZ_PATH, readyz } from './health.js';
import { idleCollector } from './idle-collect.js';
import { isLoopback } from './loopback.js';
import { isExpandPath, serveExpand } from './retrieval/expand-route.js';
import { createRetrieval, plainPrepared, type Retrieval } from './retrieval/retrieval.js';
import { retryMemo } from './retry-memo.js';
import { type Provider, routeOf } from './routes.js';
import { storeCache } from './store-cache.js';
import { TurnMemory } from './turn/memory.js';
import { type Forwarded, forward } from './upstream.js';

export interface ProxyOptions {
  config: CgConfig;
  upstreams: Record<Provider, string>;
  preset: string;
  store: Store | null;
  filters: FilterSource;
  observe: boolean;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  sessionDir?: string;
  /** The session record backend; default the files under sessionDir (src/session/records.ts). */
  records?: RecordBackend;
  /** One line per request (and its headers, redacted) under --verbose. */
  log?: (line: string) => void;
  /** One line per request the proxy refused to route (always shown: the client was misdirected). */
  onRefused?: (line: string) => void;
  /** After each compacted request's response is done: the decisions, for the stats ledger. */
  onCompacted?: (c: CompactedRequest) => void | Promise<void>;
  /** A full collection, run while idle after a turn over a large body (idle-collect.ts); tests count it. */
  collect?: () => void;
  /** Upstream timeouts (ms): until the response headers, and between body chunks. */
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** cg_expand answered by the proxy (retrieval/; off in observe mode); absent: never. */
  retrieval?: { mode: ProxyConfig['retrieval']; maxRounds: number; maxBytes: number };
  /** The proxy's token, which GET /expand asks for when it listens beyond loopback. */
  token?: string;
  /** The ledger's environment for the expands the proxy serves (default env). */
  statsEnv?: NodeJS.ProcessEnv;
  /**
   * Pay a first body's one-time costs while idle after listening (warm-up.ts); `cg proxy` turns it
   * on. Nothing it does reaches the store, the session records or the ledger.
   */
  warmUp?: boolean;
}

export interface RunningProxy {
  server: Server;
  url: string;
  /** Stops at once: every connection is cut, streams in flight included. */
  close(): Promise<void>;
  /** Stops gracefully: nothing new is accepted, everything in flight finishes (see the header). */
  drain(): Promise<void>;
  /** Requests being served now. */
  inFlight(): number;
}

/** Answered by the proxy itself (cg doctor asks it); every other path goes upstream. */
export const HEALTH_PATH = '/_cg/health';

/** Sessions whose token counters are kept (their caches spare recounting earlier turns). */
const TOKEN_SESSIONS = 16;

function tokenCounters(tokenizer: CgConfig['tokenizer']): (session: string | undefined) => Tokens {
  const bySession = new Map<string, Tokens>();
  return (session) => {
    if (session === undefined) return createTokens(tokenizer);
    let t = bySession.get(session);
    if (t) bySession.delete(session);
    else t = createTokens(tokenizer);
    bySession.set(session, t);
    if (bySession.size > TOKEN_SESSIONS) bySession.delete(bySession.keys().next().value as string);
    return t;
  };
}

/** A client's path for a log line: bounded, control characters escaped. */
function shown(pathname: string): string {
  const cut = pathname.length > 200 ? `${pathname.slice(0, 200)}…` : pathname;
  return /[\u0000-\u001f\u007f]/.test(cut) ? JSON.stringify(cut) : cut;
}

function summary(events: readonly PipelineEvent[]): string {
  const by = new Map<string, number>();
  for (const e of events) if (e.action === 'rewrite') by.set(e.component, (by.get(e.component) ?? 0) + 1);
  return [...by].map(([c, n]) => `${c} ${n}`).join(', ') || 'no rewrites';
}

/**
 * A `tool` session's turn: the session's record write (shared records) settles before the proxy
 * answers, as forward() holds its response for it, so the client's next turn finds the record on
 * whichever instance it lands; the hidden rounds then run as retrieval/ says.
 */
async function respondWithRetrieval(
  retrieval: Retrieval,
  turn: Parameters<Retrieval['respond']>[0],
  settled: Promise<unknown> | undefined,
  deps: Parameters<Retrieval['respond']>[1],
): Promise<Forwarded & { rounds: number }> {
  if (settled) await settled.catch(() => undefined);
  return retrieval.respond(turn, deps);
}

export async function createProxy(
  opts: ProxyOptions,
): Promise<{ server: Server; listen(port: number, host: string): Promise<RunningProxy> }> {
  // Loaded here, not at the top: a bundle hoists static imports into every cg start-up.
  const [{ createServer }, { Agent }] = await Promise.all([import('node:http'), import('undici')]);
  const dispatcher = new Agent({
    headersTimeout: opts.headersTimeoutMs ?? 600_000,
    bodyTimeout: opts.bodyTimeoutMs ?? 600_000,
    connect: { timeout: 10_000 },
  });
  let dispatcherClosed: Promise<void> | undefined;
  const closeDispatcher = () => {
    dispatcherClosed ??= dispatcher.close();
    return dispatcherClosed;
  };
  const cache = opts.store ? storeCache(opts.store) : null;
  // None where there is no state directory (a home that does not exist): no session replay then.
  const recordsDir = opts.sessionDir ?? sessionsDir(opts.env);
  const records = opts.records ?? (recordsDir !== undefined ? diskRecords(recordsDir) : undefined);
  const deps = {
    config: opts.config,
    preset: opts.preset,
    store: cache,
    baseStore: opts.store,
    filters: opts.filters,
    tokensFor: tokenCounters(opts.config.tokenizer),
    timeoutMs: opts.timeoutMs,
    observe: opts.observe,
    env: opts.env,
    ...(opts.sessionDir !== undefined ? { sessionDir: opts.sessionDir } : {}),
    ...(records ? { records } : {}),
    retries: retryMemo(),
    turns: new TurnMemory(),
  };
  const log = opts.log;
  let draining = false;
  let closed = false;
  let inFlight = 0;
  /** When the last request began (the warm-up waits for a quiet moment). */
  let lastBegan = 0;

  const answer = (res: ServerResponse, a: Answer) =>
    res
      .writeHead(a.status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(a.body),
      })
      .end(a.body);

  const statsEnv = opts.statsEnv ?? opts.env;
  const retrieval: Retrieval | undefined =
    opts.retrieval && !opts.observe
      ? createRetrieval({
          ...opts.retrieval,
          config: opts.config,
          store: opts.store,
          records,
          statsEnv,
        })
      : undefined;
  /** Set by listen(): beyond loopback, GET /expand asks for the token. */
  let remote = false;

  /** Serves one request; resolves to the size of the body it compacted (0 when none). */
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<number> {
    const started = performance.now();
    const target = req.url ?? '';
    if (!target.startsWith('/') || target.startsWith('//')) {
      const e = providerError(
        'openai',
        400,
        'cg proxy: only origin-form request targets (/path) are accepted',
        'bad_request',
      );
      res.writeHead(e.status, { 'content-type': 'application/json' }).end(e.body);
      return 0;
    }
    if (target === HEALTH_PATH && req.method === 'GET') {
      const body = JSON.stringify({ cg: 'proxy', preset: opts.preset, observe: opts.observe });
      res
        .writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
        .end(body);
      return 0;
    }
    const own = req.method === 'GET' ? target.split('?')[0] : undefined;
    if (own === HEALTHZ_PATH || own === READYZ_PATH) {
      answer(res, own === HEALTHZ_PATH ? healthz(draining) : await readyz(opts.store, records, draining));
      return 0;
    }
    const [pathname = '', query = ''] = target.split(/\?(.*)/s);
    if (isExpandPath(pathname)) {
      await serveExpand(req, res, pathname, query, {
        store: opts.store,
        config: opts.config,
        remote,
        ...(opts.token ? { token: opts.token } : {}),
        statsEnv,
      });
      return 0;
    }
    const routing = routeOf(req.method ?? 'GET', pathname, req.headers, query);
    if ('refused' in routing) {
      const { status, reason, shape } = routing.refused;
      const line = `${req.method} ${shown(pathname)}: ${reason}; nothing was forwarded`;
      // Always said, --verbose or not: a client that gets this answer was pointed somewhere wrong.
      opts.onRefused?.(`refused ${line} (${status})`);
      const code = status === 404 ? 'not_found' : 'bad_request';
      const e = providerError(shape, status, `cg proxy: ${line}`, code);
      res
        .writeHead(e.status, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(e.body),
        })
        .end(e.body);
      req.resume();
      return 0;
    }
    const { route } = routing;
    const upstream = { provider: route.provider, base: opts.upstreams[route.provider] };
    log?.(
      `→ ${req.method} ${target.split('?')[0]} (${route.provider}${route.format ? `, ${route.format}` : ''}) ${redactedHeaders(req.rawHeaders)}`,
    );
    if (!route.format) {
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const r = await forward(
        dispatcher,
        upstream,
        req,
        res,
        target,
        forwardRequestHeaders(req.rawHeaders),
        hasBody ? req : null,
      );
      log?.(
        `← ${r.status} ${req.method} ${target.split('?')[0]} passed through, ${(performance.now() - started).toFixed(0)} ms${r.problem ? `; ${r.problem}` : ''}`,
      );
      return 0;
    }
    let raw: Buffer;
    try {
      raw = await readBody(req);
    } catch (err) {
      const tooLarge = err instanceof BodyTooLarge;
      const e = providerError(
        route.provider,
        tooLarge ? 413 : 400,
        `cg proxy: ${tooLarge ? err.message : 'request body could not be read'}`,
        'bad_request',
      );
      if (!res.headersSent)
        res.writeHead(e.status, { 'content-type': 'application/json', connection: 'close' }).end(e.body);
      return 0;
    }
    const format = route.format;
    const compact = (body: Buffer, rawHeaders: readonly string[], text?: string) =>
      compactRequest(body, format, rawHeaders, deps, text);
    const p =
      retrieval && format !== 'gemini'
        ? await retrieval.prepare(raw, format, req.rawHeaders, compact)
        : plainPrepared(await compact(raw, req.rawHeaders));
    const c = p.compacted;
    const bare = forwardRequestHeaders(req.rawHeaders, ['content-length', 'content-encoding']);
    const headers = p.plain
      ? [...bare, 'content-length', String(p.body.length)]
      : forwardRequestHeaders(req.rawHeaders);
    const r: Forwarded & { rounds?: number } =
      retrieval && p.turn
        ? await respondWithRetrieval(retrieval, p.turn, c.settled, {
            dispatcher,
            target: upstream,
            req,
            res,
            pathAndQuery: target,
            headers: bare,
          })
        : await forward(dispatcher, upstream, req, res, target, headers, p.body, c.settled);
    log?.(
      `← ${r.status} ${req.method} ${target.split('?')[0]} ${c.rewritten ? `${c.bytesIn} → ${c.bytesOut} bytes` : opts.observe ? 'observed, sent unchanged' : 'sent unchanged'}` +
        ` (${summary(c.events)}) in ${c.ms.toFixed(0)} ms${c.session ? `, session ${c.session}` : ''}` +
        `${c.fellOpen ? `; fell open: ${c.fellOpen}` : ''}${r.problem ? `; ${r.problem}` : ''}` +
        `${r.rounds ? `; cg_expand answered by the proxy in ${r.rounds} round${r.rounds === 1 ? '' : 's'}` : ''}`,
    );
    const host = clientHost(req.rawHeaders);
    await opts.onCompacted?.(host ? { ...c, host } : c);
    return c.bytesIn;
  }

  const idle = idleCollector(opts.collect);
  const server = createServer({ keepAlive: true }, (req, res) => {
    idle.begin();
    inFlight++;
    lastBegan = performance.now();
    // Arrived on a kept-alive connection while draining: served, and the connection closed after.
    if (draining) res.setHeader('connection', 'close');
    let compacted = 0;
    handle(req, res)
      .then((bytes) => {
        compacted = bytes;
      })
      .catch((err: unknown) => {
        // A bug of ours must cost the client one request, never the proxy.
        log?.(`internal error: ${err instanceof Error ? err.message : String(err)}`);
        if (!res.headersSent)
          res
            .writeHead(500, { 'content-type': 'application/json' })
            .end('{"error":{"message":"cg proxy internal error"}}');
        else res.destroy();
      })
      .finally(() => {
        idle.end(compacted);
        inFlight--;
      });
  });

  async function drain(): Promise<void> {
    draining = true;
    closed = true;
    // Stops accepting and closes idle connections; the rest close after their responses.
    await new Promise<void>((closed) => server.close(() => closed()));
    await settledTurns();
    await closeDispatcher();
  }
  /** The warm-up (warm-up.ts), loaded and run once the server listens; it never keeps the process alive. */
  function startWarmUp(): void {
    void import('./warm-up.js')
      .then(({ warmUp }) =>
        warmUp({
          config: opts.config,
          preset: opts.preset,
          filters: opts.filters,
          busy: () => inFlight > 0 || performance.now() - lastBegan < 50,
          stopped: () => closed || draining,
        }),
      )
      .then(
        (steps) => log?.(`warm-up: ${steps} steps done`),
        () => undefined,
      );
  }

  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });
  // Not a tunnelling proxy: CONNECT and protocol upgrades (websockets) are refused.
  const refuse = (_req: IncomingMessage, socket: import('node:stream').Duplex) => {
    socket.end('HTTP/1.1 501 Not Implemented\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
  };
  server.on('connect', refuse);
  server.on('upgrade', refuse);

  return {
    server,
    listen(port, host) {
      remote = !isLoopback(host);
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const a = server.address() as AddressInfo;
          const h = a.family === 'IPv6' ? `[${a.address}]` : a.address;
          if (opts.warmUp) startWarmUp();
          resolve({
            server,
            url: `http://${h}:${a.port}`,
            close: async () => {
              closed = true;
              await new Promise<void>((r) => {
                server.close(() => r());
                server.closeAllConnections();
              });
              await closeDispatcher();
            },
            drain,
            inFlight: () => inFlight,
          });
        });
      });
    },
  };
}
