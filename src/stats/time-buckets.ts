/**
 * The report's active days (`daily`) laid out on a calendar for a chart: every period from the
 * first active day (or --since) to today, empty ones included, so gaps show as gaps. Up to
 * MAX_DAYS the period is a local day; up to MAX_WEEKS weeks a week (from Monday); beyond, a month.
 * Periods only group days, never drop them: the buckets add up to the report's totals.
 */
import { type DayRow, dayLabel } from './report.js';

export type Unit = 'day' | 'week' | 'month';

export interface Bucket {
  /** The period's first day (YYYY-MM-DD), or its month (YYYY-MM). */
  label: string;
  runs: number;
  saved: number;
  cappedSaved: number;
  /** Indexes into `daily` of the active days this period holds. */
  days: number[];
}

export const MAX_DAYS = 92;
export const MAX_WEEKS = 104;

export function timeBuckets(
  daily: readonly DayRow[],
  since: string | null,
  now: number,
): { unit: Unit; buckets: Bucket[] } {
  const firstDay = daily[0] ? parseDay(daily[0].day) : undefined;
  const from = since !== null ? startOfDay(new Date(since)) : firstDay;
  if (!from) return { unit: 'day', buckets: [] };
  const lastActive = daily.length ? parseDay(daily[daily.length - 1]!.day) : from;
  const today = startOfDay(new Date(now));
  // An event stamped after today (another machine's clock) still gets its period.
  const to = new Date(Math.max(lastActive.getTime(), today.getTime()));
  const first = firstDay ? new Date(Math.min(firstDay.getTime(), from.getTime())) : from;
  const span = Math.round((to.getTime() - first.getTime()) / 86_400_000) + 1;
  const unit: Unit = span <= MAX_DAYS ? 'day' : span <= MAX_WEEKS * 7 ? 'week' : 'month';
  const keyOf = (d: Date) => bucketLabel(d, unit);

  const buckets: Bucket[] = [];
  const byLabel = new Map<string, Bucket>();
  for (let d = first; d <= to; d = new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1)) {
    const label = keyOf(d);
    if (byLabel.has(label)) continue;
    const bucket: Bucket = { label, runs: 0, saved: 0, cappedSaved: 0, days: [] };
    byLabel.set(label, bucket);
    buckets.push(bucket);
  }
  daily.forEach((row, i) => {
    const bucket = byLabel.get(keyOf(parseDay(row.day)));
    if (!bucket) return; // not a calendar day: nothing to place it by
    bucket.runs += row.runs;
    bucket.saved += row.saved;
    bucket.cappedSaved += row.cappedSaved;
    bucket.days.push(i);
  });
  return { unit, buckets };
}

function bucketLabel(d: Date, unit: Unit): string {
  if (unit === 'day') return dayLabel(d);
  if (unit === 'month') return dayLabel(d).slice(0, 7);
  const monday = new Date(d.getFullYear(), d.getMonth(), d.getDate() - ((d.getDay() + 6) % 7));
  return dayLabel(monday);
}

function startOfDay(d: Date): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate());
}

function parseDay(day: string): Date {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y!, m! - 1, d!);
}
