import { describe, expect, it } from 'vitest';
import { appendLines } from '../../../src/stats/ledger.js';
import {
  type EvLine,
  type ExpandLine,
  formatLine,
  type LedgerLine,
  type OutLine,
} from '../../../src/stats/line.js';
import { report, tempLedger } from './helpers.js';

const T = new Date(2026, 10, 2, 12).getTime();
const base = { t: T, r: 'r' };
const out = (cmd: string, ti: number, to: number, extra: Partial<OutLine> = {}): OutLine => ({
  ...base,
  e: 'out',
  o: 'stdin',
  cmd,
  bi: ti * 4,
  bo: to * 4,
  ti,
  to,
  ...extra,
});
const ev = (c: string, a: string, extra: Partial<EvLine> = {}): EvLine => ({
  ...base,
  e: 'ev',
  c,
  a,
  o: 'stdin',
  bi: 100,
  bo: 0,
  ...extra,
});
const x = (hit: boolean, tr: number, extra: Partial<ExpandLine> = {}): ExpandLine => ({
  ...base,
  e: 'x',
  k: '0123456789abcdef',
  hit: hit ? 1 : 0,
  b: tr * 4,
  tr,
  ...extra,
});

async function reportOf(lines: LedgerLine[], top = 10) {
  const { loc } = tempLedger();
  await appendLines(loc, lines.map(formatLine));
  return report(loc, {}, top);
}

describe('the stats report', () => {
  it('nets tokens given back through expand off the savings, and counts misses in the hit rate', async () => {
    const r = await reportOf([
      out('pytest', 1000, 100),
      out('pytest', 500, 50),
      x(true, 300),
      x(false, 0),
      x(true, 20),
    ]);
    expect(r.tokens).toEqual({
      in: 1500,
      out: 150,
      saved: 1350,
      savedPct: 90,
      returned: 320,
      net: 1030,
      netPct: 68.7,
    });
    expect(r.expand).toEqual({ requests: 3, hits: 2, misses: 1, tokensReturned: 320, hitRate: 66.7 });
  });

  it('reports estimates apart and never adds them to the exact totals', async () => {
    const r = await reportOf([
      out('make', 1000, 100),
      out('make', 9000, 10, { est: 1 }),
      ev('collapse', 'rewrite', { ti: 9000, to: 10, est: 1 }),
      x(true, 7, { est: 1 }),
    ]);
    expect(r.tokens).toMatchObject({ in: 1000, out: 100, returned: 0 });
    expect(r.estimated).toEqual({
      outputs: 1,
      tokensIn: 9000,
      tokensOut: 10,
      saved: 8990,
      events: 1,
      expands: 1,
      tokensReturned: 7,
    });
    expect(r.commands).toMatchObject([{ command: 'make', outputs: 1, tokensIn: 1000, estimated: 1 }]);
  });

  it('lists the commands no filter matched, from cmdfilter skips only, most frequent first', async () => {
    const r = await reportOf([
      ev('cmdfilter', 'skip', { cmd: 'make -j4', why: 'no filter matches' }),
      ev('cmdfilter', 'skip', { cmd: 'make', why: 'no filter matched' }),
      ev('cmdfilter', 'skip', { cmd: 'terraform plan', why: 'no filter matches: selector $ terraform plan' }),
      ev('cmdfilter', 'skip', { cmd: 'pytest', why: 'under min_tokens' }),
      ev('format', 'skip', { cmd: 'ls', why: 'no filter matches' }),
      ev('cmdfilter', 'skip', { tool: 'read_file', why: 'no filter matches' }),
    ]);
    expect(r.unmatched).toEqual([
      { command: 'make', count: 2, bytes: 200 },
      { command: 'read_file', count: 1, bytes: 100 },
      { command: 'terraform plan', count: 1, bytes: 100 },
    ]);
    expect(r.components.find((c) => c.component === 'cmdfilter')!.skips).toBe(5);
  });

  it('keeps the top N commands by tokens saved', async () => {
    const r = await reportOf([out('a', 10, 5), out('b', 100, 5), out('c', 1000, 5), out('c', 10, 5)], 2);
    expect(r.commands.map((c) => [c.command, c.outputs, c.saved])).toEqual([
      ['c', 2, 1000],
      ['b', 1, 95],
    ]);
  });

  it('counts decisions by component and days by local calendar day', async () => {
    const day2 = new Date(2026, 10, 3, 0, 30).getTime();
    const r = await reportOf([
      { ...base, e: 'run', fmt: 'text', tk: 'o200k', n: 2, rw: 1, ub: 50 },
      ev('collapse', 'rewrite', { ti: 100, to: 10 }),
      ev('collapse', 'revert'),
      ev('toon', 'fail'),
      out('x', 100, 10),
      { ...out('x', 40, 10), t: day2 },
    ]);
    expect(r.components.map((c) => [c.component, c.rewrites, c.reverts, c.fails, c.saved])).toEqual([
      ['collapse', 1, 1, 0, 90],
      ['toon', 0, 0, 1, 0],
    ]);
    expect(r.outputs).toEqual({ rewritten: 2, untouched: 1, untouchedBytes: 50 });
    expect(r.daily).toEqual([
      { day: '2026-11-02', runs: 1, saved: 90 },
      { day: '2026-11-03', runs: 0, saved: 30 },
    ]);
  });
});
