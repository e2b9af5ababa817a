/**
 * smartcrush — lossy: a JSON array output (or an object whose one big member is such an array, as in
 * `{"total_count": 9, "items": […]}`) of at least min_items items and min_tokens tokens keeps
 *   - the first keep_first and last keep_last items,
 *   - every item whose JSON carries an error signal,
 *   - and, beyond that fixed set, the most informative other items: picked greedily by how much new
 *     content (leaf `key=value` pairs, words of long strings) each adds to what is already kept,
 *     stopping at the knee (Kneedle) of that coverage curve, so a list of near-identical records
 *     keeps few and a varied one keeps more.
 * Kept items stay verbatim and in order, with the array's own separators; then one line
 * `[K of N items shown] <<cg:KEY>>` + hint. Works on raw text as well as on tool outputs.
 */
import { MARKER_SLOT, type Outcome, type OutputComponent } from '../component.js';
import { type ConfigOf, integer, section } from '../config/fields.js';
import { type Items, itemFeatures } from '../json/item-features.js';
import { QUOTE, scanString, skipJsonSpace } from '../json/lexical.js';
import { scanJson, trimmedRange } from '../json/text.js';

/** The settings, declared once: parser, defaults and the reference tables (scripts/docs.mjs). */
export const CONFIG = section({
  min_items: integer({ min: 1 }).or(5).doc('fewest array items'),
  min_tokens: integer().or(200).doc('smaller arrays are left alone'),
  keep_first: integer().or(3).doc('first items kept'),
  keep_last: integer().or(2).doc('last items kept'),
});
export type SmartcrushConfig = ConfigOf<typeof CONFIG>;

/** An error-ish key with a non-empty value, an error-ish status value, or an exception in a string. */
const ERROR_SIGNAL =
  /"(?:error|errors|exception|err|fault|failure)"\s*:\s*(?!null\b|false\b|""|\[\s*\]|\{\s*\}|0\b)|:\s*"(?:error|errored|failed|failure|fatal|critical|exception|crashed|timed[ _-]?out)"|\b(?:Traceback|[A-Z]\w*(?:Error|Exception)):/i;

/**
 * Marks the items that carry an error signal, in one scan of the array's text: a signal never
 * spans two items (each alternative lies within one key and its value, or one string), so a match
 * marks the item it starts in, and the scan goes on after that item.
 */
function keepSignalled(text: string, items: Items, keep: Uint8Array): void {
  const { starts, ends, count } = items;
  const signal = new RegExp(ERROR_SIGNAL.source, 'gi');
  signal.lastIndex = starts[0]!;
  let k = 0;
  for (let m = signal.exec(text); m; m = signal.exec(text)) {
    while (k < count && ends[k]! <= m.index) k++;
    if (k === count) return;
    if (m.index < starts[k]!) continue; // between items: never, by the argument above
    keep[k] = 1;
    signal.lastIndex = ends[k]!;
  }
}

/** A Kneedle knee weaker than this (normalised distance above the chord) is no knee: stop at K. */
const MIN_KNEE = 0.05;

export const smartcrush: OutputComponent<SmartcrushConfig> = {
  name: 'smartcrush',
  lossy: true,
  scope: 'output',
  summary: 'Keep first, last, error and most informative items of a JSON array; the rest is stashed',
  defaults: CONFIG.defaults,
  parseConfig: CONFIG.parse,

  applies(o) {
    const c = o.text.trimStart()[0];
    return c === '[' || c === '{';
  },

  async run(o, cfg, ctx): Promise<Outcome> {
    const text = o.text;
    const arr = mainArray(text);
    if (arr === 'not JSON') return { kind: 'skip', gate: 'not JSON' };
    const items = arr && itemFeatures(text, arr.start);
    if (!arr || !items || items.count < Math.max(2, cfg.min_items))
      return { kind: 'skip', gate: 'no array of min_items' };
    if (cfg.min_tokens > 0 && !(await ctx.tokens.exceeds(text, cfg.min_tokens - 1)))
      return { kind: 'skip', gate: 'under min_tokens' };

    const n = items.count;
    const { starts, ends } = items;
    const keep = new Uint8Array(n);
    for (let i = 0; i < n; i++) if (i < cfg.keep_first || i >= n - cfg.keep_last) keep[i] = 1;
    keepSignalled(text, items, keep);
    for (const i of informative(items, keep)) keep[i] = 1;
    const kept = keep.reduce((a, b) => a + b, 0);
    if (kept === n) return { kind: 'skip', gate: 'every item kept' };

    // The array's own whitespace: before the first item, between items, after the last.
    const lead = text.slice(arr.start + 1, starts[0]!);
    const sep = text.slice(ends[0]!, starts[1]!);
    const trail = text.slice(ends[n - 1]!, arr.end - 1);
    const parts: string[] = [];
    for (let i = 0; i < n; i++) if (keep[i]) parts.push(text.slice(starts[i]!, ends[i]!));
    const body = `${text.slice(0, arr.start + 1)}${lead}${parts.join(sep)}${trail}${text.slice(arr.end - 1)}`;
    const eol = text.includes('\r\n') ? '\r\n' : '\n';
    const trimmed = body.replace(/\s+$/, '');
    const note = `${kept} of ${n} items shown`;
    return {
      kind: 'rewrite',
      text: `${trimmed}${eol}[${note}] ${MARKER_SLOT}${text.endsWith('\n') ? eol : ''}`,
      loss: 'whole',
      note,
    };
  },
};

interface Span {
  start: number;
  end: number;
}

/**
 * The array to crush: the root array, or the largest array member of a root object when it is most
 * of the object (otherwise the "rest" is what matters); 'not JSON' when the text is not one JSON
 * value. Found on the text (scanJson, which accepts what JSON.parse accepts): no tree is built.
 */
function mainArray(text: string): Span | undefined | 'not JSON' {
  const [first, last] = trimmedRange(text);
  const scan = first < last ? scanJson(text, first) : undefined;
  if (!scan?.ok || scan.end !== last) return 'not JSON';
  const c = text.charCodeAt(first);
  if (c === 0x5b) return { start: first, end: last };
  if (c !== 0x7b) return undefined;
  let best: Span | undefined;
  let i = skipJsonSpace(text, first + 1);
  while (text.charCodeAt(i) === QUOTE) {
    i = skipJsonSpace(text, skipJsonSpace(text, scanString(text, i)) + 1); // past the key and colon
    const v = scanJson(text, i);
    if (!v.ok) return 'not JSON'; // never: the whole text is valid
    if (text.charCodeAt(i) === 0x5b && (!best || v.end - i > best.end - best.start))
      best = { start: i, end: v.end };
    i = skipJsonSpace(text, v.end);
    if (text.charCodeAt(i) === 0x2c) i = skipJsonSpace(text, i + 1);
  }
  return best && (best.end - best.start) * 2 > last - first ? best : undefined;
}

/**
 * The items worth adding to the kept ones: greedy maximum coverage of new features (lazy greedy:
 * gains only shrink, so a stale gain is an upper bound), cut at the Kneedle knee of the coverage
 * curve. Ties go to the earlier item, so the choice is deterministic.
 */
export function informative(items: Items, keep: Uint8Array): number[] {
  const { at, ids } = items;
  const covered = new Uint8Array(items.features);
  const cover = (i: number) => {
    for (let k = at[i]!; k < at[i + 1]!; k++) covered[ids[k]!] = 1;
  };
  for (let i = 0; i < items.count; i++) if (keep[i]) cover(i);
  const gainOf = (i: number) => {
    let g = 0;
    for (let k = at[i]!; k < at[i + 1]!; k++) g += 1 - covered[ids[k]!]!;
    return g;
  };
  const heap = new GainHeap(items.count);
  for (let i = 0; i < items.count; i++) if (!keep[i]) heap.push(gainOf(i), i);
  const picks: number[] = [];
  const curve: number[] = [0];
  while (heap.size > 0) {
    const item = heap.topItem();
    heap.pop();
    const gain = gainOf(item);
    if (gain === 0) continue;
    if (heap.size > 0 && heap.precedes(0, gain, item)) {
      heap.push(gain, item);
      continue;
    }
    picks.push(item);
    cover(item);
    curve.push(curve[curve.length - 1]! + gain);
  }
  return picks.slice(0, knee(curve));
}

/** Kneedle on an increasing concave curve: the index farthest above the chord, or 0 when none is. */
export function knee(curve: readonly number[]): number {
  const m = curve.length - 1;
  const top = curve[m] ?? 0;
  if (m < 2 || top === 0) return 0;
  let best = 0;
  let bestD = MIN_KNEE;
  for (let i = 1; i < m; i++) {
    const d = curve[i]! / top - i / m;
    if (d > bestD) {
      bestD = d;
      best = i;
    }
  }
  return best;
}

/**
 * A binary heap of (gain, item), highest gain first, then lowest item: two typed arrays, so half a
 * million items cost 4 MB and no tuple objects. Each item is in it at most once, and the order is
 * total, so the items come out in one order whatever the heap's shape.
 */
class GainHeap {
  private readonly gains: Int32Array;
  private readonly items: Int32Array;
  size = 0;
  constructor(capacity: number) {
    this.gains = new Int32Array(capacity);
    this.items = new Int32Array(capacity);
  }
  topItem(): number {
    return this.items[0]!;
  }
  /** Whether the entry at slot i comes out before (gain, item). */
  precedes(i: number, gain: number, item: number): boolean {
    const g = this.gains[i]!;
    return g > gain || (g === gain && this.items[i]! < item);
  }
  push(gain: number, item: number): void {
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.precedes(p, gain, item)) break;
      this.gains[i] = this.gains[p]!;
      this.items[i] = this.items[p]!;
      i = p;
    }
    this.gains[i] = gain;
    this.items[i] = item;
  }
  pop(): void {
    const n = --this.size;
    if (n === 0) return;
    const gain = this.gains[n]!;
    const item = this.items[n]!;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const m = r < n && this.precedes(r, this.gains[l]!, this.items[l]!) ? r : l;
      if (!this.precedes(m, gain, item)) break;
      this.gains[i] = this.gains[m]!;
      this.items[i] = this.items[m]!;
      i = m;
    }
    this.gains[i] = gain;
    this.items[i] = item;
  }
}
