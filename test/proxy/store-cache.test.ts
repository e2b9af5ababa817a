import { describe, expect, it } from 'vitest';
import { storeCache } from '../../src/proxy/store-cache.js';
import { keyOf } from '../../src/store/keys.js';
import type { PutResult, Store } from '../../src/store/store.js';

function countingStore(fail = new Set<string>()): Store & { puts: string[]; release(): void } {
  const puts: string[] = [];
  let release!: () => void;
  let gate = new Promise<void>((r) => {
    release = r;
  });
  const s = {
    dir: '/mem',
    puts,
    release: () => {
      release();
      gate = Promise.resolve();
    },
    writable: async () => true,
    put: async (original: string): Promise<PutResult> => {
      puts.push(original);
      await gate;
      const key = keyOf(original);
      return fail.has(original)
        ? { ok: false, key, reason: 'unwritable', detail: 'full' }
        : { ok: true, key, created: true };
    },
    get: async () => undefined,
    info: async () => ({ dir: '/mem', entries: 0, bytes: 0, ttlDays: 0, maxBytes: 0, compress: false }),
    prune: async () => ({ removed: 0, freedBytes: 0, remaining: 0, remainingBytes: 0 }),
    clear: async () => 0,
  };
  return s;
}

describe('the proxy store cache', () => {
  it('answers a put at once, and flush waits until the original is really stored', async () => {
    const inner = countingStore();
    const r = storeCache(inner).forRequest();
    expect(await r.put('original one')).toMatchObject({ ok: true, key: keyOf('original one') });
    let flushed = false;
    const f = r.flush().then((x) => {
      flushed = true;
      return x;
    });
    await new Promise((res) => setTimeout(res, 20));
    expect(flushed).toBe(false);
    inner.release();
    expect(await f).toEqual([]);
  });

  it('stores an original once, whichever later request or turn puts it again', async () => {
    const inner = countingStore();
    inner.release();
    const cache = storeCache(inner);
    const a = cache.forRequest();
    const b = cache.forRequest();
    await a.put('same');
    await b.put('same');
    expect(await a.flush()).toEqual([]);
    expect(await b.flush()).toEqual([]);
    await cache.forRequest().put('same');
    expect(inner.puts).toEqual(['same']);
  });

  it('reports a failed put to every request that used that original, and tries it again later', async () => {
    const inner = countingStore(new Set(['bad']));
    inner.release();
    const cache = storeCache(inner);
    const a = cache.forRequest();
    const b = cache.forRequest();
    await a.put('bad');
    await b.put('bad');
    await a.put('good');
    expect(await a.flush()).toEqual(['unwritable: full']);
    expect(await b.flush()).toEqual(['unwritable: full']);
    const tried = inner.puts.filter((p) => p === 'bad').length;
    const c = cache.forRequest();
    await c.put('bad');
    expect(await c.flush()).toEqual(['unwritable: full']);
    expect(inner.puts.filter((p) => p === 'bad')).toHaveLength(tried + 1);
  });
});

/** A store with putMany and hasMany, counting batches, whose removals a test announces. */
function batchingStore() {
  const entries = new Set<string>();
  let removed = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const s = {
    dir: '/mem',
    batches: [] as string[][],
    asked: [] as string[][],
    release: () => release(),
    remove(key: string) {
      entries.delete(key);
      removed++;
    },
    writable: async () => true,
    put: async (original: string): Promise<PutResult> => {
      throw new Error(`put of ${original}: a batch was expected`);
    },
    putMany: async (items: readonly { original: string }[]): Promise<PutResult[]> => {
      s.batches.push(items.map((i) => i.original));
      await gate;
      return items.map((i) => {
        entries.add(keyOf(i.original));
        return { ok: true, key: keyOf(i.original), created: true };
      });
    },
    hasMany: async (keys: readonly string[]) => {
      s.asked.push([...keys]);
      return keys.map((k) => entries.has(k));
    },
    removedAt: async () => removed,
    get: async () => undefined,
    info: async () => ({ dir: '/mem', entries: 0, bytes: 0, ttlDays: 0, maxBytes: 0, compress: false }),
    prune: async () => ({ removed: 0, freedBytes: 0, remaining: 0, remainingBytes: 0 }),
    clear: async () => 0,
  };
  return s;
}

describe('the proxy store cache with a batching store', () => {
  it("stores a request's originals as one batch when it flushes, and answers only once all are persisted", async () => {
    const inner = batchingStore();
    const r = storeCache(inner).forRequest();
    for (const t of ['one', 'two', 'three', 'two']) await r.put(t);
    expect(inner.batches).toEqual([]);
    let flushed = false;
    const f = r.flush().then((x) => {
      flushed = true;
      return x;
    });
    await new Promise((res) => setTimeout(res, 20));
    expect(inner.batches).toEqual([['one', 'two', 'three']]);
    expect(flushed).toBe(false);
    inner.release();
    expect(await f).toEqual([]);
  });

  it('knows a stored original is there without asking the store again, until the store says entries were removed', async () => {
    const inner = batchingStore();
    inner.release();
    const cache = storeCache(inner);
    await cache.refresh(); // as the proxy does at the start of every turn
    const first = cache.forRequest();
    await first.put('kept');
    await first.flush();
    await cache.refresh();
    expect(await cache.forRequest().hasMany!([keyOf('kept')])).toEqual([true]);
    expect(inner.asked).toEqual([]);
    inner.remove(keyOf('kept'));
    await cache.refresh();
    expect(await cache.forRequest().hasMany!([keyOf('kept')])).toEqual([false]);
    expect(inner.asked).toEqual([[keyOf('kept')]]);
  });
});
