/**
 * One request body through the engine (compactText — the same pipeline as every other door), with
 * the proxy's guarantees around it:
 *   - fail open: a body that does not decode, is not UTF-8, does not fit its route's format, makes
 *     the engine throw, or is not done within the deadline goes on exactly as it came;
 *   - no marker without its original: the request's queued store writes are awaited, and a failed
 *     one sends the original instead;
 *   - --observe: the decisions are made (and recorded for `cg stats`) but the original goes on.
 * Turns of one session are compacted one at a time, in arrival order, so its replay record moves
 * forward the way the conversation did. What a turn leaves for the next (its record saved, its
 * carry made: 15-30 ms at 20,000 outputs) is done once its body is on its way, before the session's
 * next turn starts — and not at all for a turn whose original went on instead (nothing of it was
 * sent).
 */

import type { FilterSource, InputFormat } from '../component.js';
import type { CgConfig } from '../config.js';
import { clientHost } from '../hosts/client-host.js';
import { isRewritableText } from '../io.js';
import type { PipelineEvent } from '../pipeline/run.js';
import type { RecordBackend } from '../session/records.js';
import type { Store } from '../store/store.js';
import type { Tokens } from '../tokens.js';
import { decodeBody } from './body.js';
import { rawHeader } from './headers.js';
import type { RetryMemo } from './retry-memo.js';
import { requestSession } from './session-id.js';
import { observingStore, type StoreCache } from './store-cache.js';
import { compactBody } from './turn/compact-body.js';
import type { TurnMemory } from './turn/memory.js';

export interface CompactDeps {
  config: CgConfig;
  preset: string;
  /** null: lossless components only. */
  store: StoreCache | null;
  /** The real store, for --observe (nothing is written to it). */
  baseStore: Store | null;
  filters: FilterSource;
  /** A long-lived token counter for a session (its cache spares recounting earlier turns). */
  tokensFor(session: string | undefined): Tokens;
  timeoutMs: number;
  observe: boolean;
  /** Environment for model-assisted components (provider base URLs point at the upstreams). */
  env: NodeJS.ProcessEnv;
  /** Where session records live (observe mode keeps its own, apart from what was really sent). */
  sessionDir?: string;
  /** The record backend (src/session/records.ts); default the files under sessionDir. */
  records?: RecordBackend;
  /** Each recent session's last turn, for a client's retry of the same body. */
  retries?: RetryMemo;
  /** Each recent session's last turn as decided, so the next costs what is new (src/proxy/turn/memory.ts). */
  turns?: TurnMemory;
}

export interface CompactedRequest {
  /** What to send upstream. */
  body: Buffer;
  /** The body differs from what the client sent: send it plain with its own content-length. */
  rewritten: boolean;
  /** Why the original went on, when compaction was tried and given up. */
  fellOpen?: string;
  /** The decisions (also in observe mode), for stats and --verbose. */
  events: PipelineEvent[];
  /**
   * The exact token counts the decisions made, by text (the session's counter: Tokens.known), for
   * the stats record, which then counts none of those texts again.
   */
  known?: (text: string) => number | undefined;
  format: InputFormat;
  session?: string;
  /** The agent host that sent it, from its headers (hosts/client-host.ts); the server sets it. */
  host?: string;
  bytesIn: number;
  bytesOut: number;
  ms: number;
  /**
   * Settles once what the turn left for the next (its record saved) is done, when records are
   * shared with other instances: its response goes back only then, so the client's next turn finds
   * the record on whichever instance it lands.
   */
  settled?: Promise<void>;
}

const queues = new Map<string, Promise<unknown>>();

/**
 * Work a call leaves to be done after it returns, before the next call with the same key starts;
 * the promise settles once it is done.
 */
type Later = (work: () => Promise<void>) => Promise<void>;

/** Settles once every session's turns, and the work they left for later, are done (a shutdown). */
export async function settledTurns(): Promise<void> {
  while (queues.size > 0) await Promise.all(queues.values());
}

/**
 * Runs fn after every earlier call with the same key has settled, and what it leaves for later
 * (later()) once its caller has had the result (on the next turn of the event loop: the proxy's
 * forward has started by then) — the next call with the key waits for that too. Without a key it
 * is done before the result is returned.
 */
async function inOrder<T>(key: string | undefined, fn: (later: Later) => Promise<T>): Promise<T> {
  const left: Promise<void>[] = [];
  if (key === undefined) {
    // No key, no order to keep a later request behind: the work is done before the result goes
    // (a record saved under an identity derived from the body must be there for its next turn).
    const result = await fn((work) => {
      const done = work();
      left.push(done);
      return done;
    });
    await Promise.all(left);
    return result;
  }
  const later: Later = (work) => {
    const done = new Promise<void>((resolve) => setImmediate(resolve)).then(work);
    left.push(done);
    return done;
  };
  const before = queues.get(key) ?? Promise.resolve();
  const call = () => fn(later);
  const run = before.then(call, call);
  const rest = () =>
    Promise.all(left).then(
      () => undefined,
      () => undefined,
    );
  const tail: Promise<unknown> = run.then(rest, rest).then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  queues.set(key, tail);
  return run;
}

class Deadline extends Error {}

export async function compactRequest(
  raw: Buffer,
  format: Exclude<InputFormat, 'text'>,
  rawHeaders: readonly string[],
  deps: CompactDeps,
  /** raw's text, when the caller decoded it already (retrieval reads a session from it): not decoded again. */
  given?: string,
): Promise<CompactedRequest> {
  const started = performance.now();
  const events: PipelineEvent[] = [];
  const original = (fellOpen?: string, session?: string): CompactedRequest => ({
    body: raw,
    rewritten: false,
    ...(fellOpen ? { fellOpen } : {}),
    events,
    format,
    ...(session !== undefined ? { session } : {}),
    bytesIn: raw.length,
    bytesOut: raw.length,
    ms: performance.now() - started,
  });
  if (raw.length === 0) return original();
  const decoded = await decodeBody(raw, rawHeader(rawHeaders, 'content-encoding'));
  if (!decoded.ok) return original(decoded.reason);
  if (!isRewritableText(decoded.body)) return original('body is not UTF-8 text');
  // The text is made only when needed: a retry found by a session header never decodes the body.
  let text: string | undefined = given;
  const textOf = () => {
    text ??= decoded.body.toString('utf8');
    return text;
  };
  const sessionId = requestSession(format, textOf, rawHeaders);
  const host = clientHost(rawHeaders);
  // Handed to the engine rather than held here: a body is decoded once, and its text (twice the
  // body's size when it holds any character past Latin-1) is not kept alive beside the engine's.
  const decodedText = text;
  text = undefined;

  return inOrder(sessionId, async (later) => {
    const again = deps.observe ? undefined : deps.retries?.get(sessionId, raw);
    if (again) {
      // No events: a retry saves tokens again, but rewrites no output the ledger has not seen.
      const { body, rewritten } = again;
      return {
        body,
        rewritten,
        events,
        format,
        ...(sessionId !== undefined ? { session: sessionId } : {}),
        bytesIn: raw.length,
        bytesOut: body.length,
        ms: performance.now() - started,
      };
    }
    const abort = new AbortController();
    const tokens = deps.tokensFor(sessionId);
    const known = (text: string) => tokens.known(text);
    if (!deps.observe) await deps.store?.refresh();
    const store = deps.observe
      ? deps.baseStore
        ? observingStore(deps.baseStore)
        : null
      : (deps.store?.forRequest() ?? null);
    let timer: NodeJS.Timeout | undefined;
    try {
      const run = compactBody(decoded.body, {
        preset: deps.preset,
        config: deps.config,
        format,
        store,
        ...(deps.turns ? { turns: deps.turns } : {}),
        ...(decodedText !== undefined ? { text: decodedText } : {}),
        // isRewritableText above walked it.
        utf8: true,
        deferFinish: true,
        tokens,
        filters: deps.filters,
        session: {
          ...(sessionId !== undefined ? { id: sessionId } : {}),
          ...(deps.sessionDir !== undefined ? { dir: deps.sessionDir } : {}),
          ...(deps.records ? { records: deps.records } : {}),
          env: deps.env,
        },
        env: deps.env,
        // The host's own cut is the most its model may get of a shell output (src/hosts/limits.ts).
        ...(host !== undefined ? { host } : {}),
        signal: abort.signal,
        onEvent: (e) => events.push(e),
      });
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Deadline()), deps.timeoutMs);
      });
      const result = await Promise.race([run, deadline]);
      const session = result.session ?? sessionId;
      const shared = deps.records?.shared === true;
      if (deps.observe || !result.changed) {
        if (!deps.observe) deps.retries?.set(sessionId, raw, { body: raw, rewritten: false });
        const settled = result.finish ? later(result.finish) : undefined;
        return { ...original(undefined, session), known, ...(shared && settled ? { settled } : {}) };
      }
      const failures = store && 'flush' in store ? await store.flush() : [];
      if (failures.length > 0) return { ...original(`store write failed (${failures[0]})`, session), known };
      const { body } = result;
      deps.retries?.set(sessionId, raw, { body, rewritten: true });
      const settled = result.finish ? later(result.finish) : undefined;
      return {
        ...(shared && settled ? { settled } : {}),
        body,
        rewritten: true,
        events,
        known,
        format: result.format,
        ...(session !== undefined ? { session } : {}),
        bytesIn: raw.length,
        bytesOut: body.length,
        ms: performance.now() - started,
      };
    } catch (err) {
      abort.abort();
      if (err instanceof Deadline) return original(`compaction took over ${deps.timeoutMs} ms`, sessionId);
      return original(
        `compaction failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
        sessionId,
      );
    } finally {
      clearTimeout(timer);
    }
  });
}
