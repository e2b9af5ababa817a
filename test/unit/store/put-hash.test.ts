import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFsStore, STORE_DEFAULTS } from '../../../src/store/fs-store.js';
import { keyOf } from '../../../src/store/keys.js';
import { tempDir } from '../../helpers.js';

// keys.ts loads node:crypto through require; spying on that module object sees every hash it starts.
const crypto = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');

afterEach(() => vi.restoreAllMocks());

describe('the disk store put of bytes already keyed', () => {
  it('hashes the input once when the pipeline keyed the same Buffer before stashing it', async () => {
    const store = createFsStore({ ...STORE_DEFAULTS, dir: join(tempDir('cg-put-hash-'), 'store') });
    const text = 'line of a large output\n'.repeat(2000);
    const bytes = Buffer.from(text, 'utf8');
    const hashes = vi.spyOn(crypto, 'createHash');
    const key = keyOf(bytes); // the marker's key, as judge places it
    const put = await store.put(text, bytes);
    expect(put).toEqual({ ok: true, key, created: true });
    expect(hashes).toHaveBeenCalledTimes(1);
  });

  it('hashes each original of a batch once when the pipeline keyed the same Buffers before stashing them', async () => {
    const store = createFsStore({ ...STORE_DEFAULTS, dir: join(tempDir('cg-put-hash-'), 'store') });
    const texts = Array.from({ length: 40 }, (_, i) => `result ${i}\n`.repeat(100));
    const items = texts.map((original) => ({ original, bytes: Buffer.from(original, 'utf8') }));
    const keys = items.map((i) => keyOf(i.bytes)); // the markers' keys, as judge places them
    const hashes = vi.spyOn(crypto, 'createHash');
    const results = await store.putMany!(items);
    expect(results.map((r) => r.ok && r.key)).toEqual(keys);
    expect(hashes.mock.calls.length).toBeLessThan(items.length);
    expect((await store.get(keys[7]!))?.toString('utf8')).toBe(texts[7]);
  });

  it('still keys a Uint8Array that is not a Buffer by its bytes', async () => {
    const store = createFsStore({ ...STORE_DEFAULTS, dir: join(tempDir('cg-put-hash-'), 'store') });
    const text = 'naïve — 日本語\n'.repeat(100);
    const view = new Uint8Array(Buffer.from(text, 'utf8'));
    const put = await store.put(text, view);
    expect(put.ok && put.key).toBe(keyOf(text));
    expect((await store.get(keyOf(text)))?.toString('utf8')).toBe(text);
  });
});
