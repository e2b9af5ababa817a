import { existsSync } from 'node:fs';
import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatAge, formatBytes, storeCommand } from '../../../src/commands/store.js';
import { UsageError } from '../../../src/errors.js';
import { createFsStore, entryPath, STORE_DEFAULTS } from '../../../src/store/fs-store.js';
import { type Store, StoreActionError, type StoreInfo } from '../../../src/store/store.js';
import { tempDir } from '../../helpers.js';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const DAY = 86_400_000;

/** A store whose info is fixed, for exact text; other methods are not reached by these tests. */
function fakeStore(info: Partial<StoreInfo> = {}): Store {
  const full: StoreInfo = {
    dir: '/cache/cg/store',
    entries: 0,
    bytes: 0,
    ttlDays: 14,
    maxBytes: 512 * 1024 * 1024,
    compress: true,
    ...info,
  };
  const unused = () => Promise.reject(new Error('not used in this test'));
  return {
    dir: full.dir,
    writable: () => Promise.resolve(true),
    put: unused,
    get: unused,
    info: () => Promise.resolve(full),
    prune: unused,
    clear: unused,
  };
}

function realStore() {
  return createFsStore({ ...STORE_DEFAULTS, dir: join(tempDir('cg-cmd-'), 'store') });
}

describe('cg store path', () => {
  it('prints the store directory on one line', async () => {
    expect(await storeCommand('path', fakeStore(), {})).toBe('/cache/cg/store\n');
  });

  it('gives {dir} with --json', async () => {
    expect(JSON.parse(await storeCommand('path', fakeStore(), { json: true }))).toEqual({
      dir: '/cache/cg/store',
    });
  });
});

describe('cg store info', () => {
  const populated = fakeStore({
    entries: 3,
    bytes: 3 * 1024 * 1024 + 400 * 1024,
    oldestMtimeMs: NOW - 2 * DAY,
    newestMtimeMs: NOW - 5 * 60_000,
  });

  it('prints the backend, dir, entries, size against the cap, oldest and newest age, ttl and compression', async () => {
    expect(await storeCommand('info', populated, { now: NOW })).toBe(
      [
        'backend   disk',
        'dir       /cache/cg/store',
        'entries   3',
        'size      3.4 MiB of 512 MiB cap',
        'oldest    2 days ago',
        'newest    5 minutes ago',
        'ttl       14 days',
        'compress  gzip',
        '',
      ].join('\n'),
    );
  });

  it('omits ages for an empty store and says when there is no cap or ttl', async () => {
    const text = await storeCommand('info', fakeStore({ maxBytes: 0, ttlDays: 0, compress: false }), {
      now: NOW,
    });
    expect(text).not.toMatch(/oldest|newest/);
    expect(text).toMatch(/^size\s+0 B of none cap$/m);
    expect(text).toMatch(/^ttl\s+none$/m);
    expect(text).toMatch(/^compress\s+off$/m);
  });

  it('gives a stable JSON object with every key present', async () => {
    expect(JSON.parse(await storeCommand('info', populated, { json: true, now: NOW }))).toEqual({
      backend: 'disk',
      dir: '/cache/cg/store',
      entries: 3,
      bytes: 3 * 1024 * 1024 + 400 * 1024,
      maxBytes: 512 * 1024 * 1024,
      ttlDays: 14,
      compress: true,
      oldest: '2025-01-13T12:00:00.000Z',
      newest: '2025-01-15T11:55:00.000Z',
      oldestAgeSeconds: 2 * 86_400,
      newestAgeSeconds: 300,
      server: null,
      local: null,
    });
  });

  it('says which server, prefix and memory policy a Redis store has, and its local store', async () => {
    const redis = fakeStore({
      dir: 'redis://:***@10.0.0.5:6379/0#team-a:',
      backend: 'redis',
      entries: 2,
      bytes: 2048,
      maxBytes: 0,
      server: {
        url: 'redis://:***@10.0.0.5:6379/0',
        prefix: 'team-a:',
        version: '7.2.4',
        usedMemory: 3 * 1024 * 1024,
        maxMemory: 256 * 1024 * 1024,
        maxMemoryPolicy: 'noeviction',
      },
      local: {
        dir: '/cache/cg/store',
        entries: 1,
        bytes: 10,
        ttlDays: 14,
        maxBytes: 1,
        compress: true,
        fallback: true,
        cache: false,
      },
    });
    const text = await storeCommand('info', redis, { now: NOW });
    expect(text).toMatch(/^backend\s+redis$/m);
    expect(text).toMatch(/^server\s+redis:\/\/:\*\*\*@10\.0\.0\.5:6379\/0 \(Redis 7\.2\.4\)$/m);
    expect(text).toMatch(/^prefix\s+team-a:$/m);
    expect(text).toMatch(
      /^memory\s+3 MiB used of 256 MiB maxmemory, policy noeviction \(a full server refuses/m,
    );
    expect(text).toMatch(/^ttl\s+14 days, renewed by every use$/m);
    expect(text).toMatch(/^local\s+\/cache\/cg\/store \(fallback\): 1 entry, 10 B$/m);
    const json = JSON.parse(await storeCommand('info', redis, { json: true, now: NOW }));
    expect(json).toMatchObject({
      backend: 'redis',
      server: { prefix: 'team-a:' },
      local: { fallback: true },
    });
  });

  it('uses null for the ages of an empty store in JSON', async () => {
    const obj = JSON.parse(await storeCommand('info', fakeStore(), { json: true, now: NOW }));
    expect(obj).toMatchObject({
      entries: 0,
      oldest: null,
      newest: null,
      oldestAgeSeconds: null,
      newestAgeSeconds: null,
    });
  });

  it('reads a real store', async () => {
    const store = realStore();
    await store.put('hello');
    expect(await storeCommand('info', store, {})).toMatch(/^entries\s+1$/m);
  });
});

describe('cg store prune', () => {
  it('prunes at once, ignoring the lazy interval, and reports what it freed', async () => {
    const store = createFsStore({ ...STORE_DEFAULTS, ttlDays: 1, dir: join(tempDir('cg-cmd-'), 'store') });
    const { key } = await store.put('expired\n'.repeat(10));
    await store.put('fresh');
    const old = new Date(Date.now() - 2 * DAY);
    await utimes(entryPath(store.dir, key), old, old);
    expect(await storeCommand('prune', store, {})).toBe(
      'removed 1 entry (80 B freed); 1 entry (5 B) remain\n',
    );
    expect(existsSync(entryPath(store.dir, key))).toBe(false);
  });

  it('gives the prune result as JSON', async () => {
    const obj = JSON.parse(await storeCommand('prune', realStore(), { json: true }));
    expect(obj).toEqual({ removed: 0, freedBytes: 0, remaining: 0, remainingBytes: 0 });
  });
});

describe('cg store clear', () => {
  it('removes every entry and says how many', async () => {
    const store = realStore();
    await store.put('one');
    await store.put('two');
    expect(await storeCommand('clear', store, {})).toBe('removed 2 entries\n');
    expect((await store.info()).entries).toBe(0);
  });

  it('gives {removed} with --json', async () => {
    expect(JSON.parse(await storeCommand('clear', realStore(), { json: true }))).toEqual({ removed: 0 });
  });

  it('asks first when a person is at the terminal, and removes nothing unless they say yes', async () => {
    const store = realStore();
    await store.put('one');
    const questions: string[] = [];
    const answer = (yes: boolean) => async (q: string) => {
      questions.push(q);
      return yes;
    };
    await expect(storeCommand('clear', store, { ask: answer(false) })).rejects.toThrow(StoreActionError);
    expect(questions).toEqual([`remove all 1 entry (3 B) from ${store.dir}? [y/N] `]);
    expect((await store.info()).entries).toBe(1);
    expect(await storeCommand('clear', store, { ask: answer(true) })).toBe('removed 1 entry\n');
    expect(questions).toHaveLength(2);
  });

  it('never asks with --yes', async () => {
    const store = realStore();
    await store.put('one');
    const ask = () => Promise.reject(new Error('must not ask'));
    expect(await storeCommand('clear', store, { ask, yes: true })).toBe('removed 1 entry\n');
  });
});

describe('cg store with an unknown action', () => {
  it('throws a one-line UsageError listing the valid actions', async () => {
    const err = await storeCommand('purge', fakeStore(), {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe(
      'unknown store action "purge": expected one of path, info, prune, clear',
    );
  });
});

describe('formatBytes and formatAge', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1 KiB'],
    [1536, '1.5 KiB'],
    [512 * 1024 * 1024, '512 MiB'],
    [150 * 1024 * 1024, '150 MiB'],
    [3 * 1024 ** 3, '3 GiB'],
  ])('formats %d bytes as %s', (n, text) => {
    expect(formatBytes(n)).toBe(text);
  });

  it.each([
    [0, 'just now'],
    [30_000, '30 seconds ago'],
    [60_000, '1 minute ago'],
    [2 * 3_600_000 + 5, '2 hours ago'],
    [DAY, '1 day ago'],
    [-5_000, 'just now'],
  ])('formats an age of %d ms as %s', (ms, text) => {
    expect(formatAge(ms)).toBe(text);
  });
});
