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
      model: 0,
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
      { day: '2026-11-02', runs: 1, saved: 90, cappedSaved: 90 },
      { day: '2026-11-03', runs: 0, saved: 30, cappedSaved: 30 },
    ]);
  });
});

describe('the accounting a sceptic can check', () => {
  const run = (extra: Record<string, unknown> = {}): LedgerLine =>
    ({ ...base, e: 'run', fmt: 'text', tk: 'o200k', n: 1, rw: 1, ub: 0, ...extra }) as LedgerLine;
  const key = (n: number) => n.toString(16).padStart(16, '0');

  it("measures savings against the host's view where its cap cut the text, raw elsewhere, beside the raw figures", async () => {
    const r = await reportOf([
      run({ h: 'claude-code', via: 'hook' }),
      out('seq', 30_000, 100, { h: 'claude-code', hi: 600 }), // the host would have shown a preview
      run({ h: 'claude-code', via: 'hook' }),
      out('seq', 5_000, 100, { h: 'claude-code' }), // shown whole: the raw is the baseline
      run(),
      out('make', 2_000, 200), // no host recorded: raw
      x(true, 900, { hr: 500, h: 'claude-code' }),
      x(true, 50),
    ]);
    expect(r.tokens).toMatchObject({ in: 37_000, out: 400, saved: 36_600, returned: 950 });
    expect(r.capped).toMatchObject({
      in: 600 + 5_000 + 2_000,
      out: 400,
      saved: 7_200,
      returned: 550,
      net: 6_650,
      outputsCapped: 1,
    });
    expect(r.capped.measuredAgainst).toMatch(/Claude Code.*raw where no host is recorded/);
    expect(r.hosts.map((h) => [h.host, h.runs, h.via, h.outputs, h.outputsCapped, h.cappedIn])).toEqual([
      ['claude-code', 2, { hook: 2 }, 2, 1, 5_600],
      [null, 1, { pipe: 1 }, 1, 0, 2_000],
    ]);
    expect(r.commands.find((c) => c.command === 'seq')).toMatchObject({ saved: 34_800, cappedSaved: 5_400 });
    // The same split per host and per day, so a page drawn from the report adds up to its totals.
    expect(r.hosts.map((h) => [h.host, h.saved, h.cappedSaved, h.cappedSavedPct])).toEqual([
      ['claude-code', 34_800, 5_400, 96.4],
      [null, 1_800, 1_800, 90],
    ]);
    expect(r.daily).toEqual([{ day: '2026-11-02', runs: 3, saved: 36_600, cappedSaved: 7_200 }]);
  });

  it('counts a marker as recalled once however often it comes back, per filter, and flags a filter past 30 %', async () => {
    const rewrite = (c: string, k: number, f?: string) =>
      ev(c, 'rewrite', { ti: 100, to: 10, k: key(k), ...(f ? { f } : {}) });
    const lines: LedgerLine[] = [];
    // cmdfilter/git-log shows 10 markers; 4 come back, one of them three times.
    for (let i = 0; i < 10; i++) lines.push(rewrite('cmdfilter', i, 'git-log'));
    for (const k of [0, 1, 2, 3, 3, 3]) lines.push(x(true, 40, { k: key(k) }));
    // cmdfilter/pytest: 10 markers, 1 back. collapse: the same original shown twice, expanded once.
    for (let i = 10; i < 20; i++) lines.push(rewrite('cmdfilter', i, 'pytest'));
    lines.push(
      x(true, 7, { k: key(15) }),
      rewrite('collapse', 99),
      rewrite('collapse', 99),
      x(false, 0, { k: key(99) }),
    );
    // A key no run in the window showed: an expand, but nobody's recall.
    lines.push(x(true, 5, { k: key(500) }));
    const r = await reportOf(lines);
    const row = (c: string, f: string | null) => r.recall.find((x) => x.component === c && x.filter === f)!;
    expect(row('cmdfilter', 'git-log')).toMatchObject({
      markers: 10,
      expands: 6,
      recalled: 4,
      tokensReturned: 240,
      recallRate: 40,
      tooAggressive: true,
    });
    expect(row('cmdfilter', 'pytest')).toMatchObject({
      markers: 10,
      recalled: 1,
      recallRate: 10,
      tooAggressive: false,
    });
    expect(row('collapse', null)).toMatchObject({ markers: 2, expands: 1, recalled: 1, recallRate: 50 });
    // Two markers are too few to call collapse too aggressive at 50 %.
    expect(row('collapse', null).tooAggressive).toBe(false);
    expect(r.recall[0]).toMatchObject({ component: 'collapse' }); // highest recall first
  });

  it('ranks the commands no filter handled by tokens: exact where a generic component cut them, bytes/4 where nothing did', async () => {
    const noMatch = { why: 'no filter matches' };
    const r = await reportOf([
      out('make -j4', 3_000, 300, { nf: 1 }),
      ev('cmdfilter', 'skip', { ...noMatch, cmd: 'make -j4', ro: 1, bi: 12_000 }), // counted on its out line
      ev('cmdfilter', 'skip', { ...noMatch, cmd: 'make', bi: 4_001 }),
      ev('cmdfilter', 'skip', { ...noMatch, cmd: 'terraform plan -out x', bi: 80_000 }),
      out('pytest', 5_000, 50), // a filter handled it: not listed
      ev('cmdfilter', 'skip', { cmd: 'ls', why: 'under min_tokens' }),
    ]);
    expect(r.discover).toEqual({
      commands: 2,
      runs: 3,
      tokens: 20_000 + 3_000 + 1_001,
      rows: [
        {
          command: 'terraform plan',
          runs: 1,
          bytes: 80_000,
          tokens: 20_000,
          estimated: 1,
          rewritten: 0,
          saved: 0,
        },
        {
          command: 'make',
          runs: 2,
          bytes: 12_000 + 4_001,
          tokens: 4_001,
          estimated: 1,
          rewritten: 1,
          saved: 2_700,
        },
      ],
    });
  });

  it("totals proxy requests: tokens in and out, the cache-stable share, and cg's own model tokens netted out", async () => {
    const req = (extra: Record<string, unknown>): LedgerLine =>
      ({
        ...base,
        e: 'req',
        fmt: 'anthropic',
        bi: 4000,
        bo: 2000,
        ti: 1000,
        to: 500,
        ...extra,
      }) as LedgerLine;
    const r = await reportOf([
      req({ cs: 1, mi: 120, mo: 30 }),
      req({ cs: 0 }),
      req({}),
      req({ est: 1, ti: 9999, to: 9 }),
    ]);
    expect(r.requests).toMatchObject({
      count: 4,
      counted: 3,
      tokensIn: 3000,
      tokensOut: 1500,
      saved: 1500,
      cacheKnown: 2,
      cacheStable: 1,
      cacheStableRate: 50,
      modelTokensIn: 120,
      modelTokensOut: 30,
      net: 1350,
      estimated: 1,
      estimatedTokensIn: 9999,
    });
    expect(r.runs).toBe(0); // requests are not compaction runs
  });

  it("nets cg's own model calls out of the saving, vs host and raw, and counts them by component", async () => {
    const r = await reportOf([
      { ...base, e: 'run', fmt: 'text', tk: 'o200k', n: 2, rw: 2, ub: 0, h: 'claude-code', via: 'hook' },
      out('pytest', 40_000, 400, { h: 'claude-code', hi: 700, ho: 400 }),
      out('make', 2000, 200, { h: 'claude-code' }),
      ev('extract', 'rewrite', { mc: 1, mi: 3000, mo: 120, mr: 2048, ti: 2000, to: 200 }),
      ev('extract', 'skip', { mc: 2, mi: 500, mo: 0, me: 1, why: 'model strategy not used' }),
      ev('summarize', 'rewrite', { o: '@messages:1-9', mc: 1, mi: 800, mo: 80, mw: 600 }),
      ev('collapse', 'rewrite', { ti: 40_000, to: 400 }),
      x(true, 100),
    ]);
    expect(r.model).toEqual({
      calls: 4,
      tokensIn: 4300,
      tokensOut: 200,
      tokens: 4500,
      cacheRead: 2048,
      cacheWrite: 600,
      estimatedCalls: 1,
    });
    // raw: 42,000 → 600 saved 41,400, minus 100 given back, minus 4,500 of cg's model.
    expect(r.tokens).toMatchObject({ saved: 41_400, returned: 100, model: 4500, net: 36_800 });
    // vs host: 2,700 → 600 saved 2,100, minus the same 100 and 4,500: cg cost more than it saved.
    expect(r.capped).toMatchObject({ saved: 2100, returned: 100, model: 4500, net: -2500 });
    expect(r.capped.measuredAgainst).toMatch(/Claude Code.* · net of cg's own model calls$/);
    const row = (name: string) => r.components.find((c) => c.component === name)!;
    expect(row('extract')).toMatchObject({
      modelCalls: 3,
      modelTokensIn: 3500,
      modelTokensOut: 120,
      rewrites: 1,
      skips: 1,
    });
    expect(row('summarize')).toMatchObject({ modelCalls: 1, modelTokensIn: 800, modelTokensOut: 80 });
    expect(row('collapse')).toMatchObject({ modelCalls: 0, modelTokensIn: 0, modelTokensOut: 0 });
  });

  it('says nothing of model calls when cg made none', async () => {
    const r = await reportOf([out('pytest', 1000, 100), ev('collapse', 'rewrite', { ti: 1000, to: 100 })]);
    expect(r.model).toMatchObject({ calls: 0, tokens: 0 });
    expect(r.tokens.net).toBe(900);
    expect(r.capped.measuredAgainst).not.toMatch(/model/);
  });
});
