/**
 * `GET /expand/KEY[?lines=A-B][&grep=RE]`, answered by the proxy itself: the original behind a
 * marker, byte for byte (text/plain), or the slice asked for — the same contract as `cg expand`
 * (store/slice.ts), for a client on another machine than the store. A bad key, range or pattern is
 * 400, a missing original 404 (with the way back), a grep that matches nothing 404.
 *
 * The store holds every user's tool output, so a proxy listening beyond loopback asks for its
 * token — the one secret named by `proxy.token_env` (CG_PROXY_TOKEN), as `Authorization: Bearer …`
 * or `x-cg-token` — compared in constant time (both sides hashed first, so not even the length
 * shows); without a configured token such a proxy serves no original at all. On loopback the route
 * is open, as `cg expand` is to the same user.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CgConfig } from '../../config.js';
import { UsageError } from '../../errors.js';
import { recordExpands } from '../../stats/index.js';
import { parseKeys } from '../../store/marker.js';
import { missMessage } from '../../store/miss.js';
import { compileGrep, parseLineRange, sliceOriginal } from '../../store/slice.js';
import { readEntry, type Store } from '../../store/store.js';

export const EXPAND_PREFIX = '/expand/';

export interface ExpandRouteOptions {
  store: Store | null;
  config: CgConfig;
  /** The proxy listens beyond loopback: the token is required. */
  remote: boolean;
  /** The configured token, if any. */
  token?: string;
  /** The ledger's environment. */
  statsEnv: NodeJS.ProcessEnv;
}

/** Whether a path is this route's (the server answers it before any provider route). */
export function isExpandPath(pathname: string): boolean {
  return pathname === '/expand' || pathname.startsWith(EXPAND_PREFIX);
}

function reply(
  res: ServerResponse,
  status: number,
  message: string,
  extra: Record<string, string> = {},
): void {
  const body = JSON.stringify({ error: { message: `cg proxy: ${message}` } });
  res
    .writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      ...extra,
    })
    .end(body);
}

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** The token a request carries, if any. */
function presented(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  const m = typeof auth === 'string' ? /^\s*bearer\s+(.+?)\s*$/i.exec(auth) : null;
  if (m) return m[1];
  const t = req.headers['x-cg-token'];
  return typeof t === 'string' ? t : undefined;
}

/** Whether the request may read originals; answers it when not. */
function allowed(req: IncomingMessage, res: ServerResponse, opts: ExpandRouteOptions): boolean {
  if (!opts.remote) return true;
  if (!opts.token) {
    reply(
      res,
      403,
      'GET /expand beyond loopback needs the proxy token: set the variable proxy.token_env names (CG_PROXY_TOKEN)',
    );
    return false;
  }
  const given = presented(req);
  if (given === undefined || !timingSafeEqual(digest(given), digest(opts.token))) {
    reply(res, 401, 'GET /expand needs the proxy token (Authorization: Bearer …)', {
      'www-authenticate': 'Bearer',
    });
    return false;
  }
  return true;
}

export async function serveExpand(
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  query: string,
  opts: ExpandRouteOptions,
): Promise<void> {
  req.resume();
  if (req.method !== 'GET') return reply(res, 405, 'only GET /expand/KEY', { allow: 'GET' });
  if (!allowed(req, res, opts)) return;
  let raw: string;
  try {
    raw = decodeURIComponent(pathname.slice(EXPAND_PREFIX.length));
  } catch {
    return reply(res, 400, 'the key is not a valid percent-encoded path segment');
  }
  const parsed = parseKeys(raw);
  if (!parsed.ok) return reply(res, 400, `key: ${parsed.reason}`);
  if (parsed.keys.length !== 1) return reply(res, 400, 'one key per request: GET /expand/KEY');
  const key = parsed.keys[0]!;
  const params = new URLSearchParams(query);
  const lines = params.get('lines') ?? undefined;
  const pattern = params.get('grep') ?? undefined;
  let range: ReturnType<typeof parseLineRange> | undefined;
  let grep: Awaited<ReturnType<typeof compileGrep>> | undefined;
  try {
    range = lines !== undefined && lines !== '' ? parseLineRange(lines, 'lines') : undefined;
    grep = pattern !== undefined && pattern !== '' ? await compileGrep(pattern, 'grep') : undefined;
  } catch (err) {
    if (err instanceof UsageError) return reply(res, 400, err.message);
    throw err;
  }
  if (!opts.store) return reply(res, 503, 'this proxy runs without a store of originals (--no-store)');
  const found = await readEntry(opts.store, key);
  if (!found.found) {
    await recordExpands([{ key, hit: false, bytes: 0, env: opts.statsEnv }]);
    return reply(res, found.why === 'unavailable' ? 503 : 404, missMessage(key, found, "this proxy's store"));
  }
  const body =
    range || grep
      ? Buffer.from(sliceOriginal(found.bytes.toString('utf8'), range, grep), 'utf8')
      : found.bytes;
  if (grep && body.length === 0) return reply(res, 404, `no line matches ${JSON.stringify(pattern)}`);
  res
    .writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': body.length })
    .end(body);
  await recordExpands([
    {
      key,
      hit: true,
      bytes: body.length,
      output: body,
      storeDir: opts.store.dir,
      tokenizer: opts.config.tokenizer,
      env: opts.statsEnv,
    },
  ]);
}
