import { describe, expect, it } from 'vitest';
import { PLAIN, renderGraph, renderTable } from '../../../src/stats/render.js';
import { Aggregator } from '../../../src/stats/report.js';

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
    expect(text).toMatch(/\n {2}tokens in +0 /);
  });

  it('draws one bar per day from the first active day to today, empty days included', () => {
    const now = new Date(2026, 10, 5, 12).getTime();
    const r = reportWith((r) => {
      r.daily = [
        { day: '2026-11-02', runs: 1, saved: 1000 },
        { day: '2026-11-04', runs: 1, saved: 500 },
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
