/**
 * `cg discover`'s rows: the commands whose output went through with no filter (unfiltered.ts says
 * which), grouped by program and subcommand and ranked by tokens — where a new filter would pay.
 *
 * An unfiltered output a generic component still shrank has an out line (nf:1) with its exact
 * tokens; one that passed through untouched was never tokenized (recording never counts, and its
 * text is kept nowhere), so its tokens are estimated from its bytes (bytes/4) and the row says how
 * many of its runs are estimates. cmdfilter's "no filter" skip of a rewritten output (ro:1) is
 * counted on that output's out line, not twice.
 */
import { estimateTokens } from './pending.js';
import type { ScannedLine } from './scanned-line.js';

export interface DiscoverRow {
  command: string;
  /** Outputs of this command no filter handled. */
  runs: number;
  bytes: number;
  /** Tokens of those outputs as the command printed them (exact, plus the estimated ones). */
  tokens: number;
  /** Runs whose tokens are estimated from bytes (nothing rewrote them, so nothing counted them). */
  estimated: number;
  /** Runs a generic component still shrank, and the tokens it saved on them. */
  rewritten: number;
  saved: number;
}

export class DiscoverTally {
  private readonly rows = new Map<string, DiscoverRow>();

  /** An out line with nf:1 (exact figures unless est); `command` is its group (commandLabel). */
  out(l: ScannedLine, command: string): void {
    const row = this.row(command);
    row.runs++;
    row.bytes += l.bi;
    row.tokens += l.ti;
    if (l.est) row.estimated++;
    row.rewritten++;
    row.saved += l.ti - l.to;
  }

  /** cmdfilter's "no filter" skip of an output nothing rewrote. */
  untouched(l: ScannedLine, command: string): void {
    const row = this.row(command);
    row.runs++;
    row.bytes += l.bi;
    row.tokens += estimateTokens(l.bi);
    row.estimated++;
  }

  finish(top: number): { rows: DiscoverRow[]; commands: number; runs: number; tokens: number } {
    const all = [...this.rows.values()];
    const rows = all
      .sort((a, b) => b.tokens - a.tokens || b.runs - a.runs || a.command.localeCompare(b.command))
      .slice(0, top);
    let runs = 0;
    let tokens = 0;
    for (const r of all) {
      runs += r.runs;
      tokens += r.tokens;
    }
    return { rows, commands: all.length, runs, tokens };
  }

  private row(command: string): DiscoverRow {
    let row = this.rows.get(command);
    if (!row) {
      row = { command, runs: 0, bytes: 0, tokens: 0, estimated: 0, rewritten: 0, saved: 0 };
      this.rows.set(command, row);
    }
    return row;
  }
}
