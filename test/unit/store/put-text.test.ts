import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFsStore, entryPath, STORE_DEFAULTS } from '../../../src/store/fs-store.js';
import { keyOf, SLICED_MIN } from '../../../src/store/keys.js';
import { tempDir } from '../../helpers.js';

const crypto = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');

afterEach(() => vi.restoreAllMocks());

/** A text past SLICED_MIN whose surrogate pairs straddle many slice boundaries. */
function largeText(): string {
  const line = 'naïve — 日本語 😀 line of a large log, id=';
  let s = '';
  for (let i = 0; s.length < SLICED_MIN + 1000; i++) s += `${line}${i}\n${i % 7 === 0 ? '😀' : ''}`;
  return s;
}

describe('the disk store put of a large text nobody holds the bytes of', () => {
  const text = largeText();
  const bytes = Buffer.from(text, 'utf8');

  it('keys it as its whole encoding is keyed, hashing it once for the marker and the stash', async () => {
    expect(keyOf(text)).toBe(keyOf(bytes));
    const store = createFsStore({ ...STORE_DEFAULTS, dir: join(tempDir('cg-put-text-'), 'store') });
    const hashes = vi.spyOn(crypto, 'createHash');
    const other = `${text}x`; // a text not hashed yet, so the memo is the marker's
    const key = keyOf(other);
    expect(await store.put(other, undefined)).toEqual({ ok: true, key, created: true });
    expect(hashes).toHaveBeenCalledTimes(1);
  });

  it('stores bytes that read back exact, as one gzip stream any gunzip reads', async () => {
    const dir = join(tempDir('cg-put-text-'), 'store');
    const store = createFsStore({ ...STORE_DEFAULTS, dir });
    const put = await store.put(text, undefined);
    expect(put).toEqual({ ok: true, key: keyOf(bytes), created: true });
    expect((await store.get(keyOf(bytes)))!.equals(bytes)).toBe(true);
    expect(gunzipSync(readFileSync(entryPath(dir, keyOf(bytes)))).equals(bytes)).toBe(true);
  });

  it('reads back exact when a later slice needs more bytes than the ones before it (ASCII, then CJK and emoji)', async () => {
    const dir = join(tempDir('cg-put-text-'), 'store');
    const store = createFsStore({ ...STORE_DEFAULTS, dir });
    // Slices of ASCII first, then three-byte and four-byte characters: each worker's buffer grows.
    let wide = 'a'.repeat(SLICED_MIN);
    while (wide.length < SLICED_MIN * 1.5) wide += '日本語😀の行\n';
    const wideBytes = Buffer.from(wide, 'utf8');
    expect((await store.put(wide, undefined)).ok).toBe(true);
    expect((await store.get(keyOf(wideBytes)))!.equals(wideBytes)).toBe(true);
    expect(gunzipSync(readFileSync(entryPath(dir, keyOf(wideBytes)))).equals(wideBytes)).toBe(true);
  });

  it('re-uses the entry a second put finds, and replaces a damaged one', async () => {
    const dir = join(tempDir('cg-put-text-'), 'store');
    const store = createFsStore({ ...STORE_DEFAULTS, dir });
    const key = keyOf(bytes);
    await store.put(text, undefined);
    expect(await store.put(text, undefined)).toEqual({ ok: true, key, created: false });
    writeFileSync(entryPath(dir, key), 'not what was stored');
    expect(await store.put(text, undefined)).toEqual({ ok: true, key, created: true });
    expect((await store.get(key))!.equals(bytes)).toBe(true);
  });
});
