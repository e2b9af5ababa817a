/**
 * The Redis store and its link against a real redis-server (skipped when none is installed), and
 * the fleet store's choices between Redis and the local disk store with stand-ins for both.
 */
import { createRequire } from 'node:module';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createFleetStore } from '../../../src/store/fleet-store.js';
import { createFsStore, STORE_DEFAULTS } from '../../../src/store/fs-store.js';
import { keyOf } from '../../../src/store/keys.js';
import { createRedisLink } from '../../../src/store/redis-link.js';
import { createRedisStore, type RedisStore } from '../../../src/store/redis-store.js';
import { parseRedisUrl } from '../../../src/store/redis-url.js';
import type { EntryRead, PutResult } from '../../../src/store/store.js';
import { tempDir } from '../../helpers.js';
import { MemoryStore } from '../../memory-store.js';
import { NEEDS_REDIS, REDIS_SERVER, RedisServer } from '../../redis-server.js';

const collisions = vi.hoisted(() => new Map<string, string>());
vi.mock('../../../src/store/keys.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../src/store/keys.js')>();
  return {
    ...actual,
    keyOf: (data: string | Uint8Array) => {
      const key = actual.keyOf(data);
      return collisions.get(key) ?? key;
    },
  };
});

describe.skipIf(!REDIS_SERVER)(`the Redis store on a real server${NEEDS_REDIS}`, () => {
  let server: RedisServer;
  let admin: Redis;
  let n = 0;
  const open = (extra: Partial<Parameters<typeof createRedisStore>[0]> = {}, timeoutMs = 2000) =>
    createRedisStore({
      link: createRedisLink(parseRedisUrl(server.url()), timeoutMs),
      prefix: `t${n++}:`,
      ttlDays: 14,
      compress: true,
      maxEntryBytes: 2 ** 20,
      ...extra,
    });
  beforeAll(async () => {
    server = await RedisServer.start();
    admin = new Redis({ host: '127.0.0.1', port: server.port, lazyConnect: true });
    await admin.connect();
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });

  it('stores the packed original under <prefix><key> with the TTL, and reads it back byte-identical', async () => {
    const store = open();
    const text = 'naïve café 🎉\n'.repeat(500);
    const put = await store.put(text);
    expect(put).toEqual({ ok: true, key: keyOf(text), created: true });
    const name = `${store.dir.split('#')[1]}${put.key}`;
    expect(await admin.ttl(name)).toBeGreaterThan(14 * 86_400 - 60);
    expect((await admin.getBuffer(name))!.length).toBeLessThan(Buffer.byteLength(text)); // gzip
    expect((await store.get(put.key))!.toString('utf8')).toBe(text);
    store.link.close();
  });

  it('answers a second put of the same bytes as a re-use, refreshing the expiry', async () => {
    const store = open();
    const { key } = await store.put('same bytes');
    const name = `${store.dir.split('#')[1]}${key}`;
    await admin.expire(name, 50);
    expect(await store.put('same bytes')).toEqual({ ok: true, key, created: false });
    expect(await admin.ttl(name)).toBeGreaterThan(14 * 86_400 - 60);
  });

  it('refuses a collision: different bytes that hash to the same key, left untouched', async () => {
    const store = open();
    const text = 'the real original';
    const other = 'other bytes, same key';
    collisions.set(keyOf(other), keyOf(text));
    try {
      await store.put(other);
      const r = await store.put(text);
      expect(r).toMatchObject({ ok: false, reason: 'collision' });
      expect((await store.get(keyOf(text)))!.toString()).toBe(other);
    } finally {
      collisions.clear();
    }
  });

  it('answers has() without reading the value, sliding the expiry of an entry that is there', async () => {
    const store = open();
    const { key } = await store.put('is it there?');
    const name = `${store.dir.split('#')[1]}${key}`;
    await admin.expire(name, 50);
    expect(await store.has(key)).toBe(true);
    expect(await admin.ttl(name)).toBeGreaterThan(14 * 86_400 - 60);
    await admin.del(name);
    expect(await store.has(key)).toBe(false);
    expect(await store.has('not a key')).toBe(false);
    store.link.close();
  });

  it('stores a batch in one pipeline: new entries with the TTL, one already there and a repeat re-used', async () => {
    const store = open();
    const texts = ['batch one\n'.repeat(300), 'batch two', 'batch three'];
    await store.put(texts[1]!);
    const results = await store.putMany!([...texts, texts[0]!].map((original) => ({ original })));
    expect(results).toEqual([
      { ok: true, key: keyOf(texts[0]!), created: true },
      { ok: true, key: keyOf(texts[1]!), created: false },
      { ok: true, key: keyOf(texts[2]!), created: true },
      { ok: true, key: keyOf(texts[0]!), created: false },
    ]);
    const prefix = store.dir.split('#')[1]!;
    for (const t of texts) {
      expect(await admin.ttl(`${prefix}${keyOf(t)}`)).toBeGreaterThan(14 * 86_400 - 60);
      expect((await store.get(keyOf(t)))!.toString('utf8')).toBe(t);
    }
  });

  it('refuses a collision inside a batch and stores the rest of it', async () => {
    const store = open();
    const text = 'the real one in a batch';
    const other = 'other bytes, same key, in a batch';
    collisions.set(keyOf(other), keyOf(text));
    try {
      await store.put(other);
      const results = await store.putMany!([{ original: text }, { original: 'innocent bystander' }]);
      expect(results[0]).toMatchObject({ ok: false, reason: 'collision' });
      expect(results[1]).toMatchObject({ ok: true, created: true });
    } finally {
      collisions.clear();
    }
  });

  it('answers hasMany for a batch of keys, sliding the expiry of those that are there', async () => {
    const store = open();
    const { key } = await store.put('there for hasMany');
    const name = `${store.dir.split('#')[1]}${key}`;
    await admin.expire(name, 50);
    expect(await store.hasMany!([key, '0123456789abcdef', 'not a key'])).toEqual([true, false, false]);
    expect(await admin.ttl(name)).toBeGreaterThan(14 * 86_400 - 60);
  });

  it('reports every put of a batch unwritable when the server cannot be reached', async () => {
    const store = createRedisStore({
      link: createRedisLink(parseRedisUrl('redis://127.0.0.1:9/0'), 300),
      prefix: 'gone:',
      ttlDays: 14,
      compress: true,
      maxEntryBytes: 2 ** 20,
    });
    const results = await store.putMany!([{ original: 'a' }, { original: 'b' }]);
    expect(results.map((r) => r.ok || r.reason)).toEqual(['unwritable', 'unwritable']);
  });

  it('tells a corrupt value from a missing key, and replaces it on the next put', async () => {
    const store = open();
    const text = 'to be damaged\n'.repeat(100);
    const { key } = await store.put(text);
    const name = `${store.dir.split('#')[1]}${key}`;
    await admin.set(name, Buffer.from([0x1f, 0x8b, 1, 2, 3]));
    expect(await store.read(key)).toMatchObject({ found: false, why: 'corrupt' });
    expect(await store.read('0123456789abcdef')).toEqual({ found: false, why: 'missing' });
    expect(await store.put(text)).toMatchObject({ ok: true, created: true });
    expect((await store.get(key))!.toString()).toBe(text);
  });

  it('reads a planted gzip value that inflates past max_entry_mb as corrupt, and the next put replaces it', async () => {
    const store = open({ maxEntryBytes: 4 * 2 ** 20 });
    const text = 'stashed by a run\n'.repeat(400);
    const key = keyOf(text);
    const name = `${store.dir.split('#')[1]}${key}`;
    // 64 MiB of zeros in about 64 KB, set under the key's name by whoever can write the prefix.
    await admin.set(name, gzipSync(Buffer.alloc(64 * 2 ** 20), { level: 1 }));
    expect(await store.read(key)).toMatchObject({
      found: false,
      why: 'corrupt',
      detail: expect.stringMatching(/more than store\.max_entry_mb \(4 MiB\)/),
    });
    // The stash compares what is there with its original, bounded by the original's length.
    expect(await store.put(text)).toEqual({ ok: true, key, created: true });
    expect((await store.get(key))!.toString()).toBe(text);
  });

  it('reads no more of an entry than the length a caller knows it has', async () => {
    const store = open();
    const text = 'counted by cg stats\n'.repeat(400);
    const { key } = await store.put(text);
    expect(await store.peek(key, { maxBytes: Buffer.byteLength(text) })).toMatchObject({ found: true });
    expect(await store.peek(key, { maxBytes: 100 })).toMatchObject({ found: false, why: 'corrupt' });
  });

  it('refuses an entry over the per-entry cap without sending it', async () => {
    const store = open({ maxEntryBytes: 1024, compress: false });
    const r = await store.put('x'.repeat(2000));
    expect(r).toMatchObject({ ok: false, reason: 'error' });
    expect((r as Extract<PutResult, { ok: false }>).detail).toMatch(/exceeds store.max_entry_mb/);
    expect(await admin.exists(`${store.dir.split('#')[1]}${keyOf('x'.repeat(2000))}`)).toBe(0);
  });

  it('peeks without renewing the expiry, and never reaches the server for a malformed key', async () => {
    const store = open();
    const { key } = await store.put('peek at me');
    const name = `${store.dir.split('#')[1]}${key}`;
    await admin.expire(name, 100);
    expect((await store.peek(key)).found).toBe(true);
    expect(await admin.ttl(name)).toBeLessThanOrEqual(100);
    expect(await store.read('../../etc/passwd')).toEqual({ found: false, why: 'missing' });
  });

  it('counts, clears and prunes only the keys of its own prefix', async () => {
    const store = open();
    const prefix = store.dir.split('#')[1]!;
    await store.put('one');
    await store.put('two');
    await admin.set(`${prefix}not-a-key`, 'x');
    await admin.set(`other:${keyOf('one')}`, 'x');
    expect(await store.info()).toMatchObject({ entries: 2, ttlDays: 14 });
    expect(await store.clear()).toBe(2);
    expect(await admin.get(`${prefix}not-a-key`)).toBe('x');
    expect(await admin.get(`other:${keyOf('one')}`)).toBe('x');
    expect((await store.info()).entries).toBe(0);
  });
});

describe(`the Redis link`, () => {
  let silent: Server;
  let port = 0;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    silent = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const a = silent.address();
    port = typeof a === 'object' && a ? a.port : 0;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent.close(r));
  });

  it('gives up on a server that never answers within its bound, then fails at once without retrying', async () => {
    const link = createRedisLink(parseRedisUrl(`redis://127.0.0.1:${port}`), 200);
    await expect(link.run((c) => c.ping())).rejects.toMatchObject({
      kind: 'down',
      message: /no answer within 200 ms/,
    });
    const accepted = sockets.length;
    await expect(link.run((c) => c.ping())).rejects.toMatchObject({ kind: 'down' });
    expect(sockets.length).toBe(accepted); // no second connection
    expect(link.downReason()).toMatch(/no answer/);
  });

  it('bounds connecting and the command together by timeout_ms, not each of them', async () => {
    // Answers its ready check (INFO) and a PING after 300 ms each, anything else at once: connecting
    // and the PING each fit in 400 ms, both together do not.
    const slow = createServer((s) => {
      sockets.push(s);
      s.on('data', (d) => {
        for (const name of commandNames(d.toString('latin1'))) {
          const answer = () => s.writable && s.write(replyTo(name));
          if (name === 'info' || name === 'ping') setTimeout(answer, 300);
          else answer();
        }
      });
    });
    const url = await listening(slow);
    try {
      const link = createRedisLink(parseRedisUrl(url), 400);
      await expect(link.run((c) => c.ping())).rejects.toMatchObject({
        kind: 'down',
        message: 'no answer within 400 ms',
      });
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => slow.close(r));
    }
  });

  it('drops the connection to a server that stopped answering at once, so nothing waits on it', async () => {
    // ioredis ends such a connection and destroys it only 2 s later; a stopped (SIGSTOP) server
    // never closes its side, so every failed cg run waited those 2 s past its message.
    const net = createRequire(import.meta.url)('node:net') as typeof import('node:net');
    const original = net.createConnection;
    const made: Socket[] = [];
    const spy = vi.spyOn(net, 'createConnection').mockImplementation(((...args: unknown[]) => {
      const socket = (original as (...a: unknown[]) => Socket).apply(net, args);
      made.push(socket);
      return socket;
    }) as typeof net.createConnection);
    // Like a stopped server, it keeps its side open when ours ends.
    const stopped = createServer({ allowHalfOpen: true }, (s) => sockets.push(s));
    const url = await listening(stopped);
    try {
      const link = createRedisLink(parseRedisUrl(url), 200);
      await expect(link.run((c) => c.ping())).rejects.toMatchObject({ kind: 'down' });
      // A timer set now runs after any ioredis set while giving up.
      await new Promise((r) => setTimeout(r, 1));
      expect(made).toHaveLength(1);
      expect(made[0]!.destroyed).toBe(true);
    } finally {
      spy.mockRestore();
      for (const s of sockets) s.destroy();
      await new Promise((r) => stopped.close(r));
    }
  });

  it('reports a refused connection with the socket error', async () => {
    const link = createRedisLink(parseRedisUrl('redis://127.0.0.1:1'), 500);
    await expect(link.run((c) => c.ping())).rejects.toMatchObject({ kind: 'down', message: /ECONNREFUSED/ });
  });
});

/** Starts a server on a free loopback port; its redis:// URL. */
async function listening(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const a = server.address();
  return `redis://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
}

/** The command names in RESP text (`*2\r\n$4\r\nPING\r\n…`), in order. */
function commandNames(text: string): string[] {
  const lines = text.split('\r\n');
  const names: string[] = [];
  for (let i = 0; i < lines.length; i++)
    if (lines[i]!.startsWith('*')) names.push(lines[i + 2]!.toLowerCase());
  return names;
}

/** What a Redis server says to a command, as far as a connection's start and a PING need. */
function replyTo(name: string): string {
  if (name === 'info') {
    const body = '# Server\r\nredis_version:7.0.0\r\nloading:0\r\n';
    return `$${body.length}\r\n${body}\r\n`;
  }
  return name === 'ping' ? '+PONG\r\n' : '+OK\r\n';
}

/** A Redis store stand-in whose answers a test sets. */
function fakeRedis(put: (original: string) => PutResult, entries = new Map<string, Buffer>()): RedisStore {
  const mem = new MemoryStore();
  return {
    backend: 'redis',
    dir: 'redis://fake:6379/0#cg:',
    link: {
      display: 'redis://fake:6379/0',
      run: async () => undefined as never,
      downReason: () => undefined,
      close() {},
    },
    writable: async () => true,
    put: async (original) => put(original),
    get: async (key) => entries.get(key),
    has: async (key) => entries.has(key),
    read: async (key) =>
      entries.has(key) ? { found: true, bytes: entries.get(key)! } : { found: false, why: 'missing' },
    peek: async (key) =>
      entries.has(key) ? { found: true, bytes: entries.get(key)! } : { found: false, why: 'missing' },
    touch: vi.fn(async () => undefined),
    server: async () => ({ url: 'redis://fake:6379/0', prefix: 'cg:' }),
    info: () => mem.info(),
    prune: () => mem.prune(),
    clear: () => mem.clear(),
  };
}

const down = (original: string): PutResult => ({
  ok: false,
  key: keyOf(original),
  reason: 'unwritable',
  detail: 'redis://fake:6379/0: connect ECONNREFUSED',
});

describe('the fleet store', () => {
  const local = () => createFsStore({ dir: join(tempDir('cg-fleet-'), 'store'), ...STORE_DEFAULTS });

  it('falls back to the local store when Redis cannot persist, saying so once', async () => {
    const warn = vi.fn();
    const disk = local();
    const fleet = createFleetStore({
      redis: fakeRedis(down),
      local: disk,
      fallback: true,
      cache: false,
      warn,
    });
    const a = await fleet.put('first');
    const b = await fleet.put('second');
    expect(a).toMatchObject({ ok: true });
    expect(b).toMatchObject({ ok: true });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(
      /ECONNREFUSED; stashing in the local store at .* \(markers expand on this machine only\)/,
    );
    expect((await fleet.get(keyOf('first')))!.toString()).toBe('first');
  });

  it('fails the put without a fallback, so the pipeline keeps only lossless rewrites', async () => {
    const warn = vi.fn();
    const disk = local();
    const fleet = createFleetStore({
      redis: fakeRedis(down),
      local: disk,
      fallback: false,
      cache: false,
      warn,
    });
    expect(await fleet.put('first')).toMatchObject({ ok: false, reason: 'unwritable' });
    expect(warn.mock.calls[0]![0]).toMatch(/; lossless rewrites only$/);
    expect((await disk.info()).entries).toBe(0);
  });

  it('never falls back from a collision: that is an answer, not an outage', async () => {
    const disk = local();
    const collide = (o: string): PutResult => ({ ok: false, key: keyOf(o), reason: 'collision' });
    const fleet = createFleetStore({
      redis: fakeRedis(collide),
      local: disk,
      fallback: true,
      cache: true,
      warn: vi.fn(),
    });
    expect(await fleet.put('x')).toMatchObject({ ok: false, reason: 'collision' });
    expect((await disk.info()).entries).toBe(0);
  });

  it('stashes what Redis cannot persist of a batch in the local store, and counts it there for hasMany', async () => {
    const warn = vi.fn();
    const disk = local();
    const fleet = createFleetStore({
      redis: fakeRedis(down),
      local: disk,
      fallback: true,
      cache: false,
      warn,
    });
    const results = await fleet.putMany!([{ original: 'one' }, { original: 'two' }]);
    expect(results.every((r) => r.ok && r.created)).toBe(true);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(await fleet.hasMany!([keyOf('one'), keyOf('two'), keyOf('three')])).toEqual([true, true, false]);
    const strict = createFleetStore({
      redis: fakeRedis(down),
      local: disk,
      fallback: false,
      cache: false,
      warn,
    });
    expect((await strict.putMany!([{ original: 'three' }]))[0]).toMatchObject({
      ok: false,
      reason: 'unwritable',
    });
  });

  it('counts a fallback entry as there for has(), but never a mere local cache copy', async () => {
    const disk = local();
    const text = 'stashed locally';
    await disk.put(text);
    const key = keyOf(text);
    const opts = { redis: fakeRedis(down), local: disk, warn: () => {} };
    expect(await createFleetStore({ ...opts, fallback: true, cache: false }).has!(key)).toBe(true);
    expect(await createFleetStore({ ...opts, fallback: false, cache: true }).has!(key)).toBe(false);
  });

  it('answers a read from the local store when Redis cannot be reached, whatever the roles, saying so once', async () => {
    const disk = local();
    const text = 'stashed here before Redis was set up';
    await disk.put(text);
    const away: EntryRead = { found: false, why: 'unavailable', detail: 'connect ECONNREFUSED' };
    const redis = { ...fakeRedis(down), read: async () => away, peek: async () => away };
    const warn = vi.fn();
    const fleet = createFleetStore({ redis, local: disk, fallback: false, cache: false, warn });
    expect((await fleet.get(keyOf(text)))!.toString()).toBe(text);
    expect((await fleet.peek!(keyOf(text))).found).toBe(true);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(/ECONNREFUSED; read from the local store at /);
    // A key in neither says why Redis could not answer.
    expect(await fleet.read!('0123456789abcdef')).toEqual(away);
  });

  it('answers a key Redis does not have from the local store, without a word', async () => {
    const disk = local();
    await disk.put('only here');
    const warn = vi.fn();
    const fleet = createFleetStore({
      redis: fakeRedis(down),
      local: disk,
      fallback: false,
      cache: false,
      warn,
    });
    expect((await fleet.get(keyOf('only here')))!.toString()).toBe('only here');
    expect(warn).not.toHaveBeenCalled();
  });

  it('fills the local cache on a read from Redis, then serves from it and renews the Redis expiry', async () => {
    const entries = new Map([[keyOf('cached'), Buffer.from('cached')]]);
    const redis = fakeRedis(down, entries);
    const disk = local();
    const fleet = createFleetStore({ redis, local: disk, fallback: false, cache: true, warn: vi.fn() });
    expect((await fleet.get(keyOf('cached')))!.toString()).toBe('cached');
    expect((await disk.info()).entries).toBe(1);
    entries.clear();
    expect((await fleet.get(keyOf('cached')))!.toString()).toBe('cached');
    expect(redis.touch).toHaveBeenCalledWith(keyOf('cached'));
  });
});
