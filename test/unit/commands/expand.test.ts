import { describe, expect, it } from 'vitest';
import { parseLineRange, sliceOriginal } from '../../../src/commands/expand.js';
import { UsageError } from '../../../src/errors.js';

const text = 'one\ntwo\nthree\nfour\nfive\n';

describe('expand slices', () => {
  it('parses A-B, A-, -B and A as 1-based inclusive ranges', () => {
    expect(parseLineRange('2-4')).toEqual({ from: 2, to: 4 });
    expect(parseLineRange('3-')).toEqual({ from: 3, to: Number.POSITIVE_INFINITY });
    expect(parseLineRange('-2')).toEqual({ from: 1, to: 2 });
    expect(parseLineRange('5')).toEqual({ from: 5, to: 5 });
  });

  it('refuses ranges that are not ranges', () => {
    for (const bad of ['', 'x', '0-3', '4-2', '1-2-3', '-'])
      expect(() => parseLineRange(bad)).toThrow(UsageError);
  });

  it('returns exactly the asked lines, and the whole text when nothing is asked', () => {
    expect(sliceOriginal(text, { from: 2, to: 3 })).toBe('two\nthree\n');
    expect(sliceOriginal(text, { from: 4, to: Number.POSITIVE_INFINITY })).toBe('four\nfive\n');
    expect(sliceOriginal(text, { from: 9, to: 12 })).toBe('');
    expect(sliceOriginal(text)).toBe(text);
  });

  it('prints grep matches with their line numbers, within the range when both are given', () => {
    expect(sliceOriginal(text, undefined, /o/)).toBe('1:one\n2:two\n4:four\n');
    expect(sliceOriginal(text, { from: 2, to: 5 }, /^f/)).toBe('4:four\n5:five\n');
  });
});
