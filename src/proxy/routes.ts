/**
 * The route table: which provider a request goes to and whether its body is compacted. Only the
 * three request shapes cg reads are compacted — Anthropic Messages (`POST /v1/messages`, also with
 * `?beta=true`), OpenAI Chat Completions and Responses; everything else (count_tokens, models,
 * files, any other method) is forwarded unchanged. A path that names no provider goes where its
 * headers point: `anthropic-version` or `x-api-key` are Anthropic's, anything else OpenAI's.
 */
import type { InputFormat } from '../component.js';

export type Provider = 'anthropic' | 'openai';

export interface Route {
  provider: Provider;
  /** The body format to compact, or undefined to forward the body as it is. */
  format?: Exclude<InputFormat, 'text'>;
}

interface Entry {
  path: string;
  provider: Provider;
  format: Exclude<InputFormat, 'text'>;
}

/** POST routes whose bodies are compacted; the path must match exactly (a query is fine). */
const COMPACTED: readonly Entry[] = [
  { path: '/v1/messages', provider: 'anthropic', format: 'anthropic' },
  { path: '/v1/chat/completions', provider: 'openai', format: 'openai' },
  { path: '/v1/responses', provider: 'openai', format: 'responses' },
];

/** Path prefixes that belong to one provider whatever the headers say. */
const OWNED: readonly [string, Provider][] = [
  ['/v1/messages', 'anthropic'],
  ['/v1/complete', 'anthropic'],
  ['/v1/chat/', 'openai'],
  ['/v1/responses', 'openai'],
  ['/v1/completions', 'openai'],
  ['/v1/embeddings', 'openai'],
];

export function routeOf(
  method: string,
  pathname: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Route {
  if (method === 'POST') {
    const hit = COMPACTED.find((e) => e.path === pathname);
    if (hit) return { provider: hit.provider, format: hit.format };
  }
  const owned = OWNED.find(
    ([prefix]) => pathname === prefix || pathname.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`),
  );
  if (owned) return { provider: owned[1] };
  const anthropic = headers['anthropic-version'] !== undefined || headers['x-api-key'] !== undefined;
  return { provider: anthropic ? 'anthropic' : 'openai' };
}
