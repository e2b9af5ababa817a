import { describe, expect, it } from 'vitest';
import { fewerWithTag, tagBound } from '../../src/never-worse.js';
import { createTokens, MAX_TOKEN_BYTES } from '../../src/tokens.js';

describe('tokens', () => {
  it('counts text containing special-token spellings as ordinary text', async () => {
    const t = createTokens('o200k');
    expect(await t.count('before <|endoftext|> after')).toBeGreaterThan(3);
    expect(await createTokens('cl100k').count('<|endoftext|><|fim_prefix|>')).toBeGreaterThan(2);
  });

  it('decides easy comparisons from byte bounds without loading the tokenizer', async () => {
    const t = createTokens('o200k');
    expect(await t.exceeds('x'.repeat(100), 2000)).toBe(false);
    expect(await t.exceeds('y'.repeat(MAX_TOKEN_BYTES * 2001), 2000)).toBe(true);
    expect(await t.fewer('short', 'z'.repeat(MAX_TOKEN_BYTES * 10))).toBe(true);
    expect(await t.fewer('z'.repeat(MAX_TOKEN_BYTES * 10), 'short')).toBe(false);
    expect(t.exactCounts).toBe(0);
  });

  it('counts exactly when the bounds cannot decide', async () => {
    const t = createTokens('o200k');
    const text = 'the quick brown fox jumps over the lazy dog '.repeat(20);
    const n = await t.count(text);
    expect(await t.exceeds(text, n - 1)).toBe(true);
    expect(await t.exceeds(text, n)).toBe(false);
    expect(t.exactCounts).toBe(1);
  });

  it.each(['o200k', 'cl100k'] as const)(
    'bounds %s tokens from below by pieces, the same whatever was counted before',
    async (name) => {
      const texts = [
        'function f(a: number, b?: string): void { return; }\n',
        '    if (x) {\n\t\treturn   y;\n    }\r\n',
        'Ünïcödé wörds, 12345678 digits, emoji 🎉🎉 and <|endoftext|> text',
        '',
      ];
      const fresh = createTokens(name);
      const before = await Promise.all(texts.map((t) => fresh.atLeast(t)));
      expect(fresh.exactCounts).toBe(0);
      for (const [i, t] of texts.entries()) {
        const exact = await fresh.count(t);
        expect(before[i]).toBeLessThanOrEqual(exact);
        expect(before[i]).toBeGreaterThanOrEqual(Math.ceil(exact / 2));
        expect(await fresh.atLeast(t)).toBe(before[i]);
      }
    },
  );

  it('decides a rewrite fewer bytes than its input has pieces without the tokenizer', async () => {
    const t = createTokens('o200k');
    const input = 'const value = compute(alpha, beta, gamma);\n'.repeat(50);
    const bound = tagBound(' [full output: cg expand {key}]', undefined);
    expect(await fewerWithTag(t, 'const value = compute(…);\n', bound, input)).toBe(true);
    expect(await t.exceeds(input, 300)).toBe(true);
    expect(t.exactCounts).toBe(0);
  });

  it.each(['o200k', 'cl100k'] as const)('has no %s token longer than MAX_TOKEN_BYTES bytes', async (name) => {
    const mod =
      name === 'o200k'
        ? await import('gpt-tokenizer/encoding/o200k_base')
        : await import('gpt-tokenizer/encoding/cl100k_base');
    let longest = 0;
    const enc = new TextEncoder();
    for (let id = 0; id < 200_100; id++) {
      let piece: string;
      try {
        piece = mod.decode([id]);
      } catch {
        continue;
      }
      longest = Math.max(longest, enc.encode(piece).length);
    }
    expect(longest).toBeGreaterThan(10);
    expect(longest).toBeLessThanOrEqual(MAX_TOKEN_BYTES);
  });
});
