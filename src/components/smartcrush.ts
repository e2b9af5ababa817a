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
import { type JsonArray, type JsonNode, parseJsonSpans, toValue } from '../json/spans.js';
import { integer, mapping } from '../validate.js';

export interface SmartcrushConfig {
  min_items: number;
  min_tokens: number;
  keep_first: number;
  keep_last: number;
}

const DEFAULTS: SmartcrushConfig = { min_items: 5, min_tokens: 200, keep_first: 3, keep_last: 2 };

/** An error-ish key with a non-empty value, an error-ish status value, or an exception in a string. */
const ERROR_SIGNAL =
  /"(?:error|errors|exception|err|fault|failure)"\s*:\s*(?!null\b|false\b|""|\[\s*\]|\{\s*\}|0\b)|:\s*"(?:error|errored|failed|failure|fatal|critical|exception|crashed|timed[ _-]?out)"|\b(?:Traceback|[A-Z]\w*(?:Error|Exception)):/i;

/** A Kneedle knee weaker than this (normalised distance above the chord) is no knee: stop at K. */
const MIN_KNEE = 0.05;
/** Strings longer than this add their words as features, not only the whole value. */
const LONG_STRING = 40;

export const smartcrush: OutputComponent<SmartcrushConfig> = {
  name: 'smartcrush',
  lossy: true,
  scope: 'output',
  summary: 'Keep first, last, error and most informative items of a JSON array; the rest is stashed',
  defaults: DEFAULTS,

  parseConfig(raw: unknown): SmartcrushConfig {
    const m = mapping(raw, '', ['min_items', 'min_tokens', 'keep_first', 'keep_last']);
    return {
      min_items: integer(m.min_items, 'min_items', DEFAULTS.min_items, 1),
      min_tokens: integer(m.min_tokens, 'min_tokens', DEFAULTS.min_tokens),
      keep_first: integer(m.keep_first, 'keep_first', DEFAULTS.keep_first),
      keep_last: integer(m.keep_last, 'keep_last', DEFAULTS.keep_last),
    };
  },

  applies(o) {
    const c = o.text.trimStart()[0];
    return c === '[' || c === '{';
  },

  async run(o, cfg, ctx): Promise<Outcome> {
    const text = o.text;
    let root: JsonNode;
    try {
      root = parseJsonSpans(text);
    } catch {
      return { kind: 'skip', gate: 'not JSON' };
    }
    const arr = mainArray(root);
    if (!arr || arr.items.length < Math.max(2, cfg.min_items))
      return { kind: 'skip', gate: 'no array of min_items' };
    if (cfg.min_tokens > 0 && !(await ctx.tokens.exceeds(text, cfg.min_tokens - 1)))
      return { kind: 'skip', gate: 'under min_tokens' };

    const items = arr.items;
    const n = items.length;
    const keep = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      if (i < cfg.keep_first || i >= n - cfg.keep_last) keep[i] = 1;
      else if (ERROR_SIGNAL.test(text.slice(items[i]!.start, items[i]!.end))) keep[i] = 1;
    }
    for (const i of informative(items, keep)) keep[i] = 1;
    const kept = keep.reduce((a, b) => a + b, 0);
    if (kept === n) return { kind: 'skip', gate: 'every item kept' };

    // The array's own whitespace: before the first item, between items, after the last.
    const lead = text.slice(arr.start + 1, items[0]!.start);
    const sep = text.slice(items[0]!.end, items[1]!.start);
    const trail = text.slice(items[n - 1]!.end, arr.end - 1);
    const parts: string[] = [];
    for (let i = 0; i < n; i++) if (keep[i]) parts.push(text.slice(items[i]!.start, items[i]!.end));
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

/** The array to crush: the root array, or the largest array member of a root object. */
function mainArray(root: JsonNode): JsonArray | undefined {
  if (root.type === 'array') return root;
  if (root.type !== 'object') return undefined;
  let best: JsonArray | undefined;
  for (const m of root.members) {
    const v = m.value;
    if (v.type === 'array' && (!best || v.end - v.start > best.end - best.start)) best = v;
  }
  // Only when the array is most of the object: otherwise the "rest" is what matters.
  return best && (best.end - best.start) * 2 > root.end - root.start ? best : undefined;
}

/** The content features of one item: leaf `key=value` pairs, plus the words of long strings. */
function features(item: JsonNode): Set<string> {
  const out = new Set<string>();
  const stack: [unknown, string][] = [[toValue(item), '']];
  for (let job = stack.pop(); job; job = stack.pop()) {
    const [v, key] = job;
    if (Array.isArray(v)) {
      for (const x of v) stack.push([x, key]);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) stack.push([x, k]);
    } else {
      const s = String(v);
      out.add(`${key}=${s.slice(0, 100)}`);
      if (typeof v === 'string' && s.length > LONG_STRING) {
        for (const w of s.toLowerCase().match(/[a-z0-9_]{3,}/g) ?? []) out.add(`${key}~${w}`);
      }
    }
  }
  return out;
}

/**
 * The items worth adding to the kept ones: greedy maximum coverage of new features (lazy greedy:
 * gains only shrink, so a stale gain is an upper bound), cut at the Kneedle knee of the coverage
 * curve. Ties go to the earlier item, so the choice is deterministic.
 */
export function informative(items: readonly JsonNode[], keep: Uint8Array): number[] {
  const covered = new Set<string>();
  const feats = items.map((item, i) => {
    const f = features(item);
    if (keep[i]) for (const x of f) covered.add(x);
    return f;
  });
  const gainOf = (i: number) => {
    let g = 0;
    for (const x of feats[i]!) if (!covered.has(x)) g++;
    return g;
  };
  const heap: [number, number][] = [];
  for (let i = 0; i < items.length; i++) if (!keep[i]) heapPush(heap, [gainOf(i), i]);
  const picks: number[] = [];
  const curve: number[] = [0];
  while (heap.length > 0) {
    const top = heapPop(heap)!;
    const fresh: [number, number] = [gainOf(top[1]), top[1]];
    if (fresh[0] === 0) continue;
    const next = heap[0];
    if (next && before(next, fresh)) {
      heapPush(heap, fresh);
      continue;
    }
    const gain = fresh[0];
    picks.push(top[1]);
    for (const x of feats[top[1]]!) covered.add(x);
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

/** Max-heap on gain, then min on index. */
function before(a: [number, number], b: [number, number]): boolean {
  return a[0] > b[0] || (a[0] === b[0] && a[1] < b[1]);
}

function heapPush(h: [number, number][], x: [number, number]): void {
  h.push(x);
  let i = h.length - 1;
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (!before(h[i]!, h[p]!)) break;
    [h[i], h[p]] = [h[p]!, h[i]!];
    i = p;
  }
}

function heapPop(h: [number, number][]): [number, number] | undefined {
  const top = h[0];
  const last = h.pop();
  if (h.length > 0 && last) {
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && before(h[l]!, h[m]!)) m = l;
      if (r < h.length && before(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
  return top;
}
