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
    const c = cache.forRequest();
    await c.put('bad');
    expect(await c.flush()).toEqual(['unwritable: full']);
    expect(inner.puts.filter((p) => p === 'bad')).toHaveLength(2);
  });
});
