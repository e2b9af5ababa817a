import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { compactText } from '../../../src/engine.js';
import { countRun, footerLine } from '../../../src/stats/footer.js';
import { createFsStore, STORE_DEFAULTS } from '../../../src/store/fs-store.js';
import { createTokens } from '../../../src/tokens.js';
import { tempDir } from '../../helpers.js';

function seq(n: number): string {
  let s = '';
  for (let i = 1; i <= n; i++) s += `${i}\n`;
  return s;
}

describe('the run footer', () => {
  it('shows exact tokens before and after, the saving, and the key to expand', async () => {
    const input = seq(20_000);
    const store = createFsStore({ dir: join(tempDir(), 'store'), ...STORE_DEFAULTS });
    const tokens = createTokens('o200k');
    const result = await compactText(input, { components: 'collapse', format: 'text', store, tokens });
    const counts = (await countRun(result.events, tokens))!;
    const key = result.events.find((e) => e.key)!.key!;
    const tin = countTokens(input);
    const tout = countTokens(result.output);
    expect(counts).toMatchObject({ tokensIn: tin, tokensOut: tout, estimate: false, keys: [key] });
    const pct = Math.round(((tin - tout) / tin) * 100);
    expect(footerLine(counts)).toBe(
      `cg: ${tin.toLocaleString('en-US')} → ${tout.toLocaleString('en-US')} tokens (−${pct}%) · cg expand ${key}`,
    );
  });

  it('is undefined when nothing was rewritten', async () => {
    const result = await compactText('hi\n', { components: 'collapse', format: 'text', store: null });
    expect(await countRun(result.events, createTokens('o200k'))).toBeUndefined();
  });

  it('says when a figure is an estimate because counting it would keep the terminal waiting', async () => {
    const input = seq(20_000);
    const store = createFsStore({ dir: join(tempDir(), 'store'), ...STORE_DEFAULTS });
    const tokens = createTokens('o200k');
    const result = await compactText(input, { components: 'collapse', format: 'text', store, tokens });
    const counts = (await countRun(result.events, tokens, { maxBytes: 1000 }))!;
    expect(counts.estimate).toBe(true);
    expect(counts.tokensIn).toBe(Math.ceil(Buffer.byteLength(input) / 4));
    expect(footerLine(counts)).toMatch(
      /^cg: ≈[\d,]+ → ≈[\d,]+ tokens \(−\d+%, estimated\) · cg expand [0-9a-f]{16}$/,
    );
  });

  it('names one key and how many more when a run stashed several', () => {
    expect(
      footerLine({
        tokensIn: 12_345,
        tokensOut: 1_234,
        estimate: false,
        keys: ['a'.repeat(16), 'b'.repeat(16)],
        counted: new Map(),
      }),
    ).toBe(`cg: 12,345 → 1,234 tokens (−90%) · cg expand ${'a'.repeat(16)} (+1 more)`);
  });

  it("says what the run's own model calls cost, ≈ when cg counted them itself", () => {
    const counts = {
      tokensIn: 12_345,
      tokensOut: 1_234,
      estimate: false,
      keys: ['a'.repeat(16)],
      counted: new Map(),
    };
    const model = { calls: 1, in: 2400, out: 6, cacheRead: 0, cacheWrite: 0, estimated: 0 };
    expect(footerLine({ ...counts, model })).toBe(
      `cg: 12,345 → 1,234 tokens (−90%) · cg's model 2,406 tokens · cg expand ${'a'.repeat(16)}`,
    );
    expect(footerLine({ ...counts, model: { ...model, estimated: 1 } })).toMatch(
      / · cg's model ≈2,406 tokens · /,
    );
  });

  it('carries the model cost of the events it counts', async () => {
    const events = [
      {
        component: 'extract',
        output: 'stdin',
        action: 'rewrite' as const,
        bytesIn: 8,
        bytesOut: 2,
        ms: 0,
        before: 'a\nb\nc\nd\n',
        after: 'a\n',
        modelUsage: { calls: 1, in: 90, out: 3, cacheRead: 0, cacheWrite: 0, estimated: 0 },
      },
    ];
    expect((await countRun(events, createTokens('o200k')))?.model).toMatchObject({
      calls: 1,
      in: 90,
      out: 3,
    });
  });
});
