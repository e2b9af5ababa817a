import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyOf } from '../../../src/store/keys.js';
import { sha256Key } from '../../../src/store/sha256.js';

const native = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex').slice(0, 16);

describe('the JavaScript SHA-256 of small originals', () => {
  it('is node:crypto digest on every length around the block and padding edges', () => {
    for (let n = 0; n <= 200; n++) {
      const data = Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) & 0xff);
      expect(sha256Key(data), `${n} bytes`).toBe(native(data));
    }
    expect(sha256Key(new TextEncoder().encode('abc'))).toBe('ba7816bf8f01cfea');
  });

  it('is node:crypto digest on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), (data) => {
        expect(sha256Key(data)).toBe(native(data));
      }),
      { numRuns: 300 },
    );
  });

  it('gives keyOf the key node:crypto gives, for any text, lone surrogates included', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 300 }),
        fc.constantFrom('', '\ud800', 'x\udc00'),
        (t, odd) => {
          const text = t + odd;
          expect(keyOf(text)).toBe(native(Buffer.from(text, 'utf8')));
          const bytes = Buffer.from(text, 'utf8');
          expect(keyOf(bytes)).toBe(native(bytes));
        },
      ),
      { numRuns: 300 },
    );
  });
});
