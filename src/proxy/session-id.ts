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
      return clean((JSON.parse(userId) as { session_id?: unknown }).session_id);
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
};

function fromBody(format: Exclude<InputFormat, 'text'>, text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  if (format === 'anthropic')
    return claudeSession((b.metadata as { user_id?: unknown } | undefined)?.user_id);
  const conversation = b.conversation;
  return (
    clean(b.prompt_cache_key) ??
    clean(
      typeof conversation === 'object' && conversation ? (conversation as { id?: unknown }).id : conversation,
    )
  );
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
