/**
 * `--since`: a duration back from now (`30m`, `24h`, `7d`, `2w`) or a calendar date (`2026-11-01`,
 * local midnight, since days in the report are local days too), or an ISO date-time. Anything else
 * is a usage error naming what was expected.
 */
import { UsageError } from '../errors.js';

const UNIT_MS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/** Epoch ms of the earliest event to include. */
export function parseSince(spec: string, now = Date.now()): number {
  const text = spec.trim();
  const duration = /^(\d+)\s*(s|m|min|h|d|w)$/i.exec(text);
  if (duration) return now - Number(duration[1]) * UNIT_MS[duration[2]!.toLowerCase()]!;
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (day) {
    const [y, m, d] = [Number(day[1]), Number(day[2]), Number(day[3])];
    const date = new Date(y, m - 1, d);
    if (date.getFullYear() === y && date.getMonth() === m - 1 && date.getDate() === d) return date.getTime();
  } else if (/^\d{4}-\d{2}-\d{2}T/.test(text)) {
    const t = Date.parse(text);
    if (Number.isFinite(t)) return t;
  }
  throw new UsageError(
    `--since: expected a duration (30m, 24h, 7d, 2w) or a date (2026-11-01), got ${JSON.stringify(spec)}`,
  );
}
