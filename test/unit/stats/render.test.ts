import { describe, expect, it } from 'vitest';
import { Aggregator } from '../../../src/stats/aggregate.js';
import { PLAIN, renderGraph, renderTable } from '../../../src/stats/render.js';

const ledger = {
  dir: '/state',
  files: 1,
  bytes: 1,
  lines: 1,
  badLines: 0,
  duplicates: 0,
  pendingSettled: 0,
  pendingLeft: 0,
  pendingBad: 0,
};

function reportWith(mut: (r: ReturnType<Aggregator['finish']>) => void) {
  const r = new Aggregator().finish({ top: 10, ledger });
  mut(r);
  return r;
}

describe('rendering', () => {
  it('says plainly when nothing has been recorded yet', () => {
    expect(
      renderTable(
        reportWith(() => {}),
        PLAIN,
      ),
    ).toBe('cg stats · all time · 0 runs\nnothing recorded yet in /state\n');
  });

  it('prints estimates on a line of their own, marked ≈', () => {
    const r = reportWith((r) => {
      r.runs = 1;
      r.estimated.outputs = 1;
      r.estimated.tokensIn = 25_000_000;
      r.estimated.tokensOut = 100;
    });
    const text = renderTable(r, PLAIN);
    expect(text).toMatch(/\n {2}estimated +≈25,000,000 → ≈100 tokens in 1 outputs/);
    expect(text).toMatch(/\n {2}tokens in +0$/m);
  });

  it('draws one bar per day from the first active day to today, empty days included', () => {
    const now = new Date(2026, 10, 5, 12).getTime();
    const r = reportWith((r) => {
      r.daily = [
        { day: '2026-11-02', runs: 1, saved: 1000, cappedSaved: 1000 },
        { day: '2026-11-04', runs: 1, saved: 500, cappedSaved: 500 },
      ];
    });
    const lines = renderGraph(r, PLAIN, 41, now).trimEnd().split('\n');
    expect(lines.slice(1, 5).map((l) => l.slice(0, 10))).toEqual([
      '2026-11-02',
      '2026-11-03',
      '2026-11-04',
      '2026-11-05',
    ]);
    const bar = (l: string) => (l.match(/█/g) ?? []).length;
    expect(bar(lines[1]!)).toBe(2 * bar(lines[3]!));
    expect(bar(lines[2]!)).toBe(0);
    expect(lines[1]).toMatch(/1,000$/);
  });
});

describe('the default view', () => {
  async function busyReport(modelCalls = false) {
    const { appendLines } = await import('../../../src/stats/ledger.js');
    const { formatLine } = await import('../../../src/stats/line.js');
    const { report, tempLedger } = await import('./helpers.js');
    const { loc } = tempLedger();
    const lines: string[] = [];
    const base = { t: 1_790_000_000_000, r: 'r' };
    for (let i = 0; i < 40; i++) {
      const cmd = `tool-with-a-rather-long-name-${i} subcommand --flag`;
      lines.push(
        formatLine({
          ...base,
          e: 'run',
          fmt: 'text',
          tk: 'o200k',
          n: 2,
          rw: 1,
          ub: 10,
          h: 'claude-code',
          via: 'hook',
        }),
        formatLine({
          ...base,
          e: 'out',
          o: 'stdin',
          cmd,
          h: 'claude-code',
          nf: 1,
          bi: 9,
          bo: 9,
          ti: 123_456_789,
          hi: 600,
          to: 12,
        }),
        formatLine({
          ...base,
          e: 'ev',
          c: `component-${i}`,
          a: 'rewrite',
          f: `filter-${i}`,
          o: 'stdin',
          bi: 9,
          bo: 9,
          ti: 123_456_789,
          to: 12,
          k: String(i).padStart(16, '0'),
        }),
        formatLine({
          ...base,
          e: 'ev',
          c: 'cmdfilter',
          a: 'skip',
          o: 'x',
          cmd,
          why: 'no filter matches',
          bi: 99_999,
          bo: 0,
        }),
      );
    }
    // cmdfilter/git-log shows 8 markers and 3 come back: too aggressive.
    for (let i = 0; i < 8; i++) {
      const k = `00000000000000${i}f`;
      lines.push(
        formatLine({
          ...base,
          e: 'ev',
          c: 'cmdfilter',
          a: 'rewrite',
          f: 'git-log',
          o: 'z',
          bi: 9,
          bo: 9,
          ti: 90,
          to: 9,
          k,
        }),
      );
      if (i < 3) lines.push(formatLine({ ...base, e: 'x', k, hit: 1, b: 9, tr: 7 }));
    }
    lines.push(formatLine({ ...base, e: 'out', o: 'y', bi: 1, bo: 1, ti: 9, to: 1, est: 1 }));
    if (modelCalls) {
      const model = (c: string, mc: number, mi: number, mo: number, me = 0) =>
        formatLine({
          ...base,
          e: 'ev',
          c,
          mc,
          mi,
          mo,
          ...(me ? { me } : {}),
          a: 'skip',
          o: '*',
          bi: 0,
          bo: 0,
        });
      lines.push(model('extract', 3, 12_000, 900), model('summarize', 1, 40_000, 1200, 1));
    }
    await appendLines(loc, lines);
    const r = await report(loc, {}, 100);
    r.ledger.pendingLeft = 3;
    r.ledger.badLines = 2;
    return r;
  }

  it('fits one screen of 24 lines of 80 columns, however much the ledger holds', async () => {
    const text = renderTable(await busyReport(), PLAIN);
    const lines = text.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(24);
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(80);
    expect(lines[1]).toMatch(/^vs host: what Claude Code shows, ≤30,000 chars whole/);
    expect(text).toMatch(/\n {14} +vs host +raw\n/);
    expect(text).toMatch(/\ntoo aggressive \(markers back >30%\): cmdfilter\/git-log 37\.5% of 8\n/);
    expect(text).toMatch(/\nno filter: .* · cg discover$/m);
    expect(text).toMatch(/\n {2}pending /);
  });

  it("shows cg's own model calls, by component, subtracted before the net and said so, on one screen", async () => {
    const plain = await busyReport();
    const r = await busyReport(true);
    const text = renderTable(r, PLAIN);
    const lines = text.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(24);
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(80);
    expect(lines[1]).toBe("vs host: what Claude Code shows · net of cg's own model calls");
    expect(text).toMatch(/\n {2}cg's model +54,100 +54,100 +4 calls, 1 ≈ .*\n {2}net saved +-30,601 /);
    expect(text).toMatch(
      /\n {2}model calls 52,000 in \+ 2,100 out: summarize 1× 41,200, extract 3× 12,900\n/,
    );
    expect(r.tokens.net).toBe(plain.tokens.net - 54_100);
    expect(r.capped.net).toBe(plain.capped.net - 54_100);
    expect(renderTable(plain, PLAIN)).not.toMatch(/model/);
  });

  it('shows as many rows as --top asks for, past one screen', async () => {
    const text = renderTable(await busyReport(), PLAIN, { top: 30 });
    expect(text.match(/^ {2}component-\d+ /gm)).toHaveLength(30);
    expect(text.match(/^ {2}tool-with/gm)).toHaveLength(30);
  });

  it('shows one column of figures when no run named a host', () => {
    const r = reportWith((r) => {
      r.runs = 1;
      r.capped.measuredAgainst = 'vs raw output: no agent host recorded';
    });
    const text = renderTable(r, PLAIN);
    expect(text).not.toMatch(/vs host +raw/);
    expect(text.split('\n')[1]).toBe('vs raw output: no agent host recorded');
  });
});
