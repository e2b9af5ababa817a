import { describe, expect, it } from 'vitest';
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
