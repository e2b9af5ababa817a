// A caller whose token counter already counted a run's texts (the proxy's per-session counter,
// Tokens.known) hands those counts to the record: the ledger gets them at once, and nothing is
// deferred for a reader to count again.
import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PipelineEvent } from '../../../src/pipeline/run.js';
import { recordCompaction } from '../../../src/stats/record.js';
import { createTokens } from '../../../src/tokens.js';
import { report, tempLedger } from './helpers.js';

const before = 'line one of a long tool output\n'.repeat(40);
const after = 'line one of a long tool output (×40)';
const events: PipelineEvent[] = [
  {
    component: 'dedup',
    output: 'toolu_1',
    action: 'rewrite',
    bytesIn: Buffer.byteLength(before),
    bytesOut: Buffer.byteLength(after),
    ms: 1,
    before,
    after,
  },
];

describe('recording a run with the counts its counter made', () => {
  it('fills the token figures from them and defers nothing for a reader to count', async () => {
    const { env, loc } = tempLedger();
    // Figures no tokenizer gives for these texts: taken as handed over, never recounted.
    const known = new Map([
      [before, 1234],
      [after, 56],
    ]);
    await recordCompaction(events, {
      format: 'anthropic',
      tokenizer: 'o200k',
      via: 'proxy',
      env,
      known: (t) => known.get(t),
    });
    expect(existsSync(loc.pending) ? readdirSync(loc.pending) : []).toEqual([]);
    const r = await report(loc);
    expect(r.tokens.in).toBe(1234);
    expect(r.tokens.out).toBe(56);
  });

  it('takes Tokens.known, which gives what the counter counted and nothing it did not', async () => {
    const tokens = createTokens('o200k');
    const n = await tokens.count(before);
    expect(tokens.known(before)).toBe(n);
    expect(tokens.known(after)).toBeUndefined();
    expect(tokens.known('')).toBe(0);
  });
});
