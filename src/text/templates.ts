/**
 * Template mining over the lines of a text: each line joins the group of its template (template.ts),
 * and each group remembers how many lines it has, where it first occurs, which of its lines carry an
 * error signal (FOLD_SIGNALS, signals.ts), and per slot the values it took. Linear in the input,
 * memory bounded: at most `maxTemplates` groups (lines of further templates stay ungrouped) and at
 * most `trackValues` distinct values per slot (beyond that only a numeric range is kept). Deterministic: groups are
 * numbered in order of first occurrence.
 */
import { FOLD_SIGNALS } from './signals.js';
import { type LineTemplate, templateOf } from './template.js';

export interface SlotValues {
  /** Distinct values in order of first appearance (at most trackValues). */
  distinct: string[];
  /** More distinct values were seen than `distinct` holds. */
  overflow: boolean;
  /** Every value so far is a plain decimal number: min and max are meaningful. */
  numeric: boolean;
  min: number;
  max: number;
  /** min and max as written (leading zeros kept). */
  minText: string;
  maxText: string;
  /**
   * Every value so far has the same shape (the same text once each digit is read as 0: timestamps,
   * versions, fixed-width ids): then lowest and highest, compared as text, make a range.
   */
  sameShape: boolean;
  shape: string;
  lowest: string;
  highest: string;
}

export interface Group {
  id: number;
  /** The template key (see template.ts). */
  key: string;
  count: number;
  /** 0-based index of its first line. */
  first: number;
  /** Index of its first line with an error signal, or -1. */
  firstSignal: number;
  signalLines: number;
  /** Per slot, the values it took; empty when the group's lines had differing slot counts. */
  slots: SlotValues[];
}

export interface Mined {
  groups: Group[];
  /** Group id of each line; -1 for a line whose template was not tracked. */
  groupOf: Int32Array;
  /** 1 for a line with an error signal. */
  signal: Uint8Array;
}

export interface MineOptions {
  maxTemplates: number;
  trackValues: number;
}

const NUMBER = /^-?\d+(?:\.\d+)?$/;
const DIGITS = /\d/g;

/** Lines by index: an array, or a LineTable that slices each when asked. */
export interface LineSource {
  readonly length: number;
  at(i: number): string | undefined;
}

export function mineTemplates(lines: LineSource, opts: MineOptions): Mined {
  const groups: Group[] = [];
  const byKey = new Map<string, Group>();
  const groupOf = new Int32Array(lines.length);
  const signal = new Uint8Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const line = lines.at(i)!;
    const sig = FOLD_SIGNALS.has(line);
    if (sig) signal[i] = 1;
    const t = templateOf(line);
    let g = byKey.get(t.key);
    if (!g) {
      if (groups.length >= opts.maxTemplates) {
        groupOf[i] = -1;
        continue;
      }
      g = { id: groups.length, key: t.key, count: 0, first: i, firstSignal: -1, signalLines: 0, slots: [] };
      g.slots = t.values.map(() => ({
        distinct: [],
        overflow: false,
        numeric: true,
        min: Infinity,
        max: -Infinity,
        minText: '',
        maxText: '',
        sameShape: true,
        shape: '',
        lowest: '',
        highest: '',
      }));
      groups.push(g);
      byKey.set(t.key, g);
    }
    g.count++;
    if (sig) {
      g.signalLines++;
      if (g.firstSignal === -1) g.firstSignal = i;
    }
    groupOf[i] = g.id;
    addValues(g, t, opts.trackValues);
  }
  return { groups, groupOf, signal };
}

function addValues(g: Group, t: LineTemplate, track: number): void {
  // A literal "<*>" in the text can make equal keys hold different slot counts: no values then.
  if (t.values.length !== g.slots.length) {
    g.slots = [];
    return;
  }
  for (let s = 0; s < t.values.length; s++) {
    const v = t.values[s]!;
    const slot = g.slots[s]!;
    if (slot.numeric) {
      if (NUMBER.test(v)) {
        const x = Number(v);
        if (x < slot.min) {
          slot.min = x;
          slot.minText = v;
        }
        if (x > slot.max) {
          slot.max = x;
          slot.maxText = v;
        }
      } else slot.numeric = false;
    }
    if (slot.sameShape) {
      const shape = v.replace(DIGITS, '0');
      if (slot.lowest === '' && slot.highest === '') {
        slot.shape = shape;
        slot.lowest = v;
        slot.highest = v;
      } else if (shape !== slot.shape) slot.sameShape = false;
      else if (v < slot.lowest) slot.lowest = v;
      else if (v > slot.highest) slot.highest = v;
    }
    if (slot.overflow) continue;
    // Linear search: most slots hold one or a few values, and the list is capped at `track`.
    if (slot.distinct.includes(v)) continue;
    if (slot.distinct.length < track) slot.distinct.push(v);
    else slot.overflow = true;
  }
}
