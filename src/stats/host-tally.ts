/**
 * The host-capped figures of `cg stats`: the same rewritten outputs as `tokens`, but each measured
 * against what its agent host would have shown without cg (hosts.ts) instead of the raw output —
 * an out line's hi/ho where the host's cap cut the text, ti/to where it did not, and the raw
 * figures for runs recorded with no host. Also one row per host: how many runs came through which
 * door, and how many outputs the host's cap would have cut.
 */
import { baselineLine, hostModel } from './hosts.js';
import { type TokenTotals, tokenTotals, withCappedSaved } from './report.js';
import { F_H, F_VIA, type ScannedLine } from './scanned-line.js';

export interface HostRow {
  /** The agent host, or null for runs recorded with none (counted against the raw output). */
  host: string | null;
  runs: number;
  /** Runs by door: pipe, hook, proxy, mcp. */
  via: Record<string, number>;
  outputs: number;
  /** Rewritten outputs the host would have cut (their baseline is the host's view, not the raw). */
  outputsCapped: number;
  tokensIn: number;
  tokensOut: number;
  cappedIn: number;
  cappedOut: number;
  /** What the host shows, and where that figure comes from (null for a host cg does not model). */
  shows: string | null;
  source: string | null;
  /** tokensIn − tokensOut and cappedIn − cappedOut, with their percentages (null when in is 0). */
  saved: number;
  savedPct: number | null;
  cappedSaved: number;
  cappedSavedPct: number | null;
}

export interface CappedTotals extends TokenTotals {
  outputsCapped: number;
  /** One line: what these figures are measured against. */
  measuredAgainst: string;
}

export class HostTally {
  private readonly rows: HostRow[] = [];
  private capIn = 0;
  private capOut = 0;
  private capped = 0;
  /** Doors seen so far: a line's is matched in place, not read out. */
  private readonly doors: string[] = [];

  run(l: ScannedLine): void {
    const row = this.row(l);
    row.runs++;
    const via = this.door(l);
    row.via[via] = (row.via[via] ?? 0) + 1;
  }

  private door(l: ScannedLine): string {
    if (!l.has(F_VIA)) return 'pipe'; // lines from before doors were recorded
    for (const d of this.doors) if (l.equals(F_VIA, d)) return d;
    const d = l.via!;
    this.doors.push(d);
    return d;
  }

  /** An exact out line (estimates stay out of every exact figure). */
  out(l: ScannedLine): void {
    const row = this.row(l);
    const hi = l.hi >= 0 ? l.hi : l.ti;
    const ho = l.ho >= 0 ? l.ho : l.to;
    row.outputs++;
    row.tokensIn += l.ti;
    row.tokensOut += l.to;
    row.cappedIn += hi;
    row.cappedOut += ho;
    if (l.hi >= 0) {
      row.outputsCapped++;
      this.capped++;
    }
    this.capIn += hi;
    this.capOut += ho;
  }

  finish(returned: number, model: number): { capped: CappedTotals; hosts: HostRow[] } {
    const hosts = this.rows
      .map(withCappedSaved)
      .sort((a, b) => b.runs - a.runs || (a.host ?? '').localeCompare(b.host ?? ''));
    return {
      capped: {
        ...tokenTotals(this.capIn, this.capOut, returned, model),
        outputsCapped: this.capped,
        measuredAgainst: baselineLine(
          hosts.filter((h) => h.outputs > 0).map((h) => h.host ?? undefined),
          model > 0,
        ),
      },
      hosts,
    };
  }

  /** The line's host row, matched in place: a ledger names a handful of hosts at most. */
  private row(l: ScannedLine): HostRow {
    for (const row of this.rows) {
      if (row.host === null ? !l.has(F_H) : l.equals(F_H, row.host)) return row;
    }
    const host = l.h ?? null;
    const model = hostModel(host ?? undefined);
    const row: HostRow = {
      host,
      runs: 0,
      via: {},
      outputs: 0,
      outputsCapped: 0,
      tokensIn: 0,
      tokensOut: 0,
      cappedIn: 0,
      cappedOut: 0,
      shows: model ? `${model.label}: ${model.shows}` : null,
      source: model?.source ?? null,
      saved: 0,
      savedPct: null,
      cappedSaved: 0,
      cappedSavedPct: null,
    };
    this.rows.push(row);
    return row;
  }
}
