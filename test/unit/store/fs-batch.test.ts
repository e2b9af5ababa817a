/**
 * putMany on the disk store: a batch of originals with one durability barrier, and the order that
 * makes it safe — every temp file written, then all made durable, then linked under their keys.
 * The barrier (syncfs of the store's filesystem) is stood in for, so a test can hold it or fail it.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createFsStore, entryPath } from '../../../src/store/fs-store.js';
import { keyOf } from '../../../src/store/keys.js';
import { tempDir } from '../../helpers.js';

const barrier = vi.hoisted(() => ({
  calls: 0,
  answer: (): Promise<boolean> => Promise.resolve(true),
  synced: [] as string[],
}));
vi.mock('../../../src/store/fs-sync.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../src/store/fs-sync.js')>();
  return {
    ...actual,
    syncFilesystem: () => {
      barrier.calls++;
      return barrier.answer();
    },
    syncFile: async (path: string) => {
      barrier.synced.push(path);
      return actual.syncFile(path);
    },
  };
});

const open = () => {
  const dir = tempDir('cg-batch-');
  return { dir, store: createFsStore({ dir, ttlDays: 14, maxBytes: 1 << 30, compress: true }) };
};
const originals = (n: number, tag = 'x') =>
  Array.from({ length: n }, (_, i) => `${tag} original ${i}\n`.repeat(40 + i));

beforeEach(() => {
  barrier.calls = 0;
  barrier.answer = () => Promise.resolve(true);
  barrier.synced = [];
});

describe('putMany on the disk store', () => {
  it('stores every original of a batch as put would, with one durability barrier for all of them', async () => {
    const { store } = open();
    const texts = originals(40);
    const results = await store.putMany!(texts.map((original) => ({ original })));
    expect(barrier.calls).toBe(1);
    expect(barrier.synced).toEqual([]);
    results.forEach((r, i) => {
      expect(r).toEqual({ ok: true, key: keyOf(texts[i]!), created: true });
    });
    for (const t of texts) expect((await store.get(keyOf(t)))?.toString('utf8')).toBe(t);
  });

  it('answers an original already stored, or repeated in the batch, as re-used', async () => {
    const { store } = open();
    const [a, b] = originals(2);
    await store.put(a!);
    const results = await store.putMany!([a!, b!, b!].map((original) => ({ original })));
    expect(results).toEqual([
      { ok: true, key: keyOf(a!), created: false },
      { ok: true, key: keyOf(b!), created: true },
      { ok: true, key: keyOf(b!), created: false },
    ]);
  });

  it('links no entry of a batch until all of it is durable, so a crash before then leaves no key naming lost bytes', async () => {
    const { dir, store } = open();
    const texts = originals(20);
    let release!: (ok: boolean) => void;
    barrier.answer = () => new Promise<boolean>((r) => (release = r));
    const pending = store.putMany!(texts.map((original) => ({ original })));
    await vi.waitFor(() => expect(barrier.calls).toBe(1));
    // Held at the barrier: every temp file is written, and nothing is under any key.
    expect(readdirSync(dir).filter((n) => n.startsWith('.tmp-'))).toHaveLength(20);
    expect(await store.hasMany!(texts.map((t) => keyOf(t)))).toEqual(texts.map(() => false));
    release(true);
    expect((await pending).every((r) => r.ok)).toBe(true);
    expect(await store.hasMany!(texts.map((t) => keyOf(t)))).toEqual(texts.map(() => true));
    expect(readdirSync(dir).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
  });

  it('makes each file durable by itself where the filesystem barrier cannot be had', async () => {
    const { store } = open();
    const texts = originals(12);
    barrier.answer = () => Promise.reject(new Error('no sync here'));
    const results = await store.putMany!(texts.map((original) => ({ original })));
    expect(barrier.synced).toHaveLength(12);
    expect(results.every((r) => r.ok && r.created)).toBe(true);
  });

  it('syncs a small batch file by file without the filesystem barrier', async () => {
    const { store } = open();
    const results = await store.putMany!(originals(3).map((original) => ({ original })));
    expect(barrier.calls).toBe(0);
    expect(results.every((r) => r.ok && r.created)).toBe(true);
  });

  it('fails only the original that cannot be stored, and links the rest', async () => {
    const { dir, store } = open();
    const texts = originals(10);
    // A file where one entry's shard directory belongs: that entry cannot be written.
    const blocked = keyOf(texts[4]!).slice(0, 2);
    writeFileSync(join(dir, blocked), 'not a directory');
    const results = await store.putMany!(texts.map((original) => ({ original })));
    texts.forEach((t, i) => {
      const mine = keyOf(t).slice(0, 2) === blocked;
      expect(results[i]!.ok).toBe(!mine);
    });
    expect(results[4]).toMatchObject({ ok: false, reason: 'unwritable' });
  });

  it('replaces a corrupt entry under a key, as put does', async () => {
    const { store } = open();
    const [a, b] = originals(2);
    const key = keyOf(a!);
    // Something under a's key that is not a's original: damaged, so the batch writes it anew.
    mkdirSync(join(entryPath(store.dir, key), '..'), { recursive: true });
    writeFileSync(entryPath(store.dir, key), b!);
    const results = await store.putMany!([{ original: a! }]);
    expect(results[0]).toEqual({ ok: true, key, created: true });
    expect((await store.get(key))?.toString('utf8')).toBe(a);
  });
});
