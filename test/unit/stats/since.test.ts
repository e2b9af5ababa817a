import { describe, expect, it } from 'vitest';
import { parseSince } from '../../../src/stats/since.js';

const NOW = Date.UTC(2026, 10, 15, 12, 0, 0);

describe('parseSince', () => {
  it('reads durations back from now in minutes, hours, days and weeks', () => {
    expect(parseSince('30m', NOW)).toBe(NOW - 30 * 60_000);
    expect(parseSince('24h', NOW)).toBe(NOW - 24 * 3_600_000);
    expect(parseSince('7d', NOW)).toBe(NOW - 7 * 86_400_000);
    expect(parseSince('2w', NOW)).toBe(NOW - 14 * 86_400_000);
  });

  it('reads a calendar date as local midnight, the start of that day in the report', () => {
    expect(parseSince('2026-11-01', NOW)).toBe(new Date(2026, 10, 1).getTime());
  });

  it('reads an ISO date-time as that instant', () => {
    expect(parseSince('2026-11-01T10:00:00Z', NOW)).toBe(Date.UTC(2026, 10, 1, 10));
  });

  it('refuses anything else with a usage error that says what it expected', () => {
    for (const bad of ['yesterday', '7', '2026-02-30', '-3d', '']) {
      expect(() => parseSince(bad, NOW)).toThrow(/--since: expected a duration/);
      try {
        parseSince(bad, NOW);
      } catch (err) {
        expect((err as { exitCode: number }).exitCode).toBe(2);
      }
    }
  });
});
