import cl100kRanks from 'gpt-tokenizer/bpeRanks/cl100k_base';
import o200kRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { describe, expect, it } from 'vitest';
import { BpeTable, type RankList } from '../../../src/bpe/table.js';

describe.each([
  ['o200k', o200kRanks as RankList],
  ['cl100k', cl100kRanks as RankList],
] as const)('the %s vocabulary table', (_name, ranks) => {
  const table = new BpeTable(BpeTable.build(ranks));

  it('finds every token by the lookup gpt-tokenizer would use for it', () => {
    const wrong: number[] = [];
    ranks.forEach((v, rank) => {
      const bytes = typeof v === 'string' ? Buffer.from(v, 'utf8') : Buffer.from(v);
      const found =
        typeof v === 'string'
          ? table.textRank(bytes, 0, bytes.length)
          : table.bytesRank(bytes, 0, bytes.length);
      // A token stored as bytes that are valid UTF-8 (a byte-order mark and what follows) is looked
      // up by its text with the mark dropped: gpt-tokenizer never finds it under its own rank.
      if (typeof v !== 'string' && Buffer.from(v).toString('utf8') !== new TextDecoder().decode(bytes))
        return;
      if (found !== rank) wrong.push(rank);
    });
    expect(wrong).toEqual([]);
    expect(table.size).toBe(ranks.length);
  });

  it('finds nothing for bytes no token has, and reads back the bytes it wrote', () => {
    const none = Buffer.from('zzqxjvkwq-not-a-token-anywhere', 'utf8');
    expect(table.textRank(none, 0, none.length)).toBe(-1);
    expect(table.bytesRank(Buffer.from([0xff, 0xfe, 0xfd]), 0, 3)).toBe(-1);
    const copy = Buffer.alloc(BpeTable.build(ranks).length + 1);
    BpeTable.build(ranks).copy(copy, 1); // an unaligned Buffer reads the same
    const again = new BpeTable(copy.subarray(1));
    const the = Buffer.from(' the');
    expect(again.textRank(the, 0, the.length)).toBe(table.textRank(the, 0, the.length));
  });
});
