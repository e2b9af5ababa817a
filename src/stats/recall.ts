/**
 * Recall per filter and component: how often what a component elided came back through `cg expand`.
 * Every lossy rewrite puts one marker in front of the agent (its ev line carries the key k); every
 * `cg expand` of that key is a recall. A marker counts as recalled at most once, so
 *
 *   recallRate = Σ over keys of min(expands of the key, markers shown with it) / markers shown
 *
 * lies in 0..100 % and reads "this share of the markers came back". cmdfilter is split by the filter
 * it applied (f); other components have one row. A key shown by more than one component (the same
 * original cut twice) counts its expands to the first one the ledger names. Expands and markers
 * are joined at the end, since settling pending records can append a run after its expands.
 *
 * A row is flagged tooAggressive once it has shown at least MIN_MARKERS markers and more than
 * TOO_AGGRESSIVE_PCT % of them came back: that filter cuts what the agent then needs.
 */
import { F_F, type ScannedLine } from './scanned-line.js';

export const TOO_AGGRESSIVE_PCT = 30;
/** Fewer markers than this say too little to call a filter too aggressive. */
export const MIN_MARKERS = 5;

export interface RecallRow {
  component: string;
  /** The filter, for cmdfilter rows (null: a component, or cmdfilter lines that named none). */
  filter: string | null;
  /** Markers shown: lossy rewrites with a stashed original. */
  markers: number;
  /** `cg expand` requests for those markers' keys (hits and misses). */
  expands: number;
  /** Markers that came back at least once. */
  recalled: number;
  /** Exact tokens those expands gave back (estimated ones are under tokensReturnedEstimated). */
  tokensReturned: number;
  tokensReturnedEstimated: number;
  recallRate: number | null;
  tooAggressive: boolean;
}

interface KeyShown {
  row: RecallRow;
  markers: number;
}

interface KeyExpanded {
  requests: number;
  tokens: number;
  estimated: number;
}

export class RecallTally {
  private readonly rows: RecallRow[] = [];
  private readonly shown = new Map<string, KeyShown>();
  private readonly expanded = new Map<string, KeyExpanded>();

  /** An ev rewrite line (only those with a key put a marker in front of the agent). */
  rewrite(l: ScannedLine): void {
    const key = l.k;
    if (key === undefined) return;
    const row = this.row(l);
    row.markers++;
    const seen = this.shown.get(key);
    if (!seen) this.shown.set(key, { row, markers: 1 });
    else if (seen.row === row) seen.markers++; // the key's recalls are capped by its producer's markers
  }

  expand(l: ScannedLine): void {
    const key = l.k;
    if (key === undefined) return;
    let x = this.expanded.get(key);
    if (!x) {
      x = { requests: 0, tokens: 0, estimated: 0 };
      this.expanded.set(key, x);
    }
    x.requests++;
    if (!l.hit) return;
    if (l.est) x.estimated += l.tr;
    else x.tokens += l.tr;
  }

  finish(): RecallRow[] {
    for (const [key, x] of this.expanded) {
      const seen = this.shown.get(key);
      if (!seen) continue; // a key shown before the window, or stashed by something that is not a run
      const row = seen.row;
      row.expands += x.requests;
      row.recalled += Math.min(x.requests, seen.markers);
      row.tokensReturned += x.tokens;
      row.tokensReturnedEstimated += x.estimated;
    }
    for (const row of this.rows) {
      row.recallRate = row.markers > 0 ? Math.round((row.recalled / row.markers) * 1000) / 10 : null;
      row.tooAggressive =
        row.markers >= MIN_MARKERS && row.recallRate !== null && row.recallRate > TOO_AGGRESSIVE_PCT;
    }
    return [...this.rows].sort(
      (a, b) =>
        (b.recallRate ?? 0) - (a.recallRate ?? 0) ||
        b.markers - a.markers ||
        label(a).localeCompare(label(b)),
    );
  }

  private row(l: ScannedLine): RecallRow {
    for (const row of this.rows) {
      if ((row.filter === null ? !l.has(F_F) : l.equals(F_F, row.filter)) && l.componentIs(row.component))
        return row;
    }
    const row: RecallRow = {
      component: l.c ?? '?',
      filter: l.f ?? null,
      markers: 0,
      expands: 0,
      recalled: 0,
      tokensReturned: 0,
      tokensReturnedEstimated: 0,
      recallRate: null,
      tooAggressive: false,
    };
    this.rows.push(row);
    return row;
  }
}

/** `cmdfilter/git-log`, or the component's name. */
export function label(r: Pick<RecallRow, 'component' | 'filter'>): string {
  return r.filter === null ? r.component : `${r.component}/${r.filter}`;
}
