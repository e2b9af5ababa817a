/**
 * One client request of a session that carries the proxy's cg_expand, from the upstream's answer
 * to what the client gets. An answer whose only calls are the proxy's is a hidden round: the proxy
 * answers them from the store, appends the model's turn and the results to the request, and asks
 * again — the client never sees that round's bytes, and gets the final answer (status, headers,
 * body) as the upstream sent it. An answer that calls the client's tools too goes to the client with
 * the proxy's calls taken out, and what the model saw is recorded for the client's next request
 * (splice.ts) together with any hidden rounds before it, before the answer's last event leaves.
 *
 * A stream is held only while it could still be a hidden round: until it calls a client tool or
 * ends. Past `maxRounds` hidden rounds the answer goes to the client as it came, the proxy's call
 * included (the client's error for an unknown tool then tells the model). A non-2xx answer, an
 * encoded one, or one that is neither JSON nor SSE goes to the client as it came, at any round.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { objectAt } from '../../json/payload.js';
import { failureCode } from '../errors.js';
import { forwardResponseHeaders } from '../headers.js';
import type { Forwarded, Target } from '../upstream.js';
import { answerUnreachable, upstreamPath } from '../upstream.js';
import type { Answer } from './answer.js';
import { byteEdits, emptyArrayAt, type Format, mapBody } from './body-map.js';
import type { Answered, Call, FormatOps, Reply } from './formats/types.js';
import type { Splice } from './splice.js';
import { type SseEvent, SseSplitter } from './sse.js';

/** The client request a turn answers, as the proxy sent it and as the client sent it. */
export interface TurnRequest {
  ops: FormatOps;
  format: Format;
  /** The body as sent upstream, and where its conversation is, once a round needs it. */
  body: Buffer;
  conversation?: { start: number; end: number; kind: 'array' | 'string' };
  /** How many messages (items) the client's conversation has, and its last one's content key. */
  count: number;
  lastHash?: string;
  /** The request continues a response the provider stored (Responses previous_response_id, conversation). */
  stateful: boolean;
}

export interface RoundDeps {
  dispatcher: Dispatcher;
  target: Target;
  req: IncomingMessage;
  res: ServerResponse;
  pathAndQuery: string;
  /** The request headers for the upstream, without content-length. */
  headers: string[];
  maxRounds: number;
  answer(call: Call): Promise<Answer>;
  /** Records what the client's next requests need (resolves once written). */
  record(splices: Splice[]): Promise<void>;
  /** Told the id of the answer the client gets, where the format has one (a stored response). */
  delivered?(id: string): void;
}

/** A non-streamed answer is read whole up to this; a larger one goes to the client as it came. */
const MAX_JSON_BYTES = 64 * 1024 * 1024;

type Outcome = { hidden: Reply } | { forwarded: Forwarded };

/** The conversation with items appended, and where it now is. */
function appended(turn: TurnRequest, items: readonly string[]): TurnRequest {
  const c = turn.conversation ?? mapBody(turn.body, turn.format)?.conversation;
  if (!c) throw new Error('the request has no conversation to continue');
  if (c.kind === 'string') {
    const text = `[${[`{"role":"user","content":${turn.body.subarray(c.start, c.end).toString('utf8')}}`, ...items].join(',')}]`;
    return {
      ...turn,
      body: byteEdits(turn.body, [{ ...c, text }]),
      conversation: { start: c.start, end: c.start + Buffer.byteLength(text), kind: 'array' },
    };
  }
  const close = c.end - 1;
  const text = `${emptyArrayAt(turn.body, c.start) ? '' : ','}${items.join(',')}`;
  return {
    ...turn,
    body: byteEdits(turn.body, [{ start: close, end: close, text }]),
    conversation: { ...c, end: c.end + Buffer.byteLength(text) },
  };
}

/** The request headers with their own content-length, asking for an unencoded answer (it is read). */
function requestHeaders(headers: readonly string[], length: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < headers.length; i += 2)
    if (headers[i]!.toLowerCase() !== 'accept-encoding') out.push(headers[i]!, headers[i + 1]!);
  return [...out, 'accept-encoding', 'identity', 'content-length', String(length)];
}

function header(up: Dispatcher.ResponseData, name: string): string {
  const v = up.headers[name];
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

/** Writes bytes, waiting while the client's socket is full. */
async function write(res: ServerResponse, bytes: Buffer): Promise<void> {
  if (bytes.length === 0 || res.destroyed) return;
  if (!res.write(bytes))
    await new Promise<void>((r) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        r();
      };
      res.on('drain', done);
      res.on('close', done);
    });
}

export async function respond(first: TurnRequest, deps: RoundDeps): Promise<Forwarded & { rounds: number }> {
  const { res } = deps;
  if (res.closed || res.destroyed)
    return { status: 499, problem: 'client went away before the request was sent', rounds: 0 };
  const abort = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) abort.abort();
  };
  res.once('close', onClose);
  const exchange: string[] = [];
  let turn = first;
  let round = 0;
  try {
    for (; ; round++) {
      const outcome = await oneRound(turn, deps, abort.signal, round < deps.maxRounds, exchange);
      if ('forwarded' in outcome) return { ...outcome.forwarded, rounds: round };
      const own = outcome.hidden.calls;
      const answered: Answered[] = [];
      for (const call of own) answered.push({ call, answer: await deps.answer(call) });
      const items = [...outcome.hidden.assistant, ...turn.ops.results(answered)];
      exchange.push(...items);
      turn = appended(turn, items);
    }
  } catch (err) {
    if (abort.signal.aborted) return { status: 499, problem: 'client went away mid-response', rounds: round };
    res.destroy();
    return { status: 502, problem: `retrieval round failed (${failureCode(err)})`, rounds: round };
  } finally {
    res.off('close', onClose);
  }
}

/** The splices for the client's next request: the hidden rounds, and a mixed answer's own calls. */
async function splicesFor(
  turn: TurnRequest,
  exchange: readonly string[],
  mixed: Reply | undefined,
  deps: RoundDeps,
): Promise<Splice[]> {
  const out: Splice[] = [];
  if (exchange.length > 0 && !turn.stateful && turn.lastHash !== undefined && turn.count > 0)
    out.push({ op: 'after', at: turn.count - 1, hash: turn.lastHash, items: [...exchange] });
  if (mixed) {
    const answered: Answered[] = [];
    for (const call of mixed.calls.filter((c) => c.own))
      answered.push({ call, answer: await deps.answer(call) });
    out.push(...turn.ops.mixed(mixed, answered, turn.count, turn.stateful));
  }
  return out;
}

async function oneRound(
  turn: TurnRequest,
  deps: RoundDeps,
  signal: AbortSignal,
  mayHide: boolean,
  exchange: readonly string[],
): Promise<Outcome> {
  const { res, target } = deps;
  const { body } = turn;
  const { origin, path } = upstreamPath(target.base, deps.pathAndQuery);
  let up: Dispatcher.ResponseData;
  try {
    up = await deps.dispatcher.request({
      origin,
      path,
      method: 'POST',
      headers: requestHeaders(deps.headers, body.length),
      body,
      signal,
    });
  } catch (err) {
    if (signal.aborted)
      return { forwarded: { status: 499, problem: 'client went away before the upstream answered' } };
    return { forwarded: answerUnreachable(res, target, origin, err) };
  }
  const type = header(up, 'content-type').toLowerCase();
  const encoding = header(up, 'content-encoding').toLowerCase();
  const readable =
    up.statusCode >= 200 && up.statusCode < 300 && (encoding === '' || encoding === 'identity');
  const recordNow = async (delivered?: Reply, mixed = false) => {
    if (delivered?.id !== undefined) deps.delivered?.(delivered.id);
    await deps.record(await splicesFor(turn, exchange, mixed ? delivered : undefined, deps));
  };
  if (readable && type.includes('text/event-stream')) return streamRound(turn, up, deps, mayHide, recordNow);
  if (readable && type.includes('json')) return jsonRound(turn, up, deps, mayHide, recordNow);
  // As the upstream sent it: an error (of any round), or a shape the proxy does not read.
  if (readable) await recordNow();
  return { forwarded: await relay(up, res, [], false) };
}

/** The rest of an upstream answer to the client as it comes, after `before`. */
async function relay(
  up: Dispatcher.ResponseData,
  res: ServerResponse,
  before: readonly Buffer[],
  started: boolean,
  dropLength = false,
): Promise<Forwarded> {
  if (!started) {
    const headers = forwardResponseHeaders(up.headers);
    res.writeHead(up.statusCode, dropLength ? withoutLength(headers) : headers);
    res.flushHeaders();
  }
  for (const b of before) await write(res, b);
  for await (const chunk of up.body) await write(res, chunk as Buffer);
  res.end();
  return { status: up.statusCode };
}

function withoutLength(headers: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < headers.length; i += 2)
    if (headers[i]!.toLowerCase() !== 'content-length') out.push(headers[i]!, headers[i + 1]!);
  return out;
}

/**
 * How a round reads a readable upstream answer (JSON or SSE): it records the turn through
 * recordNow once it knows what was delivered, and either hides an answer made only of the proxy's
 * own calls or sends the client what it may see.
 */
type ReadAnswer = (
  turn: TurnRequest,
  up: Dispatcher.ResponseData,
  deps: RoundDeps,
  mayHide: boolean,
  recordNow: (delivered?: Reply, mixed?: boolean) => Promise<void>,
) => Promise<Outcome>;

const jsonRound: ReadAnswer = async (turn, up, deps, mayHide, recordNow) => {
  const { res } = deps;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of up.body) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size > MAX_JSON_BYTES) {
      await recordNow();
      return { forwarded: await relay(up, res, chunks, false) };
    }
  }
  const raw = Buffer.concat(chunks);
  let parsed: Record<string, unknown> | undefined;
  try {
    parsed = objectAt(JSON.parse(raw.toString('utf8')));
  } catch {
    parsed = undefined;
  }
  const reply = parsed ? turn.ops.readJson(parsed) : undefined;
  const own = reply?.calls.some((c) => c.own) ?? false;
  if (mayHide && reply && own && reply.awaitsResults && reply.calls.every((c) => c.own))
    return { hidden: reply };
  const mixed = mayHide && reply && own ? reply : undefined;
  await recordNow(reply, mixed?.calls.some((c) => !c.own) ?? false);
  const out = mixed && parsed ? Buffer.from(JSON.stringify(turn.ops.stripJson(parsed))) : raw;
  const headers = withoutLength(forwardResponseHeaders(up.headers));
  res.writeHead(up.statusCode, [...headers, 'content-length', String(out.length)]);
  res.end(out);
  return { forwarded: { status: up.statusCode } };
};

const streamRound: ReadAnswer = async (turn, up, deps, mayHide, recordNow) => {
  const { res } = deps;
  if (!mayHide) {
    await recordNow();
    return { forwarded: await relay(up, res, [], false) };
  }
  const reader = turn.ops.stream();
  const splitter = new SseSplitter();
  let held: SseEvent[] | undefined = [];
  let recorded = false;
  const send = async (e: SseEvent) => {
    // What the next request needs is recorded before the answer's last event leaves.
    if (reader.done && !recorded) {
      recorded = true;
      await recordNow(reader.reply(), reader.ownCall && reader.clientCall);
    }
    const out = reader.outgoing(e);
    if (out) await write(res, out.raw);
  };
  const start = async () => {
    res.writeHead(up.statusCode, withoutLength(forwardResponseHeaders(up.headers)));
    res.flushHeaders();
    const events = held ?? [];
    held = undefined;
    for (const e of events) await send(e);
  };
  const chunks = up.body[Symbol.asyncIterator]();
  for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
    for (const e of splitter.push(next.value as Buffer)) {
      reader.push(e);
      if (held === undefined) {
        await send(e);
        continue;
      }
      held.push(e);
      if (reader.clientCall) await start();
      else if (reader.done) {
        const reply = reader.reply();
        if (reply.awaitsResults && reply.calls.length > 0 && reply.calls.every((c) => c.own)) {
          // Whatever follows the last event is read, so the connection goes back to the pool.
          while (!(await chunks.next()).done);
          return { hidden: reply };
        }
        await start();
      }
    }
  }
  if (held !== undefined) await start();
  if (!recorded) {
    recorded = true;
    await recordNow();
  }
  await write(res, splitter.rest());
  res.end();
  return { forwarded: { status: up.statusCode } };
};
