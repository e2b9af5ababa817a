import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { LONG_PIECE } from '../../../src/bpe/count.js';
import { createTokens } from '../../../src/tokens.js';

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

  it.each(['o200k', 'cl100k'] as const)(
    "counts every text as gpt-tokenizer's %s does, byte-order marks, lone surrogates and special-token spellings included, and a piece met again as it was counted first",
    async (name) => {
      const real =
        name === 'o200k'
          ? await vi.importActual<typeof import('gpt-tokenizer/encoding/o200k_base')>(
              'gpt-tokenizer/encoding/o200k_base',
            )
          : await import('gpt-tokenizer/encoding/cl100k_base');
      const exact = (t: string) => real.countTokens(t, { disallowedSpecial: new Set() });
      const t = createTokens(name);
      const parts = [
        'a',
        'the',
        ' quick',
        'HTTP',
        'Über',
        "'s",
        "'ll",
        '0',
        '123',
        '4567',
        ' ',
        '   ',
        '\t',
        '\n',
        '\r\n',
        '{"id": 7}',
        '[',
        '//',
        'é',
        '日本語',
        '\u0301',
        '\u00a0',
        '🎉',
        '\ud800',
        '\udc00x',
        '\ufeff',
        '\ufeffusing',
        'x\ufeffy',
        '<|endoftext|>',
        '<|fim_prefix|>',
        'zzqxjv',
        '\u0000',
        '\u00ff\u00fe',
        // U+FFFD has a lone surrogate's bytes; merged pieces are remembered by their bytes.
        '\ufffd',
        'x\ufffdq',
        'x\ud800q',
        'qzxjvkw'.repeat(6),
      ];
      await fc.assert(
        fc.asyncProperty(fc.array(fc.constantFrom(...parts), { maxLength: 50 }), async (p) => {
          const text = p.join('');
          expect(await t.count(text)).toBe(exact(text));
        }),
        { numRuns: 1500 },
      );
    },
  );
});
