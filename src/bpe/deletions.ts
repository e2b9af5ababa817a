/**
 * How many tokens a text gains or loses when some of its whitespace is deleted (format's rewrite:
 * pretty JSON made compact), counted only where the deletions are.
 *
 * Why that is exact: a token never spans two pieces, so a text's count is the sum over any split of
 * it at piece boundaries that every encoding keeps whatever comes before — a "fixed" boundary
 * (pieces.ts: an ASCII letter or digit, then a character that cannot continue its run). Counting a
 * stretch between two fixed boundaries on its own gives its pieces in the whole text (the regexes
 * have no look-behind, and a cut after a letter or digit is one no end-of-input test can move: see
 * count.ts). So split the longer text at the fixed boundaries around each deleted run, and the
 * shorter one at the same characters (they are never deleted): the stretches between deletions are
 * the same text in both and count the same; only the stretches holding deletions differ. The
 * difference of the two texts' counts is the sum of those stretches' differences — exact, without
 * counting the rest. Stretches repeat (`",\n    "name` → `","name` on every line of a pretty array),
 * so each distinct pair is counted once.
 *
 * One pass over both texts finds the deleted runs and the stretches around them as it goes (no list
 * of runs is built: a 50 MB pretty array has four million of them). The pass reads the texts a window
 * at a time, copied into 16-bit arrays (a typed array is read about twice as fast as charCodeAt, and
 * windows keep the copies to a few megabytes): a window ends at the last stretch end or fixed boundary
 * before its edge, where the next one starts — a stretch is never cut, so the stretches, and the
 * result, are the very ones of one pass over the whole texts.
 *
 * This function runs once per decision, over megabytes, so V8 optimises it mid-loop (OSR) from the
 * feedback of the stretches seen so far; a path first taken after that (a probe's collision, a
 * second window, the pool's growth) deoptimises it back to the interpreter and costs a recompile of
 * the whole loop with what it inlines (~100 ms of CPU each; five of them on a 10 MB document, more
 * than the pass itself). So every such path is made to run within the first stretches: the probe
 * steps on every lookup, the first windows are small and the pool starts small.
 */

import { fillUnits as fill } from '../text/utf16-window.js';
import { fixedPair } from './pieces.js';

/** Stretch pairs remembered per call (a power of two): past half of it, each is counted as it comes. */
const MEMO_SLOTS = 1 << 17;
/** Deleted runs a remembered stretch may hold (two numbers each). */
const MAX_CUTS = 32;
/** UTF-16 units of each text read at a time (4 MB of copies for both). */
const WINDOW = 1 << 20;
/**
 * The first window's size, doubling window by window up to WINDOW, and the pool's first size: so the
 * paths that run once a window or once a growth run many times in the first few thousand stretches,
 * before V8 optimises this function (see the header).
 */
const FIRST_WINDOW = 1 << 12;
const FIRST_POOL = 1 << 8;
/**
 * A window grows (doubling) only when one stretch does not fit in it; past this, the deletion is left
 * to whole counts (undefined): a stretch of millions of units has no fixed boundary in it, text no
 * JSON formatter writes.
 */
const MAX_WINDOW = 1 << 23;

const FNV_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** Mixed into the hash for a deleted character: a stretch's hash then covers both texts' stretches. */
const DELETED = 0x10000;

/** The whitespace a deletion may remove: ASCII space, tab, LF, VT, FF, CR. */
function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

/** Counts a stretch on its own; undefined when it cannot now (then neither can deletionDelta). */
export type StretchCount = (text: string) => number | undefined;

/**
 * tokens(shorter) − tokens(longer) when shorter is longer with some of its ASCII whitespace deleted;
 * undefined when it is not (or `count` cannot count a stretch). Which characters count as deleted
 * is decided greedily — a character is kept while it matches, deleted only when it is whitespace
 * that does not — and any alignment that spells shorter gives the same difference. With
 * `countShorter`, the shorter text's stretches are counted by it instead: given an upper bound there
 * and a lower bound as `count`, the result is an upper bound on the difference (below zero, the
 * deletion has fewer tokens, shown without the vocabulary). `windows` (for tests: small ones put
 * window edges everywhere) sets the window's size and how far it may grow.
 */
export function deletionDelta(
  longer: string,
  shorter: string,
  count: StretchCount,
  countShorter: StretchCount = count,
  windows: { size: number; max: number } = { size: WINDOW, max: MAX_WINDOW },
): number | undefined {
  const L = longer.length;
  const S = shorter.length;
  // Stretch pairs by hash, open-addressed: slot → the pair's hash, where it sits in the pool (the
  // longer stretch's characters, then where its deleted runs start and end), and its delta. The
  // shorter stretch is the longer one without those runs, so the two texts are compared as that.
  const hashes = new Int32Array(MEMO_SLOTS);
  const at = new Int32Array(MEMO_SLOTS).fill(-1);
  const longLength = new Int32Array(MEMO_SLOTS);
  const cutCount = new Int32Array(MEMO_SLOTS);
  const deltas = new Int32Array(MEMO_SLOTS);
  let pool = new Uint16Array(FIRST_POOL);
  let pooled = 0;
  let remembered = 0;
  /** The current stretch's deleted runs, as offsets from its start: [start, end) pairs. */
  const cuts = new Uint16Array(MAX_CUTS);
  // The current windows: lw[k - lo] is longer's unit k, sw[k - so] shorter's.
  // The arrays hold a full window; the first windows use only the start of them.
  let lw = new Uint16Array(Math.min(windows.size, Math.max(L, 1)));
  let sw = new Uint16Array(lw.length);
  let size = Math.min(FIRST_WINDOW, lw.length);
  let lo = 0;
  let so = 0;
  // The closures below are handed the window, the stretch's place in it and its runs' count rather
  // than reading the loop's own variables: what a closure captures lives in a heap context, and the
  // loop would read lw and write cutsUsed through it on every character.
  /** Whether the remembered pair in slot is the stretch win[s, e) with the current cuts. */
  const sameAs = (slot: number, win: Uint16Array, s: number, e: number, cutsUsed: number): boolean => {
    if (longLength[slot] !== e - s || cutCount[slot] !== cutsUsed) return false;
    let p = at[slot]!;
    for (let k = s; k < e; k++) if (pool[p++] !== win[k]) return false;
    for (let k = 0; k < cutsUsed; k++) if (pool[p++] !== cuts[k]) return false;
    return true;
  };
  const remember = (
    slot: number,
    h: number,
    win: Uint16Array,
    s: number,
    e: number,
    cutsUsed: number,
    d: number,
  ) => {
    const need = pooled + (e - s) + cutsUsed;
    if (need > pool.length) {
      const grown = new Uint16Array(Math.max(need, 2 * pool.length));
      grown.set(pool);
      pool = grown;
    }
    hashes[slot] = h;
    at[slot] = pooled;
    longLength[slot] = e - s;
    cutCount[slot] = cutsUsed;
    deltas[slot] = d;
    for (let k = s; k < e; k++) pool[pooled++] = win[k]!;
    for (let k = 0; k < cutsUsed; k++) pool[pooled++] = cuts[k]!;
    remembered++;
  };
  /**
   * tokens(shorter[sa, sb)) − tokens(longer[a, b)), memoised by the pair (h: its hash); longer[a, b)
   * is win[a - lo, b - lo), with cutsUsed numbers of cuts.
   */
  const differenceOf = (
    h: number,
    a: number,
    b: number,
    sa: number,
    sb: number,
    win: Uint16Array,
    lo: number,
    cutsUsed: number,
  ): number | undefined => {
    // A stretch too long for 16-bit offsets, or with too many runs, is counted every time.
    const memoised = cutsUsed <= MAX_CUTS && b - a < 0x10000;
    // The probe steps before it looks, from the slot before the home one: the step then runs on every
    // call, not first on a collision, long after the loop was optimised without it (a deopt and a
    // recompile of this whole function, see the header).
    let slot = ((h ^ (h >>> 15)) - 1) & (MEMO_SLOTS - 1);
    if (memoised)
      for (;;) {
        slot = (slot + 1) & (MEMO_SLOTS - 1);
        if (at[slot] === -1) break;
        if (hashes[slot] === h && sameAs(slot, win, a - lo, b - lo, cutsUsed)) return deltas[slot];
      }
    const x = count(longer.slice(a, b));
    const y = countShorter(shorter.slice(sa, sb));
    if (x === undefined || y === undefined) return undefined;
    if (memoised && remembered < MEMO_SLOTS >> 1) remember(slot, h, win, a - lo, b - lo, cutsUsed, y - x);
    return y - x;
  };

  let delta = 0;
  let lastEnd = 0; // where the last stretch ended in longer: a fixed boundary, or the start
  let lastEndS = 0; // the same character in shorter
  for (;;) {
    // A window from the last stretch end, the same character in both texts.
    lo = lastEnd;
    so = lastEndS;
    const ln = Math.min(L, lo + size) - lo;
    const sn = Math.min(S, so + size) - so;
    const edge = lo + ln < L; // the window stops short of longer's end
    fill(lw, longer, lo, ln);
    fill(sw, shorter, so, sn);
    let moved = false;
    // x in longer's window, y in shorter's, at the same character. y never passes x, so while x is
    // inside its window, y < sn says exactly that y is inside shorter.
    let x = 0;
    let y = 0;
    for (;;) {
      while (x < ln && y < sn && lw[x] === sw[y]) {
        x++;
        y++;
      }
      if (x >= ln) {
        if (!edge) return so + y === S ? delta : undefined;
        // The window's edge inside kept text: the next window starts at its last fixed boundary
        // (any fixed boundary may end a stretch: the next one's start is found as before).
        const from = lastEnd - lo;
        let f = x - 1;
        while (f > from && !fixedPair(lw[f - 1]!, lw[f]!)) f--;
        if (f > from) {
          lastEnd = lo + f;
          lastEndS = so + y - (x - f);
          moved = true;
        }
        break;
      }
      if (!isSpace(lw[x]!)) return undefined;
      // A deleted run starts at x. Its stretch starts at the last fixed boundary before it (both its
      // characters kept, so the same boundary in shorter), or where the last stretch ended.
      const from = lastEnd - lo;
      let a = x - 1;
      while (a > from && !fixedPair(lw[a - 1]!, lw[a]!)) a--;
      if (a < from) a = from;
      const sa = y - (x - a);
      // The stretch's hash, over its characters as they go by (each deleted one marked).
      let h = FNV_BASIS;
      for (let k = a; k < x; k++) h = Math.imul(h ^ lw[k]!, FNV_PRIME);
      let cutsUsed = 0;
      // It ends at the first fixed boundary after a run (both characters kept); a run met before one
      // joins this stretch. Reaching the window's edge first, it is left whole to the next window.
      let cut = false;
      for (;;) {
        const runStart = x;
        for (; x < ln; x++) {
          const c = lw[x]!;
          if (!isSpace(c) || (y < sn && c === sw[y])) break;
          h = Math.imul(h ^ (c | DELETED), FNV_PRIME);
        }
        const runEnd = x;
        if (cutsUsed < MAX_CUTS) {
          cuts[cutsUsed] = runStart - a;
          cuts[cutsUsed + 1] = runEnd - a;
        }
        cutsUsed += 2;
        let joined = false;
        // The first kept character after the run starts no fixed boundary (one of its pair is
        // deleted); from the next on, `before` is the kept character before x.
        let before = -1;
        for (; x < ln; x++, y++) {
          const c = lw[x]!;
          if (y < sn && c === sw[y]) {
            if (before !== -1 && fixedPair(before, c)) break;
            h = Math.imul(h ^ c, FNV_PRIME);
            before = c;
          } else if (isSpace(c)) {
            joined = true;
            break;
          } else return undefined;
        }
        if (x >= ln && edge) {
          cut = true;
          break;
        }
        if (!joined) break;
      }
      if (cut) break;
      const d = differenceOf(h, lo + a, lo + x, so + sa, so + y, lw, lo, cutsUsed);
      if (d === undefined) return undefined;
      delta += d;
      lastEnd = lo + x;
      lastEndS = so + y;
      moved = true;
    }
    if (!moved) {
      // One stretch wider than the window: a wider one, up to the limit.
      if (size >= windows.max) return undefined;
      size = Math.min(2 * size, windows.max);
      if (size > lw.length) {
        lw = new Uint16Array(size);
        sw = new Uint16Array(size);
      }
    } else if (size < windows.size) size = Math.min(2 * size, windows.size, lw.length);
  }
}
