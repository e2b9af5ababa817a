/**
 * What cg's own model calls cost, from a run's events to the ledger and back into the report: the
 * ev line of the decision that carried the cost, a proxy request's req line summed from the same
 * events, and the totals every net figure subtracts.
 */
import { describe, expect, it } from 'vitest';
import type { PipelineEvent } from '../../../src/pipeline/run.js';
import { recordCompaction } from '../../../src/stats/record.js';
import { recordRequest } from '../../../src/stats/requests.js';
import { ledgerLines, report, tempLedger } from './helpers.js';

const usage = (
  calls: number,
  tokensIn: number,
  out: number,
  extra: Partial<PipelineEvent['modelUsage']> = {},
) => ({
  calls,
  in: tokensIn,
  out,
  cacheRead: 0,
  cacheWrite: 0,
  estimated: 0,
  ...extra,
});

const events: PipelineEvent[] = [
  {
    component: 'format',
    output: 'stdin',
    action: 'skip',
    reason: 'not JSON',
    bytesIn: 900,
    bytesOut: 0,
    ms: 0,
  },
  {
    component: 'extract',
    output: 'stdin',
    action: 'skip',
    reason: 'under min_tokens; model strategy not used: the model wrote no filter function',
    bytesIn: 900,
    bytesOut: 0,
    ms: 0,
    modelUsage: usage(1, 2500, 60, { cacheRead: 2048 }),
  },
  {
    component: 'summarize',
    output: '*',
    action: 'skip',
    reason: 'model returned an empty summary',
    bytesIn: 0,
    bytesOut: 0,
    ms: 0,
    modelUsage: usage(1, 700, 0, { estimated: 1 }),
  },
];

describe("recording cg's own model calls", () => {
  it('puts what each decision cost on its ev line, and nothing on the others, through any door', async () => {
    const { env, loc } = tempLedger();
    await recordCompaction(events, { format: 'anthropic', tokenizer: 'o200k', via: 'proxy', env });
    const lines = ledgerLines(loc.dir).filter((l) => l.e === 'ev');
    expect(lines.map((l) => [l.c, l.mc, l.mi, l.mo, l.mr, l.mw, l.me])).toEqual([
      ['format', undefined, undefined, undefined, undefined, undefined, undefined],
      ['extract', 1, 2500, 60, 2048, undefined, undefined],
      ['summarize', 1, 700, 0, undefined, undefined, 1],
    ]);
    const r = await report(loc);
    expect(r.model).toEqual({
      calls: 2,
      tokensIn: 3200,
      tokensOut: 60,
      tokens: 3260,
      cacheRead: 2048,
      cacheWrite: 0,
      estimatedCalls: 1,
    });
    // Nothing was rewritten, so cg's model calls are all the run did: a net loss, said as one.
    expect(r.tokens).toMatchObject({ saved: 0, model: 3260, net: -3260 });
  });

  it("records a proxy request's model calls summed from its events, as the ev lines record them", async () => {
    const { env, loc } = tempLedger();
    await recordRequest({
      format: 'anthropic',
      bytesIn: 8000,
      bytesOut: 6000,
      tokensIn: 2000,
      tokensOut: 1500,
      events,
      env,
    });
    await recordRequest({
      format: 'anthropic',
      bytesIn: 800,
      bytesOut: 800,
      tokensIn: 200,
      tokensOut: 200,
      events: [],
      env,
    });
    const [withCalls, without] = ledgerLines(loc.dir);
    expect(withCalls).toMatchObject({ e: 'req', mc: 2, mi: 3200, mo: 60, me: 1 });
    expect(Object.keys(without!).filter((k) => k.startsWith('m'))).toEqual([]);
    const r = await report(loc);
    expect(r.requests).toMatchObject({
      modelCalls: 2,
      modelTokensIn: 3200,
      modelTokensOut: 60,
      saved: 500,
      net: -2760,
    });
  });
});
