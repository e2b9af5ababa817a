/**
 * Forwarding one request to its upstream with undici, and the response back to the client byte for
 * byte: status, headers (less hop-by-hop) and body as the upstream sent them — an SSE stream chunk
 * by chunk as it arrives, never decoded or buffered. stream.pipeline carries backpressure both ways
 * (a slow client slows the upstream read), and a client that goes away aborts the upstream request.
 * An upstream that cannot be reached gets the client a 502 in its provider's error shape; one that
 * fails after the status went out can only end the connection. `before`, when given, holds the
 * response back until it settles (a turn's shared session record being written: an upstream answers
 * long after that, so it costs nothing but the order).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { failureCode, providerError } from './errors.js';
import { forwardResponseHeaders } from './headers.js';
import type { Provider } from './routes.js';

export interface Target {
  provider: Provider;
  /** The configured upstream base URL (origin plus an optional path prefix). */
  base: string;
}

export interface Forwarded {
  status: number;
  /** Why the request did not complete normally (upstream unreachable, client gone, stream cut). */
  problem?: string;
}

/** The origin and path to request: the base's path prefix, then the client's path and query. */
export function upstreamPath(base: string, pathAndQuery: string): { origin: string; path: string } {
  const url = new URL(base);
  return { origin: url.origin, path: `${url.pathname.replace(/\/+$/, '')}${pathAndQuery}` };
}

/**
 * The client's answer when its upstream could not be reached: a 502 in the provider's error shape,
 * or, when the status already went out, the connection ended.
 */
export function answerUnreachable(
  res: ServerResponse,
  target: Target,
  origin: string,
  err: unknown,
): Forwarded {
  const code = failureCode(err);
  const e = providerError(
    target.provider,
    502,
    `cg proxy: upstream ${origin} unreachable (${code})`,
    'upstream_unreachable',
  );
  if (!res.headersSent) {
    res.writeHead(e.status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(e.body),
    });
    res.end(e.body);
  } else res.destroy();
  return { status: 502, problem: `upstream unreachable (${code})` };
}

export async function forward(
  dispatcher: Dispatcher,
  target: Target,
  req: IncomingMessage,
  res: ServerResponse,
  pathAndQuery: string,
  headers: string[],
  body: Buffer | IncomingMessage | null,
  before?: Promise<unknown>,
): Promise<Forwarded> {
  // A client that left while its body was being compacted must not cost an upstream request.
  if (res.closed || res.destroyed)
    return { status: 499, problem: 'client went away before the request was sent' };
  const abort = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) abort.abort();
  };
  res.once('close', onClose);
  const { origin, path } = upstreamPath(target.base, pathAndQuery);
  let upstream: Dispatcher.ResponseData;
  try {
    upstream = await dispatcher.request({
      origin,
      path,
      method: req.method as Dispatcher.HttpMethod,
      headers,
      body,
      signal: abort.signal,
    });
  } catch (err) {
    res.off('close', onClose);
    if (abort.signal.aborted)
      return { status: 499, problem: 'client went away before the upstream answered' };
    return answerUnreachable(res, target, origin, err);
  }
  const { pipeline } = await import('node:stream/promises');
  if (before) await before.catch(() => undefined);
  res.writeHead(upstream.statusCode, forwardResponseHeaders(upstream.headers));
  // Headers go out now: a client waiting on a stream sees the status before the first event.
  res.flushHeaders();
  try {
    await pipeline(upstream.body, res);
    return { status: upstream.statusCode };
  } catch (err) {
    res.destroy();
    upstream.body.destroy();
    if (abort.signal.aborted)
      return { status: upstream.statusCode, problem: 'client went away mid-response' };
    return { status: upstream.statusCode, problem: `stream cut (${failureCode(err)})` };
  } finally {
    res.off('close', onClose);
  }
}
