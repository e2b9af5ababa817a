/**
 * The route table: which provider a request goes to, and whether its body is compacted. A request
 * is routed by its path to a known route of a provider, and its credentials must not belong to
 * another (credentials.ts) — so a key or token is only ever sent to the provider that issued it:
 *
 * - a path only one provider serves goes there, unless the request carries a credential another
 *   provider issued or speaks another's protocol (`anthropic-version` on /v1/responses): refused;
 * - a path both serve (/v1/models, /v1/files) goes where the credential's shape points, else where
 *   the protocol headers do (every Anthropic client sends `anthropic-version`), else to OpenAI;
 * - a path no provider here serves is refused, unless a credential's shape names its provider
 *   unambiguously: then it goes to that provider, and only there (a new endpoint keeps working);
 * - credentials of two providers are refused; a Google credential (`x-goog-api-key`, a `key=` query,
 *   an `AIza…` key) goes to the Gemini API (gemini-routes.ts) and nowhere else.
 *
 * Refused means answered by the proxy itself, 404 — 400 when the request contradicts itself (mixed
 * credentials, a credential with another provider's headers, a path with dot segments) — and
 * nothing is forwarded.
 * Only the request shapes cg reads are compacted — Anthropic Messages (`POST /v1/messages`, also
 * with `?beta=true`), OpenAI Chat Completions and Responses, Gemini generateContent and
 * streamGenerateContent; every other route is forwarded as it came. The paths are those the providers document and the real clients were seen to call:
 * Claude Code `/v1/messages`, `/v1/messages/count_tokens`, `/v1/models?limit=1000`, `HEAD /api/hello`
 * and, signed in, `/api/oauth/*`; Codex `/v1/responses` (and `/responses/compact`), `/v1/models`.
 */
import type { InputFormat } from '../component.js';
import { claimsOf, type Issuer } from './credentials.js';
import { GEMINI_ROUTES, geminiCompacted, providerOf } from './gemini-routes.js';

export type Provider = 'anthropic' | 'openai' | 'gemini';

export interface Route {
  provider: Provider;
  /** The body format to compact, or undefined to forward the body as it is. */
  format?: Exclude<InputFormat, 'text'>;
}

export interface Refusal {
  status: 400 | 404;
  /** Why, for the client and the log (after the method and path): never a header's value. */
  reason: string;
  /** Whose error shape the answer takes. */
  shape: Provider;
}

export type Routing = { route: Route } | { refused: Refusal };

/** POST routes whose bodies are compacted; the path must match exactly (a query is fine). */
const COMPACTED: readonly { path: string; provider: Provider; format: Exclude<InputFormat, 'text'> }[] = [
  { path: '/v1/messages', provider: 'anthropic', format: 'anthropic' },
  { path: '/v1/chat/completions', provider: 'openai', format: 'openai' },
  { path: '/v1/responses', provider: 'openai', format: 'responses' },
];

/** Each provider's known routes: a path and everything under it (`/v1/messages/count_tokens`). */
const KNOWN: Readonly<Record<Provider, readonly string[]>> = {
  anthropic: [
    '/v1/messages',
    '/v1/complete',
    '/v1/models',
    '/v1/files',
    '/v1/skills',
    '/v1/organizations',
    '/api/hello',
    '/api/oauth',
    '/api/claude_cli_profile',
    '/api/claude_code',
  ],
  openai: [
    '/v1/chat/completions',
    '/v1/completions',
    '/v1/responses',
    '/v1/conversations',
    '/v1/embeddings',
    '/v1/models',
    '/v1/files',
    '/v1/uploads',
    '/v1/batches',
    '/v1/moderations',
    '/v1/images',
    '/v1/audio',
    '/v1/realtime',
    '/v1/vector_stores',
    '/v1/assistants',
    '/v1/threads',
    '/v1/fine_tuning',
    '/v1/organization',
  ],
  gemini: GEMINI_ROUTES,
};

const TITLE: Record<Issuer | Provider, string> = {
  anthropic: 'Anthropic',
  openai: 'OpenAI',
  google: 'Google',
  gemini: 'Google',
};

/** The providers that serve a path. */
export function ownersOf(pathname: string): Provider[] {
  const under = (route: string) => pathname === route || pathname.startsWith(`${route}/`);
  return (Object.keys(KNOWN) as Provider[]).filter((p) => KNOWN[p].some(under));
}

/**
 * Whether a path means what it says to every server on the way: no `.` or `..` segment, no empty
 * one inside it, no slash or backslash hidden in a percent escape. An upstream that normalises
 * `/v1/responses/../../v1/messages` would otherwise serve a route other than the one checked here.
 */
export function isCanonical(pathname: string): boolean {
  const segments = pathname.split('/').slice(1);
  return segments.every((raw, i) => {
    let s: string;
    try {
      s = decodeURIComponent(raw);
    } catch {
      return false;
    }
    if (s === '') return i === segments.length - 1;
    return s !== '.' && s !== '..' && !s.includes('/') && !s.includes('\\');
  });
}

const refuse = (status: 400 | 404, reason: string, shape: Provider = 'openai'): Routing => ({
  refused: { status, reason, shape },
});

export function routeOf(
  method: string,
  pathname: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  query = '',
): Routing {
  if (!isCanonical(pathname)) return refuse(400, 'its path has dot, empty or encoded-slash segments');
  const { named, speaks } = claimsOf(headers, query);
  const owners = ownersOf(pathname);
  if (named.size > 1)
    return refuse(
      400,
      `it carries credentials of ${[...named]
        .map((i) => TITLE[i])
        .sort()
        .join(' and ')}`,
    );
  const [named1] = named;
  const issuer = named1 && providerOf(named1);
  // What the request says it is: its credential's issuer, else the protocol it speaks.
  if (issuer && [...speaks].some((s) => providerOf(s) !== issuer))
    return refuse(400, `it carries an ${TITLE[issuer]} credential with another provider's headers`);
  if (!issuer && speaks.size > 1) return refuse(400, "it speaks more than one provider's protocol");
  const spoken = [...speaks][0];
  const claimed = issuer ?? (spoken && providerOf(spoken));
  let provider: Provider;
  if (owners.length === 0) {
    if (!issuer) return refuse(404, 'no route cg proxy knows', claimed ?? 'openai');
    provider = issuer;
  } else if (claimed) {
    if (!owners.includes(claimed))
      return refuse(404, `no route of ${TITLE[claimed]}, whose credential or headers it carries`, claimed);
    provider = claimed;
  } else provider = owners.length === 1 ? owners[0]! : 'openai';
  if (method === 'POST' && provider === 'gemini') {
    const format = geminiCompacted(pathname);
    return { route: format ? { provider, format } : { provider } };
  }
  if (method === 'POST') {
    const hit = COMPACTED.find((e) => e.path === pathname && e.provider === provider);
    if (hit) return { route: { provider, format: hit.format } };
  }
  return { route: { provider } };
}
