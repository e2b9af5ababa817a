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
 * are joined at the end, since settling pending records can append a run after its expands. A key
 * (16 hex digits) is read in place as three small numbers, so no string is made per line.
 *
 * A row is flagged tooAggressive once it has shown at least MIN_MARKERS markers and more than
 * TOO_AGGRESSIVE_PCT % of them came back: that filter cuts what the agent then needs.
 */
import { F_F, F_K, type ScannedLine } from './scanned-line.js';

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

/** One marker key: who showed it and how often, how often it was expanded and what came back. */
interface KeyEntry {
  hi: number;
  mid: number;
  lo: number;
  row: RecallRow | undefined;
  markers: number;
  requests: number;
  tokens: number;
  estimated: number;
}

/** A tally's state for a checkpoint: its rows, and every key entry packed as ENTRY numbers. */
export interface RecallState {
  rows: RecallRow[];
  keys: Float64Array;
}

/** hi, mid, lo, row index (-1: none yet), markers, requests, tokens, estimated. */
const ENTRY = 8;

export class RecallTally {
  private readonly rows: RecallRow[] = [];
  /** Keys by a small hash of all 16 digits (a Smi: fast to look up), then told apart exactly. */
  private readonly keys = new Map<number, KeyEntry[]>();
  /** Key entries a checkpoint restored and no line has needed yet (then keys is empty). */
  private packed: Float64Array | undefined;

  /** An ev rewrite line (only those with a key put a marker in front of the agent). */
  rewrite(l: ScannedLine): void {
    const entry = this.entry(l);
    if (!entry) return;
    const row = this.row(l);
    row.markers++;
    if (!entry.row) entry.row = row;
    if (entry.row === row) entry.markers++; // the key's recalls are capped by its producer's markers
  }

  expand(l: ScannedLine): void {
    const entry = this.entry(l);
    if (!entry) return;
    entry.requests++;
    if (!l.hit) return;
    if (l.est) entry.estimated += l.tr;
    else entry.tokens += l.tr;
  }

  finish(): RecallRow[] {
    const k = this.packed;
    if (k) {
      for (let at = 0; at < k.length; at += ENTRY) {
        const row = k[at + 3]! < 0 ? undefined : this.rows[k[at + 3]!];
        joinKey(row, k[at + 4]!, k[at + 5]!, k[at + 6]!, k[at + 7]!);
      }
    }
    for (const list of this.keys.values()) {
      for (const x of list) joinKey(x.row, x.markers, x.requests, x.tokens, x.estimated);
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

  /**
   * The rows and key entries (tally-state.ts): tens of thousands of keys as one typed array, which
   * a checkpoint copies as bytes, not as an object each.
   */
  state(): RecallState {
    if (this.packed) return { rows: this.rows, keys: this.packed };
    let n = 0;
    for (const list of this.keys.values()) n += list.length;
    const keys = new Float64Array(n * ENTRY);
    let at = 0;
    for (const list of this.keys.values()) {
      for (const x of list) {
        keys[at] = x.hi;
        keys[at + 1] = x.mid;
        keys[at + 2] = x.lo;
        keys[at + 3] = x.row ? this.rows.indexOf(x.row) : -1;
        keys[at + 4] = x.markers;
        keys[at + 5] = x.requests;
        keys[at + 6] = x.tokens;
        keys[at + 7] = x.estimated;
        at += ENTRY;
      }
    }
    return { rows: this.rows, keys };
  }

  /**
   * Goes on from a state() (into a fresh tally). The entries stay packed until a line needs one:
   * a report that reads nothing new joins them straight from the array.
   */
  restore(state: RecallState): void {
    this.rows.length = 0;
    this.rows.push(...state.rows);
    this.keys.clear();
    this.packed = state.keys;
  }

  /** The packed entries into the map, in the same order as they were packed. */
  private unpack(k: Float64Array): void {
    this.packed = undefined;
    for (let at = 0; at < k.length; at += ENTRY) {
      const row = k[at + 3]!;
      this.bucket(k[at]!, k[at + 1]!, k[at + 2]!).push({
        hi: k[at]!,
        mid: k[at + 1]!,
        lo: k[at + 2]!,
        row: row < 0 ? undefined : this.rows[row],
        markers: k[at + 4]!,
        requests: k[at + 5]!,
        tokens: k[at + 6]!,
        estimated: k[at + 7]!,
      });
    }
  }

  /** The line's key entry (made on first sight), or undefined for a line without a marker key. */
  private entry(l: ScannedLine): KeyEntry | undefined {
    if (l.lengthOf(F_K) !== 16) return undefined;
    const hi = l.hex(F_K, 0, 7);
    const mid = l.hex(F_K, 7, 7);
    const lo = l.hex(F_K, 14, 2);
    if (hi < 0 || mid < 0 || lo < 0) return undefined;
    if (this.packed) this.unpack(this.packed);
    const list = this.bucket(hi, mid, lo);
    for (const x of list) if (x.hi === hi && x.mid === mid && x.lo === lo) return x;
    const x: KeyEntry = { hi, mid, lo, row: undefined, markers: 0, requests: 0, tokens: 0, estimated: 0 };
    list.push(x);
    return x;
  }

  /** The entries of keys with this hash (made empty on first sight). */
  private bucket(hi: number, mid: number, lo: number): KeyEntry[] {
    const h =
      (Math.imul(hi, 0x9e3779b1) ^ Math.imul(mid, 0x85ebca77) ^ Math.imul(lo, 0xc2b2ae3d)) & 0x3fffffff;
    let list = this.keys.get(h);
    if (!list) {
      list = [];
      this.keys.set(h, list);
    }
    return list;
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

/** Adds one key's expands to the row that showed it, at most one recall per marker shown. */
function joinKey(
  row: RecallRow | undefined,
  markers: number,
  requests: number,
  tokens: number,
  estimated: number,
) {
  // A key shown before the window, or stashed by something that is not a run, is nobody's.
  if (!row || requests === 0) return;
  row.expands += requests;
  row.recalled += Math.min(requests, markers);
  row.tokensReturned += tokens;
  row.tokensReturnedEstimated += estimated;
}

/** `cmdfilter/git-log`, or the component's name. */
export function label(r: Pick<RecallRow, 'component' | 'filter'>): string {
  return r.filter === null ? r.component : `${r.component}/${r.filter}`;
}
