/**
 * The items of a JSON array and their content features (smartcrush's measure of what an item adds),
 * each feature a small integer: the feature strings are interned once — a 56 MB array of records has
 * millions of leaves but far fewer distinct ones — so covering and counting them is typed-array
 * work, not a Set per item. The features of an item are those of its JSON.parse value.
 */
import { visitItems } from './leaves.js';
import { type JsonNode, parseJsonSpans, toValue } from './spans.js';

/** Strings longer than this add their words as features, not only the whole value. */
export const LONG_STRING = 40;

/** An array's items: their spans, and each one's distinct feature ids. */
export interface Items {
  count: number;
  starts: Int32Array;
  ends: Int32Array;
  /** Item i's feature ids are ids[at[i], at[i + 1]). */
  at: Int32Array;
  ids: Int32Array;
  /** How many distinct features there are (ids run from 0 below this). */
  features: number;
}

/** An Int32Array that doubles as it fills. */
class Int32s {
  a: Int32Array<ArrayBuffer> = new Int32Array(1024);
  n = 0;
  push(x: number): void {
    if (this.n === this.a.length) this.a = grown(this.a);
    this.a[this.n++] = x;
  }
}

function grown(a: Int32Array): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/**
 * Feature strings to ids. A feature is `name=value` or `name~word`; it is looked up by its head
 * (the part up to its first `=` or `~`) and the rest, so a leaf's feature is found without building
 * its string. (Split at the first separator, the same string always gives the same two parts, so
 * two leaves whose features are the same string share one id even when a name holds `=` or `~`.)
 * A feature is known by two independent 32-bit hashes of (head, rest), not by its characters: a
 * 56 MB array of records has a few million distinct features, and keeping their text cost more
 * memory than the array itself. Two different features share an id only if both hashes collide
 * (about 1 in 10^11 over a million features): smartcrush would then weigh one item's novelty a
 * little wrong, never lose a byte (what it drops is stashed). The open-addressed table holds two
 * numbers a slot (the second hash and the id + 1, zero-filled means empty) and the first hash per
 * id, so it is typed-array work with nothing for the collector to trace.
 */
class FeatureIds {
  /** Head → its number. */
  private readonly heads = new Map<string, number>();
  /** Plain name → its head's number, one table per separator (no `=` or `~` in the name). */
  private readonly byName = { '=': new Map<string, number>(), '~': new Map<string, number>() };
  private bits: number;
  /** Two numbers a slot: the feature's second hash, its id + 1 (0: empty). */
  private slots: Int32Array;
  /** Each id's first hash, which places it in the table (kept to place it again when it grows). */
  private firstHash = new Int32Array(1024);
  size = 0;

  /** `expected`: about how many distinct features to make room for at first. */
  constructor(expected: number) {
    this.bits = Math.min(22, Math.max(10, Math.ceil(Math.log2(expected + 1)) + 1));
    this.slots = new Int32Array(2 << this.bits);
  }

  private head(h: string): number {
    let n = this.heads.get(h);
    if (n === undefined) {
      n = this.heads.size;
      this.heads.set(h, n);
    }
    return n;
  }

  private idIn(head: number, rest: string): number {
    // FNV-1a and a multiply-rotate hash, each seeded with the head.
    let h = Math.imul(0x811c9dc5 ^ head, 0x01000193);
    let g = Math.imul(0x9e3779b9 ^ head, 0x85ebca6b);
    for (let i = 0; i < rest.length; i++) {
      const c = rest.charCodeAt(i);
      h = Math.imul(h ^ c, 0x01000193);
      g = Math.imul(((g ^ c) << 13) | ((g ^ c) >>> 19), 0xc2b2ae35) + 0x165667b1;
    }
    g ^= g >>> 16;
    g = Math.imul(g ^ rest.length, 0x85ebca6b);
    g ^= g >>> 13;
    const mask = (1 << this.bits) - 1;
    const { slots } = this;
    let slot = (h ^ (h >>> this.bits)) & mask;
    for (; slots[2 * slot + 1] !== 0; slot = (slot + 1) & mask) {
      const id = slots[2 * slot + 1]! - 1;
      if (slots[2 * slot] === g && this.firstHash[id] === h) return id;
    }
    const id = this.size++;
    if (id === this.firstHash.length) {
      const grown = new Int32Array(2 * id);
      grown.set(this.firstHash);
      this.firstHash = grown;
    }
    this.firstHash[id] = h;
    slots[2 * slot] = g;
    slots[2 * slot + 1] = id + 1;
    if (this.size * 4 > mask * 3) this.grow(); // at three quarters full
    return id;
  }

  /** Twice the slots, every entry placed again by its first hash. */
  private grow(): void {
    const old = this.slots;
    this.bits++;
    const mask = (1 << this.bits) - 1;
    const slots = new Int32Array(2 << this.bits);
    for (let o = 0; o < old.length; o += 2) {
      const entry = old[o + 1]!;
      if (entry === 0) continue;
      const h = this.firstHash[entry - 1]!;
      let slot = (h ^ (h >>> this.bits)) & mask;
      while (slots[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
      slots[2 * slot] = old[o]!;
      slots[2 * slot + 1] = entry;
    }
    this.slots = slots;
  }

  /** The id of the feature string f. */
  id(f: string): number {
    const cut = f.search(/[=~]/) + 1;
    return this.idIn(this.head(f.slice(0, cut)), f.slice(cut));
  }

  /** The id of `name` + sep + rest, sep being '=' or '~'. */
  of(name: string, sep: '=' | '~', rest: string): number {
    const named = this.byName[sep];
    let head = named.get(name);
    if (head === undefined) {
      if (name.includes('=') || name.includes('~')) return this.id(name + sep + rest);
      head = this.head(name + sep);
      named.set(name, head);
    }
    return this.idIn(head, rest);
  }
}

/**
 * The items of the valid JSON array whose `[` is at `open`, with their features: each leaf's
 * `name=value` (value as String() writes it, cut at 100 characters), and for a string longer than
 * LONG_STRING `name~word` for each of its words; an item that repeats a key, JSON.parse's view.
 */
export function itemFeatures(text: string, open: number): Items {
  // Room at first for a distinct feature every 64 characters (records of short fields come near).
  const features = new FeatureIds(text.length >> 6);
  let lastItem = new Int32Array(1024); // feature id → 1 + the last item that had it
  const starts = new Int32s();
  const ends = new Int32s();
  const at = new Int32s();
  const ids = new Int32s();
  at.push(0);
  const add = (id: number) => {
    if (id >= lastItem.length) lastItem = grown(lastItem);
    const item = starts.n + 1;
    if (lastItem[id] !== item) {
      lastItem[id] = item;
      ids.push(id);
    }
  };
  visitItems(text, open, {
    leaf(key, v) {
      const s = String(v);
      add(features.of(key, '=', s.length > 100 ? s.slice(0, 100) : s));
      if (typeof v === 'string' && s.length > LONG_STRING)
        for (const w of s.toLowerCase().match(/[a-z0-9_]{3,}/g) ?? []) add(features.of(key, '~', w));
    },
    item(start, end, repeatsKey) {
      if (repeatsKey) {
        // JSON.parse keeps the last of a repeated key: take this item's features from its value.
        for (let k = at.a[at.n - 1]!; k < ids.n; k++) lastItem[ids.a[k]!] = 0;
        ids.n = at.a[at.n - 1]!;
        for (const f of treeFeatures(parseJsonSpans(text.slice(start, end)))) add(features.id(f));
      }
      starts.push(start);
      ends.push(end);
      at.push(ids.n);
    },
  });
  return { count: starts.n, starts: starts.a, ends: ends.a, at: at.a, ids: ids.a, features: features.size };
}

/** The content features of one item from its parsed tree (for an item that repeats a key). */
function treeFeatures(item: JsonNode): Set<string> {
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
