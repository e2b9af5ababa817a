/**
 * Packs on the disk store: a large batch's small originals go into one immutable pack file instead
 * of a file each, and every store operation (read, has, reuse, collision, info, prune, clear) sees
 * them as the entries they hold. The barrier is stood in for, so a test can hold it (a crash there).
 */
import * as fs from 'node:fs';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { PACK_DIR, PackSet } from '../../../src/store/fs-pack.js';
import { createFsStore, entryPath } from '../../../src/store/fs-store.js';
import { keyOf } from '../../../src/store/keys.js';
import type { StoreOptions } from '../../../src/store/store.js';
import { tempDir } from '../../helpers.js';

const barrier = vi.hoisted(() => ({
  calls: 0,
  answer: (): Promise<boolean> => Promise.resolve(true),
}));
vi.mock('../../../src/store/fs-sync.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../src/store/fs-sync.js')>();
  return {
    ...actual,
    syncFilesystem: () => {
      barrier.calls++;
      return barrier.answer();
    },
  };
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

const DAY = 86_400_000;

function open(extra: Partial<StoreOptions> = {}) {
  const dir = join(tempDir('cg-pack-'), 'store');
  const opts = { dir, ttlDays: 14, maxBytes: 1 << 30, compress: true, ...extra };
  return { dir, opts, store: createFsStore(opts) };
}
const originals = (n: number, tag = 'x') =>
  Array.from({ length: n }, (_, i) => `${tag} tool result ${i}\n`.repeat(5 + (i % 90)));
const packsIn = (dir: string) =>
  existsSync(join(dir, PACK_DIR)) ? readdirSync(join(dir, PACK_DIR)).map((n) => join(dir, PACK_DIR, n)) : [];
const looseIn = (dir: string) =>
  readdirSync(dir)
    .filter((n) => /^[0-9a-f]{2}$/.test(n))
    .flatMap((s) => readdirSync(join(dir, s)));

beforeEach(() => {
  barrier.calls = 0;
  barrier.answer = () => Promise.resolve(true);
  collisions.clear();
});

describe('packs on the disk store', () => {
  it('stores a large batch of small originals in one pack file, and every one of them reads back exact', async () => {
    const { dir, store } = open();
    const texts = originals(300);
    const results = await store.putMany!(texts.map((original) => ({ original })));
    expect(results).toEqual(texts.map((t) => ({ ok: true, key: keyOf(t), created: true })));
    expect(packsIn(dir)).toHaveLength(1);
    expect(looseIn(dir)).toEqual([]);
    expect(barrier.calls).toBe(1);
    // Another process (a fresh store object) reads them, as `cg expand` does.
    const reader = createFsStore({ dir, ttlDays: 14, maxBytes: 1 << 30, compress: true });
    for (const t of texts) expect((await reader.get(keyOf(t)))?.toString('utf8')).toBe(t);
    expect(await reader.hasMany!(texts.map((t) => keyOf(t)))).toEqual(texts.map(() => true));
    expect(await reader.has!(keyOf(texts[7]!))).toBe(true);
    expect(await reader.has!(keyOf('never stored'))).toBe(false);
    expect(readdirSync(dir).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
  });

  it('holds in a pack exactly the bytes a loose entry file of the same original would hold', async () => {
    const { dir, store } = open();
    const texts = originals(90);
    await store.putMany!(texts.map((original) => ({ original })));
    const pack = readFileSync(packsIn(dir)[0]!);
    expect(pack.subarray(0, 8).toString('latin1')).toBe('CGPACK1\n');
    const loose = open();
    for (const t of [texts[0]!, texts.at(-1)!]) {
      const put = await loose.store.put(t);
      const file = readFileSync(entryPath(loose.dir, put.key));
      expect(pack.indexOf(file)).toBeGreaterThanOrEqual(8);
    }
    // The long one is gzipped, as put stores it.
    expect(readFileSync(entryPath(loose.dir, keyOf(texts.at(-1)!))).subarray(0, 2)).toEqual(
      Buffer.from([0x1f, 0x8b]),
    );
  });

  it('names no original of a batch until its pack is durable, so a crash before then leaves no key naming lost bytes', async () => {
    const { dir, store } = open();
    const texts = originals(64);
    let release!: (ok: boolean) => void;
    barrier.answer = () => new Promise<boolean>((r) => (release = r));
    const pending = store.putMany!(texts.map((original) => ({ original })));
    await vi.waitFor(() => expect(barrier.calls).toBe(1));
    // Held at the barrier (a crash here): the pack is only a temp file, nothing is under any key.
    expect(packsIn(dir)).toEqual([]);
    expect(readdirSync(dir).filter((n) => n.startsWith('.tmp-'))).toHaveLength(1);
    expect(await store.hasMany!(texts.map((t) => keyOf(t)))).toEqual(texts.map(() => false));
    for (const t of texts.slice(0, 3)) expect(await store.read!(keyOf(t))).toMatchObject({ found: false });
    release(true);
    expect((await pending).every((r) => r.ok)).toBe(true);
    expect(await store.hasMany!(texts.map((t) => keyOf(t)))).toEqual(texts.map(() => true));
    expect(readdirSync(dir).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
  });

  it('re-uses an original already in a pack rather than storing it again, and keeps its pack in use', async () => {
    const { dir, store } = open();
    const texts = originals(50);
    await store.putMany!(texts.map((original) => ({ original })));
    const [pack] = packsIn(dir);
    const old = new Date(Date.now() - 3 * DAY);
    utimesSync(pack!, old, old);
    const again = await store.put(texts[3]!);
    expect(again).toEqual({ ok: true, key: keyOf(texts[3]!), created: false });
    const batch = await store.putMany!(texts.map((original) => ({ original })));
    expect(batch.every((r) => r.ok && !r.created)).toBe(true);
    expect(packsIn(dir)).toHaveLength(1);
    expect(looseIn(dir)).toEqual([]);
    expect(statSync(pack!).mtimeMs).toBeGreaterThan(old.getTime() + DAY);
  });

  it('answers a small batch after a pack key by key, without merging the keys of every pack, and re-uses what the pack holds', async () => {
    const { dir, store } = open();
    const texts = originals(50);
    await store.putMany!(texts.map((original) => ({ original })));
    const merge = vi.spyOn(PackSet.prototype, 'holder');
    try {
      const batch = await store.putMany!([{ original: texts[7]! }, { original: 'a new tool result\n' }]);
      expect(batch.map((r) => r.ok && r.created)).toEqual([false, true]);
      expect(merge).not.toHaveBeenCalled();
      expect(packsIn(dir)).toHaveLength(1);
      expect(looseIn(dir)).toEqual([keyOf('a new tool result\n')]);
      // Many keys are still looked up in the merged keys.
      const many = await store.putMany!(texts.slice(0, 20).map((original) => ({ original })));
      expect(many.every((r) => r.ok && !r.created)).toBe(true);
      expect(merge).toHaveBeenCalled();
    } finally {
      merge.mockRestore();
    }
  });

  it('refuses an original whose key a different packed original holds (a collision), in put and in a batch', async () => {
    const { store } = open();
    const texts = originals(40);
    await store.putMany!(texts.map((original) => ({ original })));
    const intruder = 'a different original\n';
    collisions.set(keyOf(intruder), keyOf(texts[5]!));
    expect(await store.put(intruder)).toMatchObject({ ok: false, reason: 'collision' });
    const batch = await store.putMany!([...originals(40, 'y'), intruder].map((original) => ({ original })));
    expect(batch.at(-1)).toMatchObject({ ok: false, reason: 'collision' });
    expect((await store.get(keyOf(texts[5]!)))?.toString('utf8')).toBe(texts[5]);
  });

  it('touches the pack when one of its originals is expanded (LRU), and not when it is only peeked at', async () => {
    const { dir, store } = open();
    const texts = originals(40);
    await store.putMany!(texts.map((original) => ({ original })));
    const [pack] = packsIn(dir);
    const old = new Date(Date.now() - 3 * DAY);
    utimesSync(pack!, old, old);
    await store.peek!(keyOf(texts[0]!));
    expect(Math.abs(statSync(pack!).mtimeMs - old.getTime())).toBeLessThan(1);
    await store.get(keyOf(texts[0]!));
    expect(statSync(pack!).mtimeMs).toBeGreaterThan(old.getTime() + DAY);
  });

  it('counts a pack as the originals it holds in info, and prune and clear remove it whole', async () => {
    const { dir, store } = open({ ttlDays: 1 });
    const texts = originals(40);
    await store.putMany!(texts.map((original) => ({ original })));
    await store.put('one loose original\n'.repeat(20));
    const info = await store.info();
    expect(info.entries).toBe(41);
    expect(info.bytes).toBe(
      statSync(packsIn(dir)[0]!).size +
        statSync(entryPath(dir, keyOf('one loose original\n'.repeat(20)))).size,
    );
    const old = new Date(Date.now() - 2 * DAY);
    utimesSync(packsIn(dir)[0]!, old, old);
    const pruned = await store.prune({ force: true });
    expect(pruned).toMatchObject({ removed: 40, remaining: 1 });
    expect(packsIn(dir)).toEqual([]);
    expect(await store.get(keyOf(texts[0]!))).toBeUndefined();
    await store.putMany!(texts.map((original) => ({ original })));
    expect(await store.clear()).toBe(41);
    expect(existsSync(join(dir, PACK_DIR))).toBe(false);
    expect(await store.info()).toMatchObject({ entries: 0, bytes: 0 });
  });

  it('evicts the least recently used pack whole when the store is over its cap', async () => {
    const { dir, opts } = open();
    const writer = createFsStore(opts);
    const a = originals(40, 'a');
    const b = originals(40, 'b');
    await writer.putMany!(a.map((original) => ({ original })));
    const [packA] = packsIn(dir);
    await writer.putMany!(b.map((original) => ({ original })));
    const packB = packsIn(dir).find((p) => p !== packA)!;
    utimesSync(packA!, new Date(Date.now() - 2 * DAY), new Date(Date.now() - 2 * DAY));
    utimesSync(packB, new Date(Date.now() - DAY), new Date(Date.now() - DAY));
    const capped = createFsStore({ ...opts, maxBytes: statSync(packB).size + 10 });
    expect(await capped.prune({ force: true })).toMatchObject({ removed: 40, remaining: 40 });
    expect(await capped.get(keyOf(a[0]!))).toBeUndefined();
    expect((await capped.get(keyOf(b[0]!)))?.toString('utf8')).toBe(b[0]);
  });

  it('reads a damaged pack as holding nothing, never as other bytes, and stores the original anew', async () => {
    const { dir, store } = open();
    const texts = originals(40);
    await store.putMany!(texts.map((original) => ({ original })));
    const [pack] = packsIn(dir);
    // Its data overwritten in the middle: the index still points there, the bytes are not the originals'.
    const bytes = readFileSync(pack!);
    bytes.fill(0x41, 8, bytes.length - 2000);
    writeFileSync(pack!, bytes);
    const reader = createFsStore({ dir, ttlDays: 14, maxBytes: 1 << 30, compress: true });
    for (const t of texts.slice(0, 5)) expect(await reader.get(keyOf(t))).toBeUndefined();
    expect(await reader.put(texts[0]!)).toEqual({ ok: true, key: keyOf(texts[0]!), created: true });
    expect((await reader.get(keyOf(texts[0]!)))?.toString('utf8')).toBe(texts[0]);
    // Truncated to half: not a pack at all.
    truncateSync(pack!, Math.floor(bytes.length / 2));
    const other = createFsStore({ dir, ttlDays: 14, maxBytes: 1 << 30, compress: true });
    expect(await other.get(keyOf(texts[1]!))).toBeUndefined();
    expect(await other.has!(keyOf(texts[1]!))).toBe(false);
  });

  it('stores a batch loose, each original by itself, where no pack can be written', async () => {
    const { dir, store } = open();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, PACK_DIR), 'not a directory');
    const texts = originals(40);
    const results = await store.putMany!(texts.map((original) => ({ original })));
    expect(results.every((r) => r.ok && r.created)).toBe(true);
    expect(looseIn(dir)).toHaveLength(40);
    for (const t of texts) expect((await store.get(keyOf(t)))?.toString('utf8')).toBe(t);
  });

  it('keeps an original of over 1 MiB stored form loose, beside the pack of the small ones', async () => {
    const { dir, store } = open({ compress: false });
    const big = 'x'.repeat((1 << 20) + 10);
    const texts = [...originals(40), big];
    const results = await store.putMany!(texts.map((original) => ({ original })));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(looseIn(dir)).toEqual([keyOf(big)]);
    expect((await store.get(keyOf(big)))?.length).toBe(big.length);
  });

  it('lets two writers store overlapping batches at once, each original readable exact afterwards', async () => {
    const { dir, opts } = open();
    const one = createFsStore(opts);
    const two = createFsStore(opts);
    const shared = originals(60, 's');
    const a = [...shared, ...originals(30, 'a')];
    const b = [...originals(30, 'b'), ...shared];
    const [ra, rb] = await Promise.all([
      one.putMany!(a.map((original) => ({ original }))),
      two.putMany!(b.map((original) => ({ original }))),
    ]);
    expect([...ra, ...rb].every((r) => r.ok)).toBe(true);
    const reader = createFsStore(opts);
    for (const t of [...a, ...b]) expect((await reader.get(keyOf(t)))?.toString('utf8')).toBe(t);
    expect(packsIn(dir).length).toBeGreaterThanOrEqual(1);
  });

  it('answers many keys at once across many packs, and forgets a pack once a prune removed it', async () => {
    const { dir, store } = open({ ttlDays: 1 });
    const batches = Array.from({ length: 12 }, (_, b) => originals(40, `batch${b}`));
    for (const texts of batches) await store.putMany!(texts.map((original) => ({ original })));
    expect(packsIn(dir)).toHaveLength(12);
    const all = batches.flat();
    const asked = [...all.map((t) => keyOf(t)), keyOf('never stored'), keyOf('nor this')];
    expect(await store.hasMany!(asked)).toEqual([...all.map(() => true), false, false]);
    // The first batch's pack grows old and is pruned: the same store object no longer claims its keys.
    const first = packsIn(dir).find((p) => readFileSync(p).includes(Buffer.from('batch0 tool result 0\n')))!;
    const old = new Date(Date.now() - 2 * DAY);
    utimesSync(first, old, old);
    expect(await store.prune({ force: true })).toMatchObject({ removed: 40 });
    const after = await store.hasMany!(asked);
    expect(after.slice(0, 40).some(Boolean)).toBe(false);
    expect(after.slice(40, all.length).every(Boolean)).toBe(true);
  });

  it('keeps packs private to the user, and never lists packs through a link where the pack directory belongs', async () => {
    const { dir, store } = open();
    const texts = originals(40);
    await store.putMany!(texts.map((original) => ({ original })));
    expect(statSync(join(dir, PACK_DIR)).mode & 0o777).toBe(0o700);
    expect(statSync(packsIn(dir)[0]!).mode & 0o777).toBe(0o600);
    // The pack directory moved elsewhere and a link left in its place: nothing is read through it.
    const elsewhere = join(tempDir('cg-pack-elsewhere-'), 'packs');
    fs.renameSync(join(dir, PACK_DIR), elsewhere);
    fs.symlinkSync(elsewhere, join(dir, PACK_DIR));
    const reader = createFsStore({ dir, ttlDays: 14, maxBytes: 1 << 30, compress: true });
    expect(await reader.get(keyOf(texts[0]!))).toBeUndefined();
    expect(await reader.hasMany!(texts.map((t) => keyOf(t)))).toEqual(texts.map(() => false));
    // A prune removes the link (never what it points to); the next batch makes a real directory.
    await reader.prune({ force: true });
    expect(fs.lstatSync(join(dir, PACK_DIR), { throwIfNoEntry: false })).toBeUndefined();
    expect(readdirSync(elsewhere)).toHaveLength(1);
  });

  it('stores an original again once its pack is gone, even right after a re-use refreshed that pack', async () => {
    const { dir, store } = open({ ttlDays: 1 });
    const texts = originals(40);
    await store.putMany!(texts.map((original) => ({ original })));
    expect(await store.put(texts[1]!)).toMatchObject({ ok: true, created: false });
    const [pack] = packsIn(dir);
    const old = new Date(Date.now() - 2 * DAY);
    utimesSync(pack!, old, old);
    await store.prune({ force: true });
    expect(packsIn(dir)).toEqual([]);
    expect(await store.put(texts[2]!)).toEqual({ ok: true, key: keyOf(texts[2]!), created: true });
    expect((await store.get(keyOf(texts[2]!)))?.toString('utf8')).toBe(texts[2]);
  });

  it('still reads loose entries an older cg wrote, beside packs', async () => {
    const { dir, store } = open();
    const old = 'written by an older cg\n'.repeat(100);
    const key = keyOf(old);
    mkdirSync(join(dir, key.slice(0, 2)), { recursive: true });
    writeFileSync(entryPath(dir, key), old);
    await store.putMany!(originals(40).map((original) => ({ original })));
    expect((await store.get(key))?.toString('utf8')).toBe(old);
    expect((await store.info()).entries).toBe(41);
  });
  it('re-uses a loose entry a large batch holds, and packs the originals whose shard is not even there', async () => {
    const { dir, store } = open();
    const texts = originals(40, 'y');
    const key = keyOf(texts[5]!);
    mkdirSync(join(dir, key.slice(0, 2)), { recursive: true });
    writeFileSync(entryPath(dir, key), texts[5]!);
    const results = await store.putMany!(texts.map((original) => ({ original })));
    expect(results[5]).toEqual({ ok: true, key, created: false });
    expect(results.filter((r) => r.ok && r.created)).toHaveLength(39);
    expect(looseIn(dir)).toEqual([key]);
    for (const t of texts) expect((await store.get(keyOf(t)))?.toString('utf8')).toBe(t);
  });
});

describe('the pack file format', () => {
  it('finds every key a pack holds, first bytes 00 and ff included, at its own bytes, and no key it does not hold', async () => {
    const { createPack, linkNew, PackSet, readSlot } = await import('../../../src/store/fs-pack.js');
    const dir = tempDir('cg-packfmt-');
    mkdirSync(join(dir, PACK_DIR));
    const keys = ['0000000000000000', '00000000000000ff', 'ffffffffffffffff', '7f00000000000001'];
    for (let i = 0; i < 500; i++) keys.push(keyOf(`k${i}`));
    const data = new Map(keys.map((k, i) => [k, Buffer.from(`data of ${k} ${'x'.repeat(i % 37)}`)]));
    const { fd, writer } = createPack(join(dir, '.tmp-pack'));
    for (const [k, d] of data) writer.add(k, d);
    writer.finish();
    fs.closeSync(fd);
    linkNew(join(dir, '.tmp-pack'), join(dir, PACK_DIR));
    const set = new PackSet(dir);
    set.refresh();
    for (const [k, d] of data) {
      const [slot, ...more] = set.find(k);
      expect(more).toEqual([]);
      expect(readSlot(slot!).equals(d)).toBe(true);
    }
    const absent = ['0000000000000001', 'fffffffffffffffe', '8000000000000000'];
    for (const k of absent) expect(set.find(k)).toEqual([]);
    // Asked for many keys at once: every pack's keys merged, the same answers.
    const held = new PackSet(dir);
    held.refresh();
    const holds = held.holder();
    for (const k of data.keys()) expect(holds(k)).toBe(true);
    for (const k of absent) expect(holds(k)).toBe(false);
  });
});
