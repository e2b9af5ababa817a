import * as fs from 'node:fs';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFsStore, entryPath, STORE_DEFAULTS } from '../../../src/store/fs-store.js';
import { keyOf } from '../../../src/store/keys.js';
import { resolveStoreDir } from '../../../src/store/location.js';
import type { StoreOptions } from '../../../src/store/store.js';
import { tempDir } from '../../helpers.js';

// Every function of fs/promises, and the synchronous calls a small read makes, is wrapped in a
// pass-through spy, so a test can prove a call never reached the filesystem.
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<Record<string, unknown>>();
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(actual)) {
    wrapped[name] = typeof value === 'function' ? vi.fn(value as (...args: unknown[]) => unknown) : value;
  }
  return { ...wrapped, default: wrapped };
});
const SYNC_READS = vi.hoisted(
  () => ['openSync', 'fstatSync', 'readFileSync', 'lstatSync', 'lutimesSync', 'readFile'] as const,
);
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<Record<string, unknown>>();
  const wrapped: Record<string, unknown> = { ...actual };
  for (const name of SYNC_READS) wrapped[name] = vi.fn(actual[name] as (...args: unknown[]) => unknown);
  return { ...wrapped, default: wrapped };
});

// keyOf with a switch to make two texts share a key: a real 64-bit collision cannot be found for a test.
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

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function makeStore(extra: Partial<StoreOptions> = {}) {
  const dir = join(tempDir('cg-store-'), 'store');
  return createFsStore({ dir, ...STORE_DEFAULTS, ...extra });
}

/** Sets an entry's (or any file's) mtime to `ageMs` in the past. */
async function age(path: string, ageMs: number): Promise<void> {
  const t = new Date(Date.now() - ageMs);
  await fsp.utimes(path, t, t);
}

/** Writes raw bytes under a key, as if something other than a put had left them there. */
function writeEntry(dir: string, key: string, bytes: string | Buffer): void {
  mkdirSync(join(dir, key.slice(0, 2)), { recursive: true });
  writeFileSync(entryPath(dir, key), bytes);
}

function tempFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith('.tmp-')) : [];
}

function spiedCalls(): number {
  let n = 0;
  const sync = fs as unknown as Record<string, unknown>;
  for (const value of [...Object.values(fsp), ...SYNC_READS.map((name) => sync[name])])
    if (vi.isMockFunction(value)) n += value.mock.calls.length;
  return n;
}

afterEach(() => {
  vi.clearAllMocks();
});

describe('fs store round trip', () => {
  it.each([
    ['an empty string', ''],
    ['short ascii', 'hello\n'],
    ['unicode and emoji', 'naïve café — 日本語 🎉👩‍💻 \u0000 tabs\tand\r\nCRLF'],
    ['text just under the compression threshold', 'x'.repeat(1023)],
    ['text just over the compression threshold', 'y'.repeat(1025)],
  ])('returns %s byte-identical', async (_name, text) => {
    const store = makeStore();
    const put = await store.put(text);
    expect(put).toEqual({ ok: true, key: keyOf(text), created: true });
    const got = await store.get(put.key);
    expect(got).toBeInstanceOf(Buffer);
    expect(got!.equals(Buffer.from(text, 'utf8'))).toBe(true);
  });

  it('returns a multi-megabyte log byte-identical, compressed on disk', async () => {
    const store = makeStore();
    const lines: string[] = [];
    for (let i = 0; i < 120_000; i++) lines.push(`2025-01-01T00:00:${i % 60}Z [INFO] step ${i} ok ✓ 🚀`);
    const text = lines.join('\n');
    const put = await store.put(text);
    expect(put.ok).toBe(true);
    const raw = readFileSync(entryPath(store.dir, put.key));
    expect([raw[0], raw[1]]).toEqual([0x1f, 0x8b]);
    expect(raw.length).toBeLessThan(Buffer.byteLength(text) / 4);
    expect((await store.get(put.key))!.toString('utf8')).toBe(text);
  });

  it('compresses an entry over 8 MiB as several gzip members and reads it back whole', async () => {
    const store = makeStore();
    const lines: string[] = [];
    for (let i = 0; i < 400_000; i++) lines.push(`${i} worker-${i % 7} request path=/api/${i % 977} ✓`);
    const text = lines.join('\n');
    expect(Buffer.byteLength(text)).toBeGreaterThan(8 << 20);
    const bytes = Buffer.from(text, 'utf8');
    const put = await store.put(text, bytes);
    expect(put).toEqual({ ok: true, key: keyOf(text), created: true });
    const raw = readFileSync(entryPath(store.dir, put.key));
    let members = 0;
    for (let i = raw.indexOf(0x1f); i !== -1; i = raw.indexOf(0x1f, i + 1)) {
      if (raw[i + 1] === 0x8b && raw[i + 2] === 8) members++;
    }
    expect(members).toBeGreaterThanOrEqual(2);
    expect((await store.get(put.key))!.equals(bytes)).toBe(true);
  });

  it('stores entries raw when compression is off', async () => {
    const store = makeStore({ compress: false });
    const text = 'z'.repeat(10_000);
    const put = await store.put(text);
    expect(readFileSync(entryPath(store.dir, put.key), 'utf8')).toBe(text);
    expect((await store.get(put.key))!.toString('utf8')).toBe(text);
  });

  it('reads a gzip entry even when the store now has compression off', async () => {
    const writer = makeStore();
    const text = 'log line\n'.repeat(500);
    const put = await writer.put(text);
    const reader = createFsStore({ ...STORE_DEFAULTS, dir: writer.dir, compress: false });
    expect((await reader.get(put.key))!.toString('utf8')).toBe(text);
  });

  it('stores each entry at <dir>/<first two hex>/<key> and leaves no temp file', async () => {
    const store = makeStore();
    const { key } = await store.put('shard me');
    expect(key).toMatch(/^[0-9a-f]{16}$/);
    const path = join(store.dir, key.slice(0, 2), key);
    expect(entryPath(store.dir, key)).toBe(path);
    expect(statSync(path).isFile()).toBe(true);
    expect(readdirSync(store.dir).filter((n) => !n.startsWith('.'))).toEqual([key.slice(0, 2)]);
    expect(readdirSync(join(store.dir, key.slice(0, 2)))).toEqual([key]);
    expect(tempFiles(store.dir)).toEqual([]);
  });

  it('keeps entries private to the user', async () => {
    const store = makeStore();
    const { key } = await store.put('secret token output');
    expect(statSync(entryPath(store.dir, key)).mode & 0o077).toBe(0);
    expect(statSync(store.dir).mode & 0o077).toBe(0);
  });
});

describe('fs store put', () => {
  it('accepts identical content again without rewriting it and refreshes its mtime', async () => {
    const store = makeStore();
    const first = await store.put('same bytes');
    const path = entryPath(store.dir, first.key);
    await age(path, 3 * DAY);
    const inode = statSync(path).ino;
    const second = await store.put('same bytes');
    expect(second).toEqual({ ok: true, key: first.key, created: false });
    expect(statSync(path).ino).toBe(inode);
    expect(Date.now() - statSync(path).mtimeMs).toBeLessThan(HOUR);
  });

  it('refuses a collision when different bytes that hash to the same key sit under it, and leaves them untouched', async () => {
    const store = makeStore();
    const text = 'the real original';
    const other = 'other bytes, same 64-bit key';
    const key = keyOf(text);
    collisions.set(keyOf(other), key);
    try {
      writeEntry(store.dir, key, other);
      const put = await store.put(text);
      expect(put).toMatchObject({ ok: false, key, reason: 'collision' });
      expect(readFileSync(entryPath(store.dir, key), 'utf8')).toBe(other);
      expect(tempFiles(store.dir)).toEqual([]);
    } finally {
      collisions.clear();
    }
  });

  it.each([
    ['bytes that do not hash to the key', (path: string) => writeFileSync(path, 'some other bytes')],
    ['a truncated gzip stream', (path: string) => writeFileSync(path, Buffer.from([0x1f, 0x8b, 8, 0, 1, 2]))],
  ])('replaces a corrupt entry (%s) on the next put of its original', async (_name, damage) => {
    const store = makeStore();
    const text = 'the real original\n'.repeat(200);
    const { key } = await store.put(text);
    const path = entryPath(store.dir, key);
    damage(path);
    expect(await store.read!(key)).toMatchObject({ found: false, why: 'corrupt' });
    expect(await store.put(text)).toEqual({ ok: true, key, created: true });
    expect((await store.get(key))!.toString('utf8')).toBe(text);
    expect(tempFiles(store.dir)).toEqual([]);
  });

  it('reports an unwritable store (its parent is a regular file) as ok:false without throwing', async () => {
    const parent = join(tempDir(), 'a-file');
    writeFileSync(parent, 'not a directory');
    const store = createFsStore({ ...STORE_DEFAULTS, dir: join(parent, 'store') });
    const put = await store.put('anything');
    expect(put).toMatchObject({ ok: false, key: keyOf('anything'), reason: 'unwritable' });
    expect(put.ok === false && put.detail).toMatch(/ENOTDIR/);
    expect(await store.writable()).toBe(false);
    expect(await store.get(keyOf('anything'))).toBeUndefined();
    expect(await store.info()).toMatchObject({ entries: 0, bytes: 0 });
  });

  it('refuses an entry that alone exceeds the size cap rather than storing one it would evict', async () => {
    const store = makeStore({ compress: false, maxBytes: 100 });
    const put = await store.put('q'.repeat(101));
    expect(put).toMatchObject({ ok: false, reason: 'error' });
    expect(put.ok === false && put.detail).toMatch(/exceeds the store cap/);
    expect((await store.info()).entries).toBe(0);
  });

  it('lets 50 concurrent puts of identical content all succeed, creating the entry exactly once', async () => {
    const store = makeStore();
    const text = 'concurrent\n'.repeat(300);
    const results = await Promise.all(Array.from({ length: 50 }, () => store.put(text)));
    expect(results.every((r) => r.ok && r.key === keyOf(text))).toBe(true);
    expect(results.filter((r) => r.ok && r.created)).toHaveLength(1);
    expect(tempFiles(store.dir)).toEqual([]);
    expect((await store.get(keyOf(text)))!.toString('utf8')).toBe(text);
  });

  it('lets 50 concurrent puts of different content all succeed and all read back', async () => {
    const store = makeStore();
    const texts = Array.from({ length: 50 }, (_, i) => `entry ${i}\n`.repeat(i * 20 + 1));
    const results = await Promise.all(texts.map((t) => store.put(t)));
    expect(results.every((r) => r.ok && r.created)).toBe(true);
    expect(tempFiles(store.dir)).toEqual([]);
    for (const t of texts) expect((await store.get(keyOf(t)))!.toString('utf8')).toBe(t);
    expect((await store.info()).entries).toBe(50);
  });
});

describe('fs store get', () => {
  it.each([
    '../../etc/passwd',
    '/etc/passwd',
    'cg:zz',
    '0123456789ABCDEF',
    '0123456789abcde',
    '0123456789abcdef0',
    '0123456789abcdef\n',
    '',
  ])('returns undefined for %j without touching the filesystem', async (bad) => {
    const store = makeStore();
    vi.clearAllMocks();
    expect(await store.get(bad)).toBeUndefined();
    expect(spiedCalls()).toBe(0);
    // Control: a well-formed key does reach the (spied) filesystem, so the zero above means something.
    await store.get('0123456789abcdef');
    expect(spiedCalls()).toBeGreaterThan(0);
  });

  it('returns undefined for a key that was never stored', async () => {
    const store = makeStore();
    expect(await store.get('0123456789abcdef')).toBeUndefined();
    await store.put('something else');
    expect(await store.get('0123456789abcdef')).toBeUndefined();
  });

  it('reads a truncated compressed entry as absent', async () => {
    const store = makeStore();
    const { key } = await store.put('compress me please\n'.repeat(200));
    const path = entryPath(store.dir, key);
    const raw = readFileSync(path);
    writeFileSync(path, raw.subarray(0, raw.length - 10));
    expect(await store.get(key)).toBeUndefined();
  });

  it('reads an entry whose bytes do not hash to its key as absent', async () => {
    const store = makeStore();
    const { key } = await store.put('original text');
    writeFileSync(entryPath(store.dir, key), 'tampered text');
    expect(await store.get(key)).toBeUndefined();
  });

  it('reads a gzip stream that decodes to the wrong bytes as absent', async () => {
    const store = makeStore();
    const text = 'payload\n'.repeat(400);
    const { key } = await store.put(text);
    const path = entryPath(store.dir, key);
    expect(gunzipSync(readFileSync(path)).toString()).toBe(text);
    const elsewhere = makeStore();
    const other = await elsewhere.put('different payload\n'.repeat(400));
    writeFileSync(path, readFileSync(entryPath(elsewhere.dir, other.key)));
    expect(await store.get(key)).toBeUndefined();
  });

  it('refreshes the mtime of an entry it reads, so reading keeps it alive', async () => {
    const store = makeStore();
    const { key } = await store.put('keep me warm');
    const path = entryPath(store.dir, key);
    await age(path, 10 * DAY);
    expect(await store.get(key)).toBeDefined();
    expect(Date.now() - statSync(path).mtimeMs).toBeLessThan(HOUR);
  });
});

describe('fs store writable', () => {
  it('creates the store directory and answers true when a file can be written there', async () => {
    const store = makeStore();
    expect(existsSync(store.dir)).toBe(false);
    expect(await store.writable()).toBe(true);
    expect(existsSync(store.dir)).toBe(true);
    expect(tempFiles(store.dir)).toEqual([]);
  });

  it('caches its answer for the life of the store instance', async () => {
    const store = makeStore();
    expect(await store.writable()).toBe(true);
    vi.clearAllMocks();
    expect(await store.writable()).toBe(true);
    expect(spiedCalls()).toBe(0);
  });
});

describe('fs store prune', () => {
  async function seed(store: ReturnType<typeof makeStore>, ages: Record<string, number>) {
    const keys: Record<string, string> = {};
    for (const [name, ageMs] of Object.entries(ages)) {
      const { key } = await store.put(`${name}\n`.repeat(100));
      keys[name] = key;
      await age(entryPath(store.dir, key), ageMs);
    }
    return keys;
  }

  it('removes entries older than the TTL and keeps younger ones', async () => {
    const store = makeStore({ ttlDays: 2 });
    const keys = await seed(store, { old: 3 * DAY, young: 1 * DAY });
    const r = await store.prune({ force: true });
    expect(r).toMatchObject({ removed: 1, remaining: 1 });
    expect(await store.get(keys.old!)).toBeUndefined();
    expect(await store.get(keys.young!)).toBeDefined();
  });

  it('evicts least recently used entries first until the store fits its cap', async () => {
    // compress off: each entry is exactly 1000 bytes on disk, so the cap arithmetic is exact.
    const store = makeStore({ compress: false, maxBytes: 2500 });
    const keys: Record<string, string> = {};
    for (const [name, ageMs] of [
      ['a', 3 * HOUR],
      ['b', 4 * HOUR],
      ['c', 2 * HOUR],
      ['d', 1 * HOUR],
    ] as const) {
      const { key } = await store.put(name.repeat(1000));
      keys[name] = key;
      await age(entryPath(store.dir, key), ageMs);
    }
    const r = await store.prune({ force: true });
    expect(r).toEqual({ removed: 2, freedBytes: 2000, remaining: 2, remainingBytes: 2000 });
    expect(existsSync(entryPath(store.dir, keys.b!))).toBe(false);
    expect(existsSync(entryPath(store.dir, keys.a!))).toBe(false);
    expect(existsSync(entryPath(store.dir, keys.c!))).toBe(true);
    expect(existsSync(entryPath(store.dir, keys.d!))).toBe(true);
  });

  it('applies the TTL before the size cap', async () => {
    const store = makeStore({ compress: false, ttlDays: 1, maxBytes: 1500 });
    const keys: Record<string, string> = {};
    for (const [name, ageMs] of [
      ['expired', 2 * DAY],
      ['older', 3 * HOUR],
      ['newer', 2 * HOUR],
    ] as const) {
      const { key } = await store.put(name[0]!.repeat(1000));
      keys[name] = key;
      await age(entryPath(store.dir, key), ageMs);
    }
    const r = await store.prune({ force: true });
    expect(r.removed).toBe(2);
    expect(existsSync(entryPath(store.dir, keys.newer!))).toBe(true);
    expect(existsSync(entryPath(store.dir, keys.older!))).toBe(false);
  });

  it('never evicts an entry written in the last minute to meet the cap', async () => {
    const store = makeStore({ compress: false, maxBytes: 1500 });
    const a = await store.put('a'.repeat(1000));
    const b = await store.put('b'.repeat(1000));
    const r = await store.prune({ force: true });
    expect(r.removed).toBe(0);
    expect(await store.get(a.key)).toBeDefined();
    expect(await store.get(b.key)).toBeDefined();
  });

  it('removes temp files older than an hour and keeps fresh ones', async () => {
    const store = makeStore();
    await store.writable();
    const stale = join(store.dir, '.tmp-1-stale');
    const fresh = join(store.dir, '.tmp-1-fresh');
    writeFileSync(stale, 'half');
    writeFileSync(fresh, 'in progress');
    await age(stale, 2 * HOUR);
    await store.prune({ force: true });
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
  });

  it('survives two prunes racing over the same entries', async () => {
    const store = makeStore({ ttlDays: 1 });
    await seed(store, { e1: 2 * DAY, e2: 2 * DAY, e3: 2 * DAY, keep: HOUR });
    const [x, y] = await Promise.all([store.prune({ force: true }), store.prune({ force: true })]);
    expect(x.removed + y.removed).toBe(3);
    expect((await store.info()).entries).toBe(1);
  });

  it('prunes an empty or missing store without error', async () => {
    const store = makeStore();
    expect(await store.prune({ force: true })).toEqual({
      removed: 0,
      freedBytes: 0,
      remaining: 0,
      remainingBytes: 0,
    });
  });

  it('skips an unforced prune while the stamp is fresh', async () => {
    const store = makeStore({ ttlDays: 1 });
    const keys = await seed(store, { old: 2 * DAY });
    await age(join(store.dir, '.last-prune'), 60_000);
    expect((await store.prune()).removed).toBe(0);
    expect(await store.get(keys.old!)).toBeDefined();
  });
});

describe('fs store lazy pruning', () => {
  it('prunes on put only when the stamp is older than five minutes, and claims the stamp', async () => {
    const store = makeStore({ ttlDays: 1 });
    const { key: oldKey } = await store.put('old entry\n'.repeat(50));
    const stamp = join(store.dir, '.last-prune');
    expect(existsSync(stamp)).toBe(true);
    await age(entryPath(store.dir, oldKey), 2 * DAY);

    // Stamp fresh (the first put just claimed it): the next put must not prune.
    await store.put('second entry');
    expect(existsSync(entryPath(store.dir, oldKey))).toBe(true);

    // Stamp four minutes old: still inside the interval.
    await age(stamp, 4 * 60_000);
    await store.put('third entry');
    expect(existsSync(entryPath(store.dir, oldKey))).toBe(true);

    // Stamp six minutes old: the next put prunes and claims the stamp.
    await age(stamp, 6 * 60_000);
    await store.put('fourth entry');
    expect(existsSync(entryPath(store.dir, oldKey))).toBe(false);
    expect(Date.now() - statSync(stamp).mtimeMs).toBeLessThan(60_000);
  });

  it('does not prune on a put that created nothing', async () => {
    const store = makeStore({ ttlDays: 1 });
    const { key: oldKey } = await store.put('old entry\n'.repeat(50));
    await store.put('again');
    await age(entryPath(store.dir, oldKey), 2 * DAY);
    await age(join(store.dir, '.last-prune'), HOUR);
    expect(await store.put('again')).toMatchObject({ ok: true, created: false });
    expect(existsSync(entryPath(store.dir, oldKey))).toBe(true);
  });

  it('never lets the lazy prune evict the entry it was triggered by', async () => {
    const store = makeStore({ compress: false, maxBytes: 1500 });
    const a = await store.put('a'.repeat(1000));
    await age(entryPath(store.dir, a.key), 2 * HOUR);
    await age(join(store.dir, '.last-prune'), HOUR);
    const b = await store.put('b'.repeat(1000));
    expect(b.ok).toBe(true);
    expect(await store.get(b.key)).toBeDefined();
    expect(await store.get(a.key)).toBeUndefined();
  });
});

describe('fs store info and clear', () => {
  it('reports entry count, bytes on disk and the oldest and newest mtimes', async () => {
    const store = makeStore({ compress: false, ttlDays: 7, maxBytes: 1 << 20 });
    const a = await store.put('a'.repeat(100));
    const b = await store.put('b'.repeat(300));
    await age(entryPath(store.dir, a.key), 2 * DAY);
    const info = await store.info();
    expect(info).toMatchObject({ dir: store.dir, entries: 2, bytes: 400, ttlDays: 7, maxBytes: 1 << 20 });
    expect(info.oldestMtimeMs).toBe(statSync(entryPath(store.dir, a.key)).mtimeMs);
    expect(info.newestMtimeMs).toBe(statSync(entryPath(store.dir, b.key)).mtimeMs);
  });

  it('reports an empty store with no ages', async () => {
    const info = await makeStore().info();
    expect(info.entries).toBe(0);
    expect(info.oldestMtimeMs).toBeUndefined();
    expect(info.newestMtimeMs).toBeUndefined();
  });

  it('removes every entry and temp file but keeps the directory', async () => {
    const store = makeStore();
    await store.put('one');
    await store.put('two');
    writeFileSync(join(store.dir, '.tmp-9-left'), 'x');
    expect(await store.clear()).toBe(2);
    expect(existsSync(store.dir)).toBe(true);
    expect(tempFiles(store.dir)).toEqual([]);
    expect((await store.info()).entries).toBe(0);
    expect((await store.put('one')).ok).toBe(true);
  });

  it('says when entries were last removed, by a prune or a clear, and not for a prune that removed none', async () => {
    const store = makeStore({ ttlDays: 2 });
    expect(await store.removedAt!()).toBeUndefined();
    await store.put('fresh\n'.repeat(100));
    await store.prune({ force: true });
    expect(await store.removedAt!()).toBeUndefined();
    const { key } = await store.put('stale\n'.repeat(100));
    await age(entryPath(store.dir, key), 3 * DAY);
    await store.prune({ force: true });
    const pruned = await store.removedAt!();
    expect(pruned).toBeGreaterThan(Date.now() - 60_000);
    await age(join(store.dir, '.last-removal'), DAY);
    await store.clear();
    expect(await store.removedAt!()).toBeGreaterThan(pruned! - 1);
  });

  it('ignores files in the store that are not entries', async () => {
    const store = makeStore();
    await store.put('real');
    writeFileSync(join(store.dir, 'README'), 'hello');
    await fsp.mkdir(join(store.dir, 'zz'));
    writeFileSync(join(store.dir, 'zz', 'notes.txt'), 'x');
    expect((await store.info()).entries).toBe(1);
    expect(await store.clear()).toBe(1);
    expect(existsSync(join(store.dir, 'README'))).toBe(true);
  });
});

describe('resolveStoreDir', () => {
  it('uses CG_STORE_DIR when set', () => {
    expect(resolveStoreDir({ CG_STORE_DIR: '/srv/cg', XDG_CACHE_HOME: '/xdg' })).toBe('/srv/cg');
  });

  it('makes a relative CG_STORE_DIR absolute', () => {
    expect(resolveStoreDir({ CG_STORE_DIR: 'rel/store' })).toBe(join(process.cwd(), 'rel/store'));
  });

  it('falls back to $XDG_CACHE_HOME/cg/store', () => {
    expect(resolveStoreDir({ XDG_CACHE_HOME: '/xdg/cache' })).toBe('/xdg/cache/cg/store');
  });

  it('ignores an empty or relative XDG_CACHE_HOME and uses ~/.cache/cg/store', async () => {
    const { homedir } = await import('node:os');
    const home = join(homedir(), '.cache', 'cg', 'store');
    expect(resolveStoreDir({})).toBe(home);
    expect(resolveStoreDir({ XDG_CACHE_HOME: '', CG_STORE_DIR: '' })).toBe(home);
    expect(resolveStoreDir({ XDG_CACHE_HOME: 'relative/cache' })).toBe(home);
  });
});
