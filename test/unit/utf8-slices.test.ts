import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameUtf8, sliceEnd, utf8Slices } from '../../src/utf8-slices.js';

describe('a text a slice of UTF-8 at a time', () => {
  it('never ends a slice between the halves of a surrogate pair', () => {
    const text = `${'a'.repeat(9)}😀b`; // the pair sits at units 9 and 10
    expect(sliceEnd(text, 0, 10)).toBe(11);
    expect([...utf8Slices(text, 10)]).toEqual([`${'a'.repeat(9)}😀`, 'b']);
  });

  it('encodes, slice after slice, exactly to the whole text’s UTF-8, lone surrogates included', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 200 }),
        fc.integer({ min: 1, max: 7 }),
        (text, units) => {
          const parts = [...utf8Slices(text, units)].map((s) => Buffer.from(s, 'utf8'));
          expect(Buffer.concat(parts).equals(Buffer.from(text, 'utf8'))).toBe(true);
        },
      ),
    );
  });

  it('tells the text’s own bytes from bytes one short, one long or one byte different', () => {
    const text = `naïve — 日本語 😀\n`.repeat(200_000); // several slices
    const bytes = Buffer.from(text, 'utf8');
    expect(sameUtf8(bytes, text)).toBe(true);
    expect(sameUtf8(bytes.subarray(0, bytes.length - 1), text)).toBe(false);
    expect(sameUtf8(Buffer.concat([bytes, Buffer.from('x')]), text)).toBe(false);
    const changed = Buffer.from(bytes);
    changed[3_500_000] = (changed[3_500_000]! + 1) & 0x7f;
    expect(sameUtf8(changed, text)).toBe(false);
  });
});
