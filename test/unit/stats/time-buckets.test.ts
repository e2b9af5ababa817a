import { describe, expect, it } from 'vitest';
import type { DayRow } from '../../../src/stats/report.js';
import { timeBuckets } from '../../../src/stats/time-buckets.js';

const day = (d: string, saved: number, runs = 1): DayRow => ({ day: d, runs, saved, cappedSaved: saved - 1 });
const at = (y: number, m: number, d: number) => new Date(y, m - 1, d, 12).getTime();

describe('time buckets for the stats page', () => {
  it('lays every day from the first active one to today, empty days included', () => {
    const { unit, buckets } = timeBuckets(
      [day('2026-11-02', 100), day('2026-11-04', 50)],
      null,
      at(2026, 11, 5),
    );
    expect(unit).toBe('day');
    expect(buckets.map((b) => [b.label, b.saved, b.days])).toEqual([
      ['2026-11-02', 100, [0]],
      ['2026-11-03', 0, []],
      ['2026-11-04', 50, [1]],
      ['2026-11-05', 0, []],
    ]);
  });

  it('starts at --since even before the first active day', () => {
    const since = new Date(2026, 10, 1, 9).toISOString();
    const { buckets } = timeBuckets([day('2026-11-03', 10)], since, at(2026, 11, 3));
    expect(buckets.map((b) => b.label)).toEqual(['2026-11-01', '2026-11-02', '2026-11-03']);
  });

  it('groups a longer span by weeks from Monday, then by months, and every period adds up', () => {
    const daily = [day('2026-01-01', 10), day('2026-01-04', 20), day('2026-01-05', 40), day('2026-06-30', 5)];
    const weeks = timeBuckets(daily, null, at(2026, 7, 1));
    expect(weeks.unit).toBe('week');
    // 2026-01-01 is a Thursday: its week began on Monday 2025-12-29; the 5th is the next Monday.
    expect(weeks.buckets.slice(0, 2).map((b) => [b.label, b.saved, b.cappedSaved, b.runs])).toEqual([
      ['2025-12-29', 30, 28, 2],
      ['2026-01-05', 40, 39, 1],
    ]);
    expect(weeks.buckets.reduce((s, b) => s + b.saved, 0)).toBe(75);
    const months = timeBuckets(daily, null, at(2028, 3, 1));
    expect(months.unit).toBe('month');
    expect(months.buckets[0]).toMatchObject({ label: '2026-01', saved: 70, days: [0, 1, 2] });
    expect(months.buckets.at(-1)!.label).toBe('2028-03');
    expect(months.buckets).toHaveLength(27);
  });

  it('has nothing to lay out without an active day or --since', () => {
    expect(timeBuckets([], null, at(2026, 11, 5)).buckets).toEqual([]);
  });
});
