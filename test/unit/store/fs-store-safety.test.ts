/**
 * The disk store under hostile conditions: a prune racing a re-use, links planted inside the store,
 * and a store that refuses every removal.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFsStore, entryPath, STORE_DEFAULTS } from '../../../src/store/fs-store.js';
import { keyOf } from '../../../src/store/keys.js';
import { StoreActionError, type StoreOptions } from '../../../src/store/store.js';
import { tempDir } from '../../helpers.js';

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<Record<string, unknown>>();
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(actual)) {
    wrapped[name] = typeof value === 'function' ? vi.fn(value as (...args: unknown[]) => unknown) : value;
  }
  return { ...wrapped, default: wrapped };
});
const real = await vi.importActual<typeof import('node:fs/promises')>('node:fs/promises');

const DAY = 86_400_000;

function makeStore(extra: Partial<StoreOptions> = {}) {
  const dir = join(tempDir('cg-store-'), 'store');
  return createFsStore({ dir, ...STORE_DEFAULTS, ...extra });
}

async function age(path: string, ageMs: number): Promise<void> {
  const t = new Date(Date.now() - ageMs);
  await real.utimes(path, t, t);
}

afterEach(() => {
  vi.mocked(fsp.rename).mockImplementation(real.rename);
  vi.mocked(fsp.unlink).mockImplementation(real.unlink);
  vi.clearAllMocks();
});

/** Runs `during` right before the first rename or unlink that the prune makes on `path`. */
function interceptRemoval(path: string, during: () => Promise<unknown>, after = false) {
  let fired = false;
  const hook =
    <A extends unknown[]>(fn: (p: string, ...rest: A) => Promise<void>) =>
    async (p: string, ...rest: A) => {
      if (fired || p !== path) return fn(p, ...rest);
      fired = true;
      if (after) {
        await fn(p, ...rest);
        await during();
        return;
      }
      await during();
      return fn(p, ...rest);
    };
  vi.mocked(fsp.rename).mockImplementation(
    hook(real.rename as (p: string, to: string) => Promise<void>) as typeof fsp.rename,
  );
  vi.mocked(fsp.unlink).mockImplementation(
    hook(real.unlink as (p: string) => Promise<void>) as typeof fsp.unlink,
  );
  return () => fired;
}

describe('a prune racing a re-use of the same key', () => {
  it.each([
    ['just before the prune removes it', false],
    ['just after the prune took it away', true],
  ])('keeps an expired entry that a put re-used %s, so its marker expands', async (_when, after) => {
    const store = makeStore({ ttlDays: 1 });
    const text = 'the original a marker points at\n'.repeat(100);
    const { key } = await store.put(text);
    const path = entryPath(store.dir, key);
    await age(path, 3 * DAY);
    let reuse: Awaited<ReturnType<typeof store.put>> | undefined;
    const fired = interceptRemoval(
      path,
      async () => {
        reuse = await createFsStore({ dir: store.dir, ...STORE_DEFAULTS, ttlDays: 1 }).put(text);
      },
      after,
    );
    await store.prune({ force: true });
    expect(fired()).toBe(true);
    expect(reuse).toMatchObject({ ok: true, key });
    expect((await store.get(key))?.toString('utf8')).toBe(text);
    expect(readdirSync(store.dir).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
  });

  it('still removes an expired entry nobody used, leaving nothing set aside', async () => {
    const store = makeStore({ ttlDays: 1 });
    const { key } = await store.put('expired and unused\n'.repeat(50));
    await age(entryPath(store.dir, key), 3 * DAY);
    expect(await store.prune({ force: true })).toMatchObject({ removed: 1, remaining: 0 });
    expect(existsSync(entryPath(store.dir, key))).toBe(false);
    expect(readdirSync(store.dir).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
  });

  it('keeps an entry read by expand while the size cap was evicting it', async () => {
    const store = makeStore({ compress: false, maxBytes: 1500 });
    const a = await store.put('a'.repeat(1000));
    const b = await store.put('b'.repeat(1000));
    await age(entryPath(store.dir, a.key), 2 * DAY);
    await age(entryPath(store.dir, b.key), DAY);
    interceptRemoval(entryPath(store.dir, a.key), () => store.get(a.key));
    const r = await store.prune({ force: true });
    expect(r.removed).toBe(1);
    expect(await store.get(a.key)).toBeDefined();
    expect(existsSync(entryPath(store.dir, b.key))).toBe(false);
  });
});

describe('values planted under a key', () => {
  const MIB = 2 ** 20;
  const text = 'the output a run stashes\n'.repeat(2000);
  const key = keyOf(text);
  /** What sits under the key's name before any put. */
  const plant = (store: { dir: string }, what: (path: string) => void) => {
    mkdirSync(join(store.dir, key.slice(0, 2)), { recursive: true });
    what(entryPath(store.dir, key));
  };
  /** Names in the store that are neither entries nor its own stamps (temps, things set aside). */
  const strays = (dir: string) =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter(
      (n) => !/^([0-9a-f]{2}(\/[0-9a-f]{16})?|\.last-prune)$/.test(n),
    );

  it('reads a gzip value that inflates past max_entry_mb as corrupt, and the next put replaces it', async () => {
    const store = makeStore({ maxEntryBytes: 4 * MIB });
    plant(store, (path) => writeFileSync(path, gzipSync(Buffer.alloc(64 * MIB), { level: 1 })));
    expect(await store.read!(key)).toMatchObject({
      found: false,
      why: 'corrupt',
      detail: expect.stringMatching(/more than store\.max_entry_mb \(4 MiB\)/),
    });
    expect(await store.put(text)).toEqual({ ok: true, key, created: true });
    expect((await store.get(key))!.toString()).toBe(text);
  });

  it('refuses to stash an original larger than max_entry_mb, which it could never read back', async () => {
    const store = makeStore({ maxEntryBytes: 1024 });
    const r = await store.put('x'.repeat(2000));
    expect(r).toMatchObject({
      ok: false,
      reason: 'error',
      detail: expect.stringMatching(/exceeds store\.max_entry_mb/),
    });
    expect((await store.putMany!([{ original: 'y'.repeat(2000) }]))[0]).toMatchObject({
      ok: false,
      reason: 'error',
    });
    expect((await store.info()).entries).toBe(0);
  });

  it('reads a huge sparse file as corrupt without reading it, and the next put replaces it', async () => {
    const store = makeStore();
    plant(store, (path) => {
      writeFileSync(path, '');
      truncateSync(path, 3 * 1024 * MIB);
    });
    expect(await store.read!(key)).toMatchObject({ found: false, why: 'corrupt' });
    expect(await store.put(text)).toEqual({ ok: true, key, created: true });
    expect(statSync(entryPath(store.dir, key)).size).toBeLessThan(MIB);
    expect((await store.get(key))!.toString()).toBe(text);
  });

  it.each([
    ['empty', (_dir: string) => undefined],
    [
      'holding files and a link to outside the store',
      (dir: string, outside = tempDir('cg-outside-')) => {
        writeFileSync(join(outside, 'keep.txt'), 'not the store');
        mkdirSync(join(dir, 'sub'));
        writeFileSync(join(dir, 'sub', 'file'), 'planted');
        symlinkSync(outside, join(dir, 'out'));
        return outside;
      },
    ],
  ])(
    'replaces a directory planted where an entry belongs (%s), never touching what it links to',
    async (_name, fill) => {
      const store = makeStore();
      let outside: string | undefined;
      plant(store, (path) => {
        mkdirSync(path);
        outside = fill(path) ?? undefined;
      });
      expect(await store.read!(key)).toMatchObject({ found: false, why: 'corrupt' });
      expect(await store.put(text)).toEqual({ ok: true, key, created: true });
      expect(lstatSync(entryPath(store.dir, key)).isFile()).toBe(true);
      expect((await store.get(key))!.toString()).toBe(text);
      expect(strays(store.dir)).toEqual([]);
      if (outside) expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('not the store');
    },
  );

  it('replaces a planted directory through a batch put too', async () => {
    const store = makeStore();
    plant(store, (path) => mkdirSync(path));
    const results = await store.putMany!([{ original: text }, { original: 'another\n' }]);
    expect(results[0]).toEqual({ ok: true, key, created: true });
    expect((await store.get(key))!.toString()).toBe(text);
  });
});

describe('links planted inside the store', () => {
  it('never writes an original through a shard that is a link, and clear removes the link only', async () => {
    const store = makeStore();
    const text = 'a secret original\n';
    const key = keyOf(text);
    const outside = tempDir('cg-outside-');
    mkdirSync(store.dir, { recursive: true });
    symlinkSync(outside, join(store.dir, key.slice(0, 2)));
    const put = await store.put(text);
    expect(readdirSync(outside)).toEqual([]);
    // The link was replaced by a real shard directory, so the original is inside the store.
    expect(put).toMatchObject({ ok: true, created: true });
    expect(lstatSync(join(store.dir, key.slice(0, 2))).isDirectory()).toBe(true);
    expect(lstatSync(entryPath(store.dir, key)).isFile()).toBe(true);
    symlinkSync(outside, join(store.dir, 'ab'));
    writeFileSync(join(outside, 'keep.txt'), 'not the store');
    await store.clear();
    expect(existsSync(join(store.dir, 'ab'))).toBe(false);
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('not the store');
  });

  it('reads an entry that is a link as corrupt, without reading or touching its target', async () => {
    const store = makeStore();
    const text = 'what the marker meant\n';
    const key = keyOf(text);
    const target = join(tempDir('cg-outside-'), 'target');
    writeFileSync(target, text);
    await age(target, 5 * DAY);
    const before = statSync(target).mtimeMs;
    mkdirSync(join(store.dir, key.slice(0, 2)), { recursive: true });
    symlinkSync(target, entryPath(store.dir, key));
    expect(await store.read!(key)).toMatchObject({ found: false, why: 'corrupt' });
    expect(await store.get(key)).toBeUndefined();
    expect(statSync(target).mtimeMs).toBe(before);
    // The next put replaces the link with a real entry and leaves the target as it was.
    expect(await store.put(text)).toMatchObject({ ok: true, created: true });
    expect(lstatSync(entryPath(store.dir, key)).isFile()).toBe(true);
    expect(statSync(target).mtimeMs).toBe(before);
  });

  it('never blocks on an entry that is a link to a FIFO or /dev/zero', async () => {
    const store = makeStore();
    const k1 = keyOf('one');
    const k2 = keyOf('two');
    const fifo = join(tempDir('cg-outside-'), 'fifo');
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [fifo]);
    for (const [k, target] of [
      [k1, '/dev/zero'],
      [k2, fifo],
    ] as const) {
      mkdirSync(join(store.dir, k.slice(0, 2)), { recursive: true });
      symlinkSync(target, entryPath(store.dir, k));
    }
    expect(await store.read!(k1)).toMatchObject({ found: false, why: 'corrupt' });
    expect(await store.read!(k2)).toMatchObject({ found: false, why: 'corrupt' });
  });

  it('never creates the target of a dangling .last-prune link, and replaces the link with a stamp', async () => {
    const store = makeStore();
    const target = join(tempDir('cg-outside-'), 'created-by-cg');
    mkdirSync(store.dir, { recursive: true });
    symlinkSync(target, join(store.dir, '.last-prune'));
    expect((await store.put('anything at all')).ok).toBe(true);
    expect(existsSync(target)).toBe(false);
    expect(lstatSync(join(store.dir, '.last-prune')).isFile()).toBe(true);
  });

  it("follows a store directory that is itself a link: that is the user's own choice", async () => {
    const real = join(tempDir('cg-real-'), 'store');
    mkdirSync(real);
    const dir = join(tempDir('cg-via-'), 'store');
    symlinkSync(real, dir);
    const store = createFsStore({ dir, ...STORE_DEFAULTS });
    expect(await store.writable()).toBe(true);
    const { key } = await store.put('kept on the other disk\n');
    expect(lstatSync(dir).isSymbolicLink()).toBe(true);
    expect(existsSync(entryPath(real, key))).toBe(true);
    expect((await store.get(key))!.toString()).toBe('kept on the other disk\n');
  });

  it('creates entries and temp files private to the user, with exclusive flags', async () => {
    const store = makeStore();
    const { key } = await store.put('private\n');
    expect(statSync(entryPath(store.dir, key)).mode & 0o777).toBe(0o600);
    const opens = vi.mocked(fsp.open).mock.calls.filter(([p]) => String(p).includes('.tmp-'));
    expect(opens.length).toBeGreaterThan(0);
    const { constants } = await import('node:fs');
    for (const [, flags] of opens) {
      expect(typeof flags).toBe('number');
      expect((flags as number) & constants.O_EXCL).toBeTruthy();
      expect((flags as number) & constants.O_NOFOLLOW).toBeTruthy();
    }
  });
});

describe('a store that refuses every removal', () => {
  const refused = [fsp.unlink, fsp.rename, fsp.rmdir, fsp.utimes, fsp.lutimes, fsp.open, fsp.link];
  const originals = [real.unlink, real.rename, real.rmdir, real.utimes, real.lutimes, real.open, real.link];
  function refuse() {
    const erofs = () =>
      Promise.reject(Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' }));
    for (const fn of refused) vi.mocked(fn).mockImplementation(erofs as never);
  }
  afterEach(() => {
    refused.forEach((fn, i) => {
      vi.mocked(fn).mockImplementation(originals[i] as never);
    });
  });

  it('makes clear throw a StoreActionError that says how many entries stayed', async () => {
    const store = makeStore();
    await store.put('one');
    await store.put('two');
    refuse();
    await expect(store.clear()).rejects.toThrow(StoreActionError);
    await expect(store.clear()).rejects.toThrow(/could not remove 2 entries in .*EROFS/);
  });

  it('makes a forced prune throw instead of reporting nothing removed', async () => {
    const store = makeStore({ ttlDays: 1 });
    const { key } = await store.put('old');
    await age(entryPath(store.dir, key), 3 * DAY);
    refuse();
    await expect(store.prune({ force: true })).rejects.toThrow(/store prune: cannot write in .*EROFS/);
  });
});
