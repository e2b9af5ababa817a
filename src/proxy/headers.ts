/**
 * Which headers cross the proxy. Everything passes (auth, anthropic-version, anthropic-beta, the
 * client's own ids) except the hop-by-hop headers of RFC 9110 §7.6.1 and those named in
 * `Connection`, which describe one connection and not the message. Host is the upstream's; a body
 * the proxy rewrote or decoded gets its own content-length and loses its content-encoding.
 * redactedHeaders() is what --verbose prints: names, and values only of headers that cannot hold
 * a secret.
 */

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Never forwarded upstream: the upstream's own host, and a handshake only this hop answers. */
const REQUEST_ONLY = new Set(['host', 'expect']);

/** The names a `Connection` header lists, lowercased. */
function connectionListed(raw: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() !== 'connection') continue;
    for (const name of raw[i + 1]!.split(',')) out.add(name.trim().toLowerCase());
  }
  return out;
}

/**
 * The request's raw header list (as node:http gives it: name, value, name, value…) minus what must
 * not cross, and minus `drop` (content-length and content-encoding when the body changed).
 */
export function forwardRequestHeaders(raw: readonly string[], drop: readonly string[] = []): string[] {
  const listed = connectionListed(raw);
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || REQUEST_ONLY.has(name) || listed.has(name) || drop.includes(name)) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/** The upstream response's headers for the client, as a flat list, minus hop-by-hop ones. */
export function forwardResponseHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): string[] {
  const flat: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) flat.push(name, v);
  }
  const listed = connectionListed(flat);
  const out: string[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const name = flat[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || listed.has(name)) continue;
    out.push(flat[i]!, flat[i + 1]!);
  }
  return out;
}

/** Headers whose values are shown under --verbose; every other value prints as <redacted>. */
const SHOWN = new Set([
  'accept',
  'accept-encoding',
  'anthropic-beta',
  'anthropic-version',
  'content-encoding',
  'content-length',
  'content-type',
  'user-agent',
]);

/** `name: value` lines for --verbose, with every value that could hold a secret redacted. */
export function redactedHeaders(raw: readonly string[]): string {
  const parts: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    parts.push(`${name}: ${SHOWN.has(name) ? raw[i + 1] : '<redacted>'}`);
  }
  return parts.join('; ');
}

/** The first value of a header in a raw list, case-insensitively. */
export function rawHeader(raw: readonly string[], name: string): string | undefined {
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) return raw[i + 1];
  return undefined;
}
