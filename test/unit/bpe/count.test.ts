import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it, vi } from 'vitest';
import { LONG_PIECE, mayHoldLongPiece } from '../../../src/bpe/count.js';
import { createTokens } from '../../../src/tokens.js';
import { seededRandom } from '../../helpers.js';

/** The longest pre-token each call to gpt-tokenizer's count was given (the cost of its merge). */
const seen = vi.hoisted(() => ({ longest: 0 }));

vi.mock('gpt-tokenizer/encoding/o200k_base', async (importOriginal) => {
  const real = await importOriginal<typeof import('gpt-tokenizer/encoding/o200k_base')>();
  const split = (await import('gpt-tokenizer/encodingParams/constants')).O200K_TOKEN_SPLIT_REGEX;
  return {
    ...real,
    countTokens: (text: string, opts?: Parameters<typeof real.countTokens>[1]) => {
      let longest = 0;
      for (const m of text.matchAll(split)) longest = Math.max(longest, m[0].length);
      seen.longest = Math.max(seen.longest, longest);
      // Too long to merge in a test's time: the assertion below is what fails, not the clock.
      return longest > 20_000 ? 0 : real.countTokens(text, opts);
    },
  };
});

describe('exact counts in linear time', () => {
  it('never hands gpt-tokenizer a pre-token long enough for its quadratic merge', async () => {
    const t = createTokens('o200k');
    seen.longest = 0;
    const shapes = [
      'a'.repeat(1 << 20),
      '中文字符测试'.repeat(60_000),
      '['.repeat(200_000) + ']'.repeat(200_000),
      ' '.repeat(300_000),
      `log line\n${'x'.repeat(500_000)}\nend\n`,
    ];
    for (const text of shapes) expect(await t.count(text)).toBeGreaterThan(0);
    expect(seen.longest).toBeLessThan(LONG_PIECE);
  });

  it('finds no long pre-token in ordinary text, so gpt-tokenizer counts it directly', () => {
    expect(mayHoldLongPiece('the quick brown fox jumps over the lazy dog\n'.repeat(1000))).toBe(false);
    expect(mayHoldLongPiece(`{"id": 12345678901234567890, "ok": true}\n`.repeat(100))).toBe(false);
    expect(mayHoldLongPiece('x'.repeat(LONG_PIECE))).toBe(true);
  });

  it.each([
    ['o200k', O200K_TOKEN_SPLIT_REGEX],
    ['cl100k', CL100K_TOKEN_SPLIT_REGEX],
  ] as const)('sees every %s pre-token of LONG_PIECE units or more as possibly long', (_name, split) => {
    const rnd = seededRandom(11);
    const alphabet = [
      'a',
      'Z',
      '中',
      '[',
      '/',
      ' ',
      '\n',
      '\r',
      '\t',
      "'",
      's',
      '1',
      '\u00a0',
      'é',
      '\u0301',
    ];
    for (let k = 0; k < 2000; k++) {
      let s = '';
      const len = Math.floor(rnd() * 400);
      const bias = alphabet[Math.floor(rnd() * alphabet.length)]!;
      while (s.length < len) s += rnd() < 0.8 ? bias : alphabet[Math.floor(rnd() * alphabet.length)]!;
      const long = [...s.matchAll(split)].some((m) => m[0].length >= LONG_PIECE);
      if (long) expect(mayHoldLongPiece(s)).toBe(true);
    }
  });
});
