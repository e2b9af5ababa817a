import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { isSingleToken } from '../../../src/bpe/bounds.js';
import { SINGLE_TOKEN_PIECES } from '../../../src/bpe/single-tokens.js';

const asText = { disallowedSpecial: new Set<string>() };
const oneTokenInBoth = (piece: string) => o200k(piece, asText) === 1 && cl100k(piece, asText) === 1;

describe('the pieces known to be single tokens', () => {
  it('are each one token in o200k and in cl100k', () => {
    const wrong = SINGLE_TOKEN_PIECES.filter((p) => !oneTokenInBoth(p));
    expect(wrong).toEqual([]);
    expect(SINGLE_TOKEN_PIECES.length).toBeGreaterThan(256);
  });

  it('include by rule every ASCII character and every run of one to three digits, all one token in both', () => {
    const byRule: string[] = [];
    for (let c = 0; c < 128; c++) byRule.push(String.fromCharCode(c));
    for (let n = 0; n < 1000; n++)
      byRule.push(String(n), String(n).padStart(2, '0'), String(n).padStart(3, '0'));
    for (const p of byRule) expect(isSingleToken(p, 0, p.length)).toBe(true);
    expect(byRule.filter((p) => !oneTokenInBoth(p))).toEqual([]);
  });

  it('know nothing else: other text is not claimed to be one token', () => {
    for (const p of ['1234', 'é', '日本', 'zzqxj', ' zzqxjv', '\u0000\u0001'])
      expect(isSingleToken(p, 0, p.length)).toBe(false);
  });
});
