/**
 * complete() — one system + user exchange with a model, over an OpenAI-compatible Chat Completions
 * endpoint, OpenAI's Responses endpoint or an Anthropic Messages endpoint, using global fetch (no
 * SDKs: they would be the heaviest thing cg loads, for a few small POSTs).
 *
 * Chat Completions speaks two dialects: older and compatible servers take `max_tokens` and
 * `temperature`, OpenAI's reasoning models (o-series, gpt-5) refuse both and want
 * `max_completion_tokens`. The first request uses the dialect the model name suggests; a 400 that
 * names one of those parameters is answered once more in the other.
 *
 * It never throws. Every failure becomes `{ ok: false, reason }` with a short one-line reason that is
 * safe to print: the API key is redacted from it, and of a reply body at most ~100 chars of an error
 * `message` field are quoted (a body may echo the prompt, i.e. the user's tool output).
 *
 * Each attempt has its own timeout (endpoint.timeoutMs, covering the body as well as the headers);
 * opts.signal aborts everything. There is one retry, after Retry-After (capped) or a short backoff,
 * on HTTP 429, 5xx or a connection the server dropped — never on a timeout, which would double the
 * wait the caller budgeted for. `attempts` is how many requests were sent. An empty key sends no
 * auth header (a local server that wants none).
 *
 * What the call cost is read from the reply (usage.ts): `usage` is there whenever the server
 * answered 2xx and reported it — on a failure too (a reply with no text was still paid for), where
 * `answered` says the server did answer, so a caller can count the cost itself when usage is absent.
 */

import { type ModelUsage, replyUsage } from './usage.js';

export type ModelApi = 'openai' | 'anthropic' | 'responses';

export interface ModelEndpoint {
  api: ModelApi;
  model: string;
  /** OpenAI: like OPENAI_BASE_URL, ending in /v1. Anthropic: like ANTHROPIC_BASE_URL, without /v1. */
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  maxOutputTokens: number;
}

export interface CompletionRequest {
  system: string;
  prompt: string;
  /** Defaults to endpoint.maxOutputTokens. */
  maxTokens?: number;
}

export type CompletionResult =
  | { ok: true; text: string; ms: number; attempts: number; usage?: ModelUsage }
  | { ok: false; reason: string; ms: number; attempts: number; usage?: ModelUsage; answered?: true };

const MAX_ATTEMPTS = 2;
const BACKOFF_MS = 250;
const RETRY_AFTER_CAP_MS = 2000;
const MESSAGE_CHARS = 100;
/** Codes for a connection the server dropped mid-request: worth one more try, unlike a refusal. */
const DROPPED = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * `dialect`: a 400 about max_tokens or temperature, which the other Chat Completions dialect avoids.
 * `answered`: the server answered 2xx, so the request was paid for (with `usage` if it said so).
 */
type Failure = {
  ok: false;
  reason: string;
  retry: boolean;
  waitMs?: number;
  dialect?: boolean;
  answered?: true;
  usage?: ModelUsage;
};
type Dialect = 'classic' | 'reasoning';
const REASONING_MODEL = /^(?:o\d|gpt-5)/i;
const DIALECT_ERROR = /max_tokens|max_completion_tokens|temperature/;
type Attempt = { ok: true; text: string; usage?: ModelUsage } | Failure;

interface HttpRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export async function complete(
  endpoint: ModelEndpoint,
  req: CompletionRequest,
  opts: { fetch?: typeof fetch; signal?: AbortSignal } = {},
): Promise<CompletionResult> {
  const started = performance.now();
  // Header values are trimmed by fetch, so the trimmed key is what could be echoed back anywhere.
  const key = endpoint.apiKey.trim();
  let attempts = 0;
  const done = (a: Attempt): CompletionResult => {
    const ms = Math.round(performance.now() - started);
    const usage = a.usage ? { usage: a.usage } : {};
    if (a.ok) return { ok: true, text: a.text, ms, attempts, ...usage };
    return { ok: false, reason: a.reason, ms, attempts, ...usage, ...(a.answered ? { answered: true } : {}) };
  };
  // fetch's own error for a bad header value quotes the value, i.e. the key: refuse before sending.
  if (!/^[\x21-\x7e]*$/.test(key))
    return done(failed('the API key has characters not allowed in an HTTP header'));
  try {
    let dialect: Dialect = REASONING_MODEL.test(endpoint.model) ? 'reasoning' : 'classic';
    let switched = false;
    let http = buildRequest(endpoint, key, req, dialect);
    for (;;) {
      if (opts.signal?.aborted) return done(failed('model request was aborted'));
      attempts++;
      const a = await attempt(opts.fetch ?? fetch, http, endpoint, key, opts.signal);
      if (a.ok) return done(a);
      if (a.dialect && endpoint.api === 'openai' && !switched) {
        switched = true;
        dialect = dialect === 'classic' ? 'reasoning' : 'classic';
        http = buildRequest(endpoint, key, req, dialect);
        continue;
      }
      if (!a.retry || attempts >= MAX_ATTEMPTS + (switched ? 1 : 0))
        return done({ ...a, reason: redact(a.reason, key) });
      await delay(a.waitMs ?? BACKOFF_MS, opts.signal);
    }
  } catch (err) {
    // Defensive: nothing above should throw, but the contract is "never throws".
    return done(failed(`model request failed: ${messageOf(err, key)}`));
  }
}

/** An empty key sends no auth header at all (a local server that wants none). */
function buildRequest(e: ModelEndpoint, key: string, req: CompletionRequest, dialect: Dialect): HttpRequest {
  const base = e.baseUrl.replace(/\/+$/, '');
  const max_tokens = req.maxTokens ?? e.maxOutputTokens;
  const json = { 'content-type': 'application/json' };
  // An empty system prompt is left out: some servers reject an empty system text.
  if (e.api === 'anthropic') {
    return {
      url: `${base.endsWith('/v1') ? base : `${base}/v1`}/messages`,
      headers: { ...json, ...(key ? { 'x-api-key': key } : {}), 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: e.model,
        max_tokens,
        ...(req.system ? { system: req.system } : {}),
        messages: [{ role: 'user', content: req.prompt }],
        temperature: 0,
      }),
    };
  }
  const headers = { ...json, ...(key ? { authorization: `Bearer ${key}` } : {}) };
  if (e.api === 'responses') {
    return {
      url: `${base}/responses`,
      headers,
      body: JSON.stringify({
        model: e.model,
        ...(req.system ? { instructions: req.system } : {}),
        input: req.prompt,
        max_output_tokens: max_tokens,
        store: false,
      }),
    };
  }
  const messages = [{ role: 'user', content: req.prompt }];
  if (req.system) messages.unshift({ role: 'system', content: req.system });
  const limits =
    dialect === 'classic' ? { max_tokens, temperature: 0 } : { max_completion_tokens: max_tokens };
  return {
    url: `${base}/chat/completions`,
    headers,
    body: JSON.stringify({ model: e.model, messages, ...limits }),
  };
}

async function attempt(
  doFetch: typeof fetch,
  http: HttpRequest,
  e: ModelEndpoint,
  key: string,
  outer: AbortSignal | undefined,
): Promise<Attempt> {
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort();
  }, e.timeoutMs);
  const onAbort = () => ctl.abort();
  outer?.addEventListener('abort', onAbort, { once: true });
  try {
    const res = await doFetch(http.url, {
      method: 'POST',
      headers: http.headers,
      body: http.body,
      signal: ctl.signal,
    });
    const body = await res.text();
    if (!res.ok) {
      const msg = errorMessage(body, key);
      return {
        ok: false,
        reason: `model server answered HTTP ${res.status}${msg ? `: ${msg}` : ''}`,
        retry: res.status === 429 || res.status >= 500,
        waitMs: retryAfter(res.headers.get('retry-after')),
        dialect: res.status === 400 && DIALECT_ERROR.test(body),
      };
    }
    return readReply(e.api, body);
  } catch (err) {
    if (timedOut) return failed(`model request timed out after ${e.timeoutMs} ms`);
    if (outer?.aborted) return failed('model request was aborted');
    const code = codeOf(err);
    if (code && DROPPED.has(code))
      return { ...failed(`model server dropped the connection (${code})`), retry: true };
    if (code) return failed(`model server unreachable at ${origin(http.url)} (${code})`);
    return failed(`model request failed: ${messageOf(err, key)}`);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
  }
}

/** A 2xx reply: its text and the usage it reports; a reply without text was still answered (paid). */
function readReply(api: ModelApi, body: string): Attempt {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ...failed('model reply was not JSON'), answered: true };
  }
  const usage = replyUsage(api, json);
  const reported = usage ? { usage } : {};
  let text: string | undefined;
  if (api === 'responses') text = responsesText(json);
  else {
    const content = api === 'openai' ? at(json, 'choices', 0, 'message', 'content') : at(json, 'content');
    text = api === 'anthropic' && !Array.isArray(content) ? undefined : textOf(content);
  }
  if (text === undefined || text.trim() === '')
    return { ...failed('model reply had no text'), answered: true, ...reported };
  return { ok: true, text, ...reported };
}

/** A Responses reply's text: its `output_text`, or the output_text parts of its message items. */
function responsesText(json: unknown): string | undefined {
  const direct = at(json, 'output_text');
  if (typeof direct === 'string') return direct;
  const output = at(json, 'output');
  if (!Array.isArray(output)) return undefined;
  const texts: string[] = [];
  for (const item of output) {
    const content = at(item, 'content');
    if (at(item, 'type') !== 'message' || !Array.isArray(content)) continue;
    for (const p of content)
      if (at(p, 'type') === 'output_text' && typeof at(p, 'text') === 'string')
        texts.push(at(p, 'text') as string);
  }
  return texts.length > 0 ? texts.join('') : undefined;
}

/** A string, or the joined text of a list of `{ type: 'text', text }` parts (other parts skipped). */
function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts = content.filter((p) => at(p, 'type') === 'text' && typeof at(p, 'text') === 'string');
  return parts.length > 0 ? parts.map((p) => at(p, 'text') as string).join('') : undefined;
}

/** The `error.message` (or `message`) of an error body, redacted, then shortened to one line. */
function errorMessage(body: string, key: string): string | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  const m = at(json, 'error', 'message') ?? at(json, 'message') ?? at(json, 'error');
  return typeof m === 'string' && m.trim() !== '' ? short(m, key) : undefined;
}

/** Retry-After as delta-seconds or an HTTP date, capped; undefined when absent or unreadable. */
function retryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  const ms = /^\d+(?:\.\d+)?$/.test(v) ? Number(v) * 1000 : Date.parse(v) - Date.now();
  if (Number.isNaN(ms)) return undefined;
  return Math.min(RETRY_AFTER_CAP_MS, Math.max(0, ms));
}

function failed(reason: string): Failure {
  return { ok: false, reason: oneLine(reason), retry: false };
}

function redact(text: string, key: string): string {
  return key ? text.split(key).join('***') : text;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** The first `code` on an error or its causes (fetch wraps socket errors in `TypeError: fetch failed`). */
function codeOf(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && depth < 4; e = at(e, 'cause'), depth++) {
    const code = at(e, 'code');
    if (typeof code === 'string') return code;
  }
  return undefined;
}

function messageOf(err: unknown, key: string): string {
  return short(err instanceof Error ? err.message : String(err), key);
}

/** Redacted, then one line and cut: redacting first, a cut cannot leave a key prefix that no longer matches. */
function short(text: string, key: string): string {
  const line = oneLine(redact(text, key));
  return line.length > MESSAGE_CHARS ? `${line.slice(0, MESSAGE_CHARS)}…` : line;
}

function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the configured base URL';
  }
}

function at(v: unknown, ...path: (string | number)[]): unknown {
  let cur = v;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[k];
  }
  return cur;
}

/** Waits ms, or less if the signal aborts first (the loop then reports the abort). */
function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
