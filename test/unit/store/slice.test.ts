import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { compileGrep, parseLineRange, sliceOriginal } from '../../../src/store/slice.js';

const text = 'one\ntwo\nthree\nfour\nfive\n';

describe('slices of an original', () => {
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

  it('prints grep matches with their line numbers, within the range when both are given', async () => {
    expect(sliceOriginal(text, undefined, await compileGrep('o'))).toBe('1:one\n2:two\n4:four\n');
    expect(sliceOriginal(text, { from: 2, to: 5 }, await compileGrep('^f'))).toBe('4:four\n5:five\n');
  });

  it('greps with RE2, so a pattern that backtracks for ever in JavaScript answers at once', async () => {
    // /(a+)+$/ on 40 a's and a b takes longer than the universe has left in a backtracking engine.
    const evil = `${'a'.repeat(40)}b\n${'a'.repeat(40)}\n`;
    expect(sliceOriginal(evil, undefined, await compileGrep('(a+)+$'))).toBe(`2:${'a'.repeat(40)}\n`);
  });

  it('refuses look-around and bad patterns as usage errors that name the option', async () => {
    await expect(compileGrep('foo(?=bar)')).rejects.toThrow(/^--grep: "foo\(\?=bar\)" uses a look-ahead/);
    await expect(compileGrep('(\\w)\\1', 'grep')).rejects.toThrow(/^grep: .*back-reference/);
    await expect(compileGrep('a(b')).rejects.toThrow(UsageError);
    await expect(compileGrep('a(b')).rejects.toThrow(
      /^--grep: "a\(b" is not a valid RE2 regular expression: /,
    );
  });
});
