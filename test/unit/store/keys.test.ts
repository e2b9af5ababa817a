import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isKey, keyOf } from '../../../src/store/keys.js';

describe('keyOf', () => {
  it('is the first 64 bits of SHA-256 as 16 lowercase hex', () => {
    // Known SHA-256 vectors: '' → e3b0c442…, 'abc' → ba7816bf…
    expect(keyOf('')).toBe('e3b0c44298fc1c14');
    expect(keyOf('abc')).toBe('ba7816bf8f01cfea');
  });

  it('hashes the UTF-8 bytes, so a string and its encoded bytes share a key', () => {
    for (const text of ['plain', 'naïve — 日本語 🎉', 'lone surrogate \uD800 here']) {
      expect(keyOf(text)).toBe(keyOf(Buffer.from(text, 'utf8')));
    }
    expect(keyOf('é')).toBe(
      createHash('sha256')
        .update(Buffer.from([0xc3, 0xa9]))
        .digest('hex')
        .slice(0, 16),
    );
  });

  it('gives different keys to different content and the same key to the same content', () => {
    expect(keyOf('a')).not.toBe(keyOf('b'));
    expect(keyOf('same')).toBe(keyOf('same'));
  });

  it('always produces a valid key', () => {
    for (const text of ['', 'x', '\u0000', '🎉'.repeat(1000)]) expect(isKey(keyOf(text))).toBe(true);
  });
});

describe('isKey', () => {
  it('accepts exactly 16 lowercase hex digits', () => {
    expect(isKey('0123456789abcdef')).toBe(true);
    expect(isKey('ffffffffffffffff')).toBe(true);
  });

  it.each([
    ['upper-case hex', '0123456789ABCDEF'],
    ['15 digits', '0123456789abcde'],
    ['17 digits', '0123456789abcdef0'],
    ['a non-hex letter', '0123456789abcdeg'],
    ['a trailing newline', '0123456789abcdef\n'],
    ['surrounding space', ' 0123456789abcdef'],
    ['a path traversal', '../../etc/passwd'],
    ['a marker', '<<cg:0123456789abcdef>>'],
    ['the empty string', ''],
  ])('rejects %s', (_name, value) => {
    expect(isKey(value)).toBe(false);
  });
});
