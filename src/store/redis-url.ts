/**
 * The Redis store's address: `redis://[user[:password]@]host[:port][/db]`, or `rediss://` for TLS.
 * Parsed once, here, into explicit connection settings (the client is never handed the raw string),
 * with a `display` form that carries no password: the only form cg ever prints, logs or records.
 * Errors name what is wrong without echoing the URL, which may hold a password.
 */

export interface RedisTarget {
  host: string;
  port: number;
  db: number;
  tls: boolean;
  username?: string;
  password?: string;
  /** `redis://user:***@host:port/db`: the password replaced, safe to print. */
  display: string;
}

const DEFAULT_PORT = 6379;

export class RedisUrlError extends Error {}

/**
 * `password` (from CG_STORE_PASSWORD) is used when the URL carries none, so a config file shared
 * between machines need not hold the secret.
 */
export function parseRedisUrl(raw: string, password?: string): RedisTarget {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new RedisUrlError('not a URL: expected redis://[user[:password]@]host[:port][/db] or rediss://…');
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme !== 'redis' && scheme !== 'rediss') {
    throw new RedisUrlError(
      `unsupported scheme ${JSON.stringify(`${scheme}:`)}: expected redis:// or rediss:// (TLS)`,
    );
  }
  if (!url.hostname) throw new RedisUrlError('the URL names no host');
  if (url.search || url.hash)
    throw new RedisUrlError('query and fragment are not supported; use the store config keys');
  const path = url.pathname.replace(/^\//, '');
  if (path !== '' && !/^\d{1,5}$/.test(path)) {
    throw new RedisUrlError(`the path must be a database number, got ${JSON.stringify(path)}`);
  }
  const port = url.port ? Number(url.port) : DEFAULT_PORT;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const username = url.username ? decodeURIComponent(url.username) : undefined;
  const secret = url.password ? decodeURIComponent(url.password) : password || undefined;
  const db = path === '' ? 0 : Number(path);
  const who = username ? `${encodeURIComponent(username)}${secret ? ':***' : ''}@` : secret ? ':***@' : '';
  return {
    host,
    port,
    db,
    tls: scheme === 'rediss',
    ...(username ? { username } : {}),
    ...(secret ? { password: secret } : {}),
    display: `${scheme}://${who}${url.hostname}:${port}/${db}`,
  };
}
