/**
 * Which conversation a request belongs to, so its earlier decisions are replayed (README "Sessions:
 * cache-stable replay"). In order: an explicit `x-cg-session` header; the client's own session id
 * — Claude Code's `x-claude-code-session-id` header or the session part of `metadata.user_id` (a
 * JSON string `{"session_id": …}` since 2.x, `user_…_session_<uuid>` before), Codex's `session-id`
 * header or the Responses body's `prompt_cache_key` / `conversation`; else none, and the engine
 * derives one from the system prompt and first user message. The body is parsed for this only when
 * no header names the session (the caller may pass the text lazily). An id is used as a label only (the record's file name is a hash of
 * it), and is cut to printable ASCII of bounded length so it can never smuggle anything into logs.
 */
import type { InputFormat } from '../component.js';
import { CLOSE_BRACE, COLON, COMMA, OPEN_BRACE, QUOTE, skipJsonSpace } from '../json/lexical.js';
import { isObject, valueAt } from '../json/payload.js';
import { scanJson } from '../json/text.js';
import { rawHeader } from './headers.js';

const MAX_ID = 128;

function clean(id: unknown): string | undefined {
  if (typeof id !== 'string') return undefined;
  const s = id.replace(/[^\x21-\x7e]/g, '').slice(0, MAX_ID);
  return s === '' ? undefined : s;
}

/** The session part of Claude Code's metadata.user_id, in either of its shapes. */
export function claudeSession(userId: unknown): string | undefined {
  if (typeof userId !== 'string') return undefined;
  if (userId.startsWith('{')) {
    try {
      return clean(valueAt(JSON.parse(userId), 'session_id'));
    } catch {
      return undefined;
    }
  }
  const m = /_session_([0-9A-Za-z-]+)$/.exec(userId);
  return m ? clean(m[1]) : undefined;
}

const HEADERS: Record<Exclude<InputFormat, 'text'>, readonly string[]> = {
  anthropic: ['x-claude-code-session-id'],
  openai: ['session-id', 'session_id', 'conversation_id'],
  responses: ['session-id', 'session_id', 'conversation_id'],
  // Gemini CLI sends no session header (x-gemini-api-privileged-user-id is its installation's id).
  gemini: [],
};

/**
 * The values of the named top-level members of a JSON object (the last of each, as JSON.parse
 * keeps), or undefined when text is not one JSON object. Every other member is only scanned: the
 * body (tens of MB, its messages most of it) is never parsed into objects for a session id.
 */
function topLevelMembers(text: string, names: readonly string[]): Map<string, unknown> | undefined {
  let i = skipJsonSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  const found = new Map<string, unknown>();
  i = skipJsonSpace(text, i + 1);
  if (text.charCodeAt(i) === CLOSE_BRACE)
    return skipJsonSpace(text, i + 1) === text.length ? found : undefined;
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return undefined;
    const key = scanJson(text, i);
    if (!key.ok) return undefined;
    const name = JSON.parse(text.slice(i, key.end)) as string;
    i = skipJsonSpace(text, key.end);
    if (text.charCodeAt(i) !== COLON) return undefined;
    const at = skipJsonSpace(text, i + 1);
    const value = scanJson(text, at);
    if (!value.ok) return undefined;
    if (names.includes(name)) found.set(name, JSON.parse(text.slice(at, value.end)));
    i = skipJsonSpace(text, value.end);
    const c = text.charCodeAt(i);
    if (c === CLOSE_BRACE) return skipJsonSpace(text, i + 1) === text.length ? found : undefined;
    if (c !== COMMA) return undefined;
    i = skipJsonSpace(text, i + 1);
  }
}

function fromBody(format: Exclude<InputFormat, 'text'>, text: string): string | undefined {
  const b = topLevelMembers(
    text,
    format === 'anthropic' ? ['metadata'] : ['prompt_cache_key', 'conversation'],
  );
  if (!b) return undefined;
  if (format === 'anthropic') return claudeSession(valueAt(b.get('metadata'), 'user_id'));
  const conversation = b.get('conversation');
  return clean(b.get('prompt_cache_key')) ?? clean(isObject(conversation) ? conversation.id : conversation);
}

/** The session id of a request, or undefined to let the engine derive one from the conversation. */
export function requestSession(
  format: Exclude<InputFormat, 'text'>,
  text: string | (() => string),
  rawHeaders: readonly string[],
): string | undefined {
  const explicit = clean(rawHeader(rawHeaders, 'x-cg-session'));
  if (explicit) return explicit;
  for (const name of HEADERS[format]) {
    const id = clean(rawHeader(rawHeaders, name));
    if (id) return id;
  }
  return fromBody(format, typeof text === 'string' ? text : text());
}
