/**
 * Whose credentials a request carries, read from their shapes, so the proxy never hands one
 * provider's key to another (DESIGN §1.9). Two strengths of claim:
 *
 * - a credential *names* its provider when its value has a shape only that provider issues:
 *   Anthropic's `sk-ant-…` (API keys sk-ant-api03-, OAuth tokens sk-ant-oat01-, admin keys), OpenAI's
 *   `sk-proj-` / `sk-svcacct-` / `sk-admin-` keys and every OpenAI key's `T3BlbkFJ` ("OpenAI" in
 *   base64), Google's `AIza…` API keys and `ya29.` OAuth tokens — or sits where only Google puts one
 *   (`x-goog-api-key`, a `key=` query parameter). Whatever header it is in.
 * - a header *speaks* a provider's protocol: `anthropic-version`, `anthropic-beta` and Anthropic's
 *   auth header `x-api-key` (any value: Claude Code sends gateway keys there too);
 *   `openai-organization`, `openai-project`.
 *
 * A bare `sk-…` names nobody (LiteLLM and other gateways issue such keys for either API), nor does an
 * opaque bearer token (a gateway's, or a JWT). Pure: routes.ts decides what the claims allow.
 */

/** Who may issue a credential: the two providers the proxy serves, and one it does not. */
export type Issuer = 'anthropic' | 'openai' | 'google';

export interface Claims {
  /** Providers a credential's shape names. */
  named: ReadonlySet<Issuer>;
  /** Providers whose protocol headers the request speaks. */
  speaks: ReadonlySet<Issuer>;
}

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** Headers that carry a credential, whose values are read for a shape. */
const CARRIERS = ['authorization', 'x-api-key', 'x-goog-api-key', 'api-key'] as const;

/** Headers that exist only in one provider's protocol. */
const PROTOCOL: readonly [string, Issuer][] = [
  ['anthropic-version', 'anthropic'],
  ['anthropic-beta', 'anthropic'],
  ['x-api-key', 'anthropic'],
  ['openai-organization', 'openai'],
  ['openai-project', 'openai'],
];

/** The issuer a credential value's shape names, if any (a `Bearer ` scheme is looked through). */
export function issuerOf(value: string): Issuer | undefined {
  const v = value
    .trim()
    .replace(/^bearer\s+/i, '')
    .trim();
  if (v.startsWith('sk-ant-')) return 'anthropic';
  if (/^sk-(proj|svcacct|admin)-/.test(v) || (v.startsWith('sk-') && v.includes('T3BlbkFJ'))) return 'openai';
  if (/^AIza[0-9A-Za-z_-]{20,}$/.test(v) || v.startsWith('ya29.')) return 'google';
  return undefined;
}

function values(headers: Headers, name: string): string[] {
  const v = headers[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/** The claims of a request: its headers (node's lower-cased record) and its query string. */
export function claimsOf(headers: Headers, query: string): Claims {
  const named = new Set<Issuer>();
  const speaks = new Set<Issuer>();
  for (const name of CARRIERS) {
    for (const v of values(headers, name)) {
      const issuer = issuerOf(v);
      if (issuer) named.add(issuer);
    }
  }
  // Only Google reads a key from these places, whatever its shape.
  if (headers['x-goog-api-key'] !== undefined) named.add('google');
  const params = new URLSearchParams(query);
  if (params.has('key')) named.add('google');
  for (const v of params.values()) {
    const issuer = issuerOf(v);
    if (issuer) named.add(issuer);
  }
  for (const [name, issuer] of PROTOCOL) if (headers[name] !== undefined) speaks.add(issuer);
  return { named, speaks };
}
