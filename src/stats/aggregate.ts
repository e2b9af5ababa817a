/**
 * The visitor `cg stats` hands the ledger reader: each scanned line goes to the tallies that need
 * it (totals, components, commands, unmatched, days here; hosts, recall, unfiltered commands, proxy
 * requests and cg's own model calls in their own modules), and finish() assembles the report whose
 * shape report.ts
 * documents. Strings are compared in place wherever a line only has to be told apart from a
 * handful of known values (scanned-line.ts): on a million-line ledger that is most of the cost.
 */
import { commandLabel, NO_COMMAND } from './command-label.js';
import { DiscoverTally } from './discover.js';
import { HostTally } from './host-tally.js';
import { ModelTally } from './model-usage.js';
import {
  ACTION_FAIL,
  ACTION_REVERT,
  ACTION_REWRITE,
  ACTION_SKIP,
  KIND_EV,
  KIND_EXPAND,
  KIND_OUT,
  KIND_REQ,
  KIND_RUN,
} from './read-codes.js';
import { RecallTally } from './recall.js';
import {
  type CommandRow,
  type ComponentRow,
  type DayRow,
  dayLabel,
  type LedgerInfo,
  pct,
  type StatsReport,
  tokenTotals,
  type UnmatchedRow,
  withCappedSaved,
  withSaved,
} from './report.js';
import { RequestTally } from './requests.js';
import { F_CMD, F_TK, F_WHY, type ScannedLine } from './scanned-line.js';
import { restoreTally, tallyShape, tallyState } from './tally-state.js';
import { UNMATCHED_REASON } from './unfiltered.js';

/** Commands remembered for matching in place: an agent runs a handful over and over. */
const RECENT_COMMANDS = 8;

/** Local calendar day of an instant, cached per day since lines come in time order. */
class Days {
  private from = 0;
  private to = -1;
  private label = '';

  of(t: number): string {
    if (t >= this.from && t < this.to) return this.label;
    const d = new Date(t);
    const start = new Date(d.getFullYear(), d.getMonth(), d.getDate());
    const end = new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1);
    this.from = start.getTime();
    this.to = end.getTime();
    this.label = dayLabel(start);
    return this.label;
  }
}

/**
 * Where the days of a state() begin and end in this time zone. Days are local: a state restored in
 * a zone where its days have other bounds would count some lines on other days (read-cache.ts).
 */
export function dayBounds(state: Record<string, unknown>): string {
  const out: number[] = [];
  for (const day of (state.daily as Map<string, DayRow>).keys()) {
    const [y, m, d] = day.split('-').map(Number) as [number, number, number];
    out.push(new Date(y, m - 1, d).getTime(), new Date(y, m - 1, d + 1).getTime());
  }
  return out.join(',');
}

export class Aggregator {
  private runs = 0;
  private rewritten = 0;
  private untouched = 0;
  private untouchedBytes = 0;
  private tin = 0;
  private tout = 0;
  private readonly ex = { requests: 0, hits: 0, misses: 0, tokensReturned: 0 };
  private readonly est = {
    outputs: 0,
    tokensIn: 0,
    tokensOut: 0,
    saved: 0,
    events: 0,
    expands: 0,
    tokensReturned: 0,
  };
  private readonly components = new Map<string, ComponentRow>();
  private readonly componentRows: ComponentRow[] = [];
  private readonly commands = new Map<string, CommandRow>();
  private readonly unmatched = new Map<string, UnmatchedRow>();
  private readonly daily = new Map<string, DayRow>();
  private readonly tokenizers = new Set<string>();
  private readonly days = new Days();
  private readonly hosts = new HostTally();
  private readonly recall = new RecallTally();
  private readonly unfiltered = new DiscoverTally();
  private readonly requests = new RequestTally();
  private readonly model = new ModelTally();
  /** The last few commands and their labels, matched in place before any string is made. */
  private readonly recentCmds: string[] = [];
  private readonly recentLabels: string[] = [];
  /** Tokens given back as the host showed them (an expand's output is capped like any other). */
  private cappedReturned = 0;

  /** Bound, so it can be handed to readLedger as the visitor. */
  readonly add = (l: ScannedLine): void => {
    switch (l.kind) {
      case KIND_RUN: {
        this.runs++;
        this.untouched += Math.max(0, l.n - l.rw);
        this.untouchedBytes += l.ub;
        this.day(l.t).runs++;
        this.tokenizer(l);
        this.hosts.run(l);
        break;
      }
      case KIND_OUT: {
        const label = this.labelOf(l);
        const row = this.command(label);
        if (l.nf) this.unfiltered.out(l, label);
        if (l.est) {
          this.est.outputs++;
          this.est.tokensIn += l.ti;
          this.est.tokensOut += l.to;
          this.est.saved += l.ti - l.to;
          row.estimated++;
          break;
        }
        this.rewritten++;
        this.tin += l.ti;
        this.tout += l.to;
        row.outputs++;
        row.tokensIn += l.ti;
        row.tokensOut += l.to;
        const hi = l.hi >= 0 ? l.hi : l.ti;
        const ho = l.ho >= 0 ? l.ho : l.to;
        row.cappedIn += hi;
        row.cappedOut += ho;
        const day = this.day(l.t);
        day.saved += l.ti - l.to;
        day.cappedSaved += hi - ho;
        this.hosts.out(l);
        break;
      }
      case KIND_EV: {
        const row = this.componentOf(l);
        if (l.mc > 0) {
          this.model.add(l);
          row.modelCalls += l.mc;
          row.modelTokensIn += l.mi;
          row.modelTokensOut += l.mo;
        }
        switch (l.action) {
          case ACTION_REWRITE:
            this.recall.rewrite(l);
            if (l.est) {
              row.estimated++;
              this.est.events++;
            } else {
              row.rewrites++;
              row.tokensIn += l.ti;
              row.tokensOut += l.to;
            }
            break;
          case ACTION_SKIP:
            row.skips++;
            if (
              row.component === 'cmdfilter' &&
              l.startsWith(F_WHY, 'no filter match') &&
              (l.equals(F_WHY, 'no filter matches') || UNMATCHED_REASON.test(l.why ?? ''))
            ) {
              const label = this.labelOf(l);
              if (!l.ro) this.unfiltered.untouched(l, label);
              let u = this.unmatched.get(label);
              if (!u) {
                u = { command: label, count: 0, bytes: 0 };
                this.unmatched.set(label, u);
              }
              u.count++;
              u.bytes += l.bi;
            }
            break;
          case ACTION_REVERT:
            row.reverts++;
            break;
          case ACTION_FAIL:
            row.fails++;
            break;
        }
        break;
      }
      case KIND_REQ:
        this.requests.add(l);
        break;
      case KIND_EXPAND: {
        this.recall.expand(l);
        this.ex.requests++;
        if (!l.hit) {
          this.ex.misses++;
          break;
        }
        this.ex.hits++;
        if (l.est) {
          this.est.expands++;
          this.est.tokensReturned += l.tr;
        } else {
          this.ex.tokensReturned += l.tr;
          this.cappedReturned += l.hr >= 0 ? l.hr : l.tr;
        }
        break;
      }
    }
  };

  /** Everything tallied so far, as plain data for a checkpoint (read-cache.ts, tally-state.ts). */
  state(): Record<string, unknown> {
    return tallyState(this);
  }

  /** Goes on from a state() of an aggregator of the same shape (a fresh one, before any line). */
  restore(state: Record<string, unknown>): void {
    restoreTally(this, state);
  }

  /** The names of every field state() holds: a checkpoint of another shape is not restored. */
  static shape(): string {
    return tallyShape(new Aggregator());
  }

  finish(opts: { top: number; since?: number; session?: string; ledger: LedgerInfo }): StatsReport {
    const model = this.model.finish();
    const components = [...this.components.values()]
      .map(withSaved)
      .sort((a, b) => b.saved - a.saved || a.component.localeCompare(b.component));
    const commands = [...this.commands.values()]
      .map(withCappedSaved)
      .sort(
        (a, b) =>
          b.cappedSaved - a.cappedSaved ||
          b.saved - a.saved ||
          b.outputs - a.outputs ||
          a.command.localeCompare(b.command),
      )
      .slice(0, opts.top);
    const unmatched = [...this.unmatched.values()]
      .sort((a, b) => b.count - a.count || b.bytes - a.bytes || a.command.localeCompare(b.command))
      .slice(0, opts.top);
    const daily = [...this.daily.values()].sort((a, b) => a.day.localeCompare(b.day));
    const { capped, hosts } = this.hosts.finish(this.cappedReturned, model.tokens);
    const discover = this.unfiltered.finish(opts.top);
    return {
      version: 1,
      filter: {
        since: opts.since !== undefined ? new Date(opts.since).toISOString() : null,
        session: opts.session ?? null,
      },
      runs: this.runs,
      outputs: { rewritten: this.rewritten, untouched: this.untouched, untouchedBytes: this.untouchedBytes },
      tokens: tokenTotals(this.tin, this.tout, this.ex.tokensReturned, model.tokens),
      expand: {
        ...this.ex,
        hitRate: pct(this.ex.hits, this.ex.requests),
      },
      estimated: { ...this.est },
      components,
      commands,
      unmatched,
      daily,
      tokenizers: [...this.tokenizers].sort(),
      ledger: opts.ledger,
      capped,
      hosts,
      recall: this.recall.finish(),
      discover: {
        commands: discover.commands,
        runs: discover.runs,
        tokens: discover.tokens,
        rows: discover.rows,
      },
      requests: this.requests.finish(),
      model,
    };
  }

  /** Tokenizers are a handful: a run line's is matched in place against those seen. */
  private tokenizer(l: ScannedLine): void {
    if (!l.has(F_TK)) return;
    for (const name of this.tokenizers) if (l.equals(F_TK, name)) return;
    this.tokenizers.add(l.tk!);
  }

  /** The line's command group; lines of one run share their command, so compare in place first. */
  private labelOf(l: ScannedLine): string {
    if (!l.has(F_CMD)) return l.tool ?? NO_COMMAND;
    const cmds = this.recentCmds;
    for (let i = 0; i < cmds.length; i++) if (l.equals(F_CMD, cmds[i]!)) return this.recentLabels[i]!;
    const cmd = l.cmd!;
    if (!cmd) return l.tool ?? NO_COMMAND;
    const label = commandLabel(cmd);
    if (cmds.length === RECENT_COMMANDS) {
      cmds.pop();
      this.recentLabels.pop();
    }
    cmds.unshift(cmd);
    this.recentLabels.unshift(label);
    return label;
  }

  private day(t: number): DayRow {
    const day = this.days.of(t);
    let row = this.daily.get(day);
    if (!row) {
      row = { day, runs: 0, saved: 0, cappedSaved: 0 };
      this.daily.set(day, row);
    }
    return row;
  }

  /** The row of the line's component, matched in place: most lines name one of a handful. */
  private componentOf(l: ScannedLine): ComponentRow {
    for (const row of this.componentRows) if (l.componentIs(row.component)) return row;
    const row = this.component(l.c ?? '?');
    if (!this.componentRows.includes(row)) this.componentRows.push(row);
    return row;
  }

  private component(name: string): ComponentRow {
    let row = this.components.get(name);
    if (!row) {
      row = {
        component: name,
        rewrites: 0,
        skips: 0,
        reverts: 0,
        fails: 0,
        tokensIn: 0,
        tokensOut: 0,
        saved: 0,
        savedPct: null,
        estimated: 0,
        modelCalls: 0,
        modelTokensIn: 0,
        modelTokensOut: 0,
      };
      this.components.set(name, row);
    }
    return row;
  }

  private command(label: string): CommandRow {
    let row = this.commands.get(label);
    if (!row) {
      row = {
        command: label,
        outputs: 0,
        tokensIn: 0,
        tokensOut: 0,
        saved: 0,
        savedPct: null,
        estimated: 0,
        cappedIn: 0,
        cappedOut: 0,
        cappedSaved: 0,
        cappedSavedPct: null,
      };
      this.commands.set(label, row);
    }
    return row;
  }
}
