import { describe, expect, it } from 'vitest';
import { parseConfigObject } from '../../../src/config.js';
import { ConfigError } from '../../../src/errors.js';
import { parseRedisUrl } from '../../../src/store/redis-url.js';

describe('parseRedisUrl', () => {
  it.each([
    ['redis://localhost', { host: 'localhost', port: 6379, db: 0, tls: false }, 'redis://localhost:6379/0'],
    ['redis://10.0.0.5:6380/3', { host: '10.0.0.5', port: 6380, db: 3 }, 'redis://10.0.0.5:6380/3'],
    ['rediss://cache.example.com', { tls: true, port: 6379 }, 'rediss://cache.example.com:6379/0'],
    [
      'redis://alice:s%40cret@host:7000/1',
      { username: 'alice', password: 's@cret', port: 7000, db: 1 },
      'redis://alice:***@host:7000/1',
    ],
    ['redis://:only-a-password@host', { password: 'only-a-password' }, 'redis://:***@host:6379/0'],
    ['redis://[::1]:6379', { host: '::1' }, 'redis://[::1]:6379/0'],
  ])('reads %s into explicit settings and a display form without the password', (url, fields, display) => {
    const t = parseRedisUrl(url);
    expect(t).toMatchObject(fields);
    expect(t.display).toBe(display);
  });

  it('takes the password from CG_STORE_PASSWORD when the URL has none, and shows that one is set', () => {
    expect(parseRedisUrl('redis://bob@host', 'from-env')).toMatchObject({
      username: 'bob',
      password: 'from-env',
      display: 'redis://bob:***@host:6379/0',
    });
    expect(parseRedisUrl('redis://:in-url@host', 'from-env').password).toBe('in-url');
  });

  it.each([
    ['not a url at all', /not a URL/],
    ['http://host:6379', /unsupported scheme "http:"/],
    ['redis://host/abc', /database number/],
    ['redis://host?password=x', /query and fragment are not supported/],
    ['redis:///0', /no host/],
  ])('refuses %j with a reason', (url, reason) => {
    expect(() => parseRedisUrl(url)).toThrow(reason);
  });

  it('never echoes the URL, which may hold a password, in its errors', () => {
    for (const url of ['http://u:hunter2@h', 'redis://u:hunter2@h/x', 'redis://u:hunter2@h?a=1']) {
      let message = '';
      try {
        parseRedisUrl(url);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).not.toBe('');
      expect(message).not.toContain('hunter2');
    }
  });
});

describe('the store section of the config, for Redis', () => {
  it('defaults to the cg: prefix, a 2 s bound, no fallback and no cache', () => {
    expect(parseConfigObject({}).store).toMatchObject({
      prefix: 'cg:',
      timeoutMs: 2000,
      fallback: false,
      cache: false,
    });
    expect(parseConfigObject({}).store.url).toBeUndefined();
  });

  it('reads url, prefix, timeout_ms, fallback, cache and max_entry_mb', () => {
    const store = parseConfigObject({
      store: {
        url: 'rediss://fleet:6380/2',
        prefix: 'team-a:',
        timeout_ms: 500,
        fallback: true,
        cache: true,
        max_entry_mb: 8,
      },
    }).store;
    expect(store).toMatchObject({
      url: 'rediss://fleet:6380/2',
      prefix: 'team-a:',
      timeoutMs: 500,
      fallback: true,
      cache: true,
      maxEntryBytes: 8 * 2 ** 20,
    });
  });

  it.each([
    [{ url: 'http://x' }, 'store.url', /unsupported scheme/],
    [{ prefix: '' }, 'store.prefix', /1 to 64 printable/],
    [{ prefix: 'team *' }, 'store.prefix', /without spaces/],
    [{ prefix: 'a?' }, 'store.prefix', /\?/],
    [{ timeout_ms: 0 }, 'store.timeout_ms', /50\.\.600000/],
    [{ max_entry_mb: 4096 }, 'store.max_entry_mb', /1\.\.4095/],
    [{ fallback: 'yes' }, 'store.fallback', /true or false/],
  ])('refuses %j naming %s', (store, path, reason) => {
    let err: unknown;
    try {
      parseConfigObject({ store });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).path).toBe(path);
    expect((err as ConfigError).reason).toMatch(reason);
  });
});
