/**
 * The text fallback's rewrite (the `fold` component): a long text no filter claims becomes
 *   - its first head and last tail lines, verbatim;
 *   - every template with an error/warning signal (FOLD_SIGNALS, signals.ts), at its first signal
 *     line, with `context` lines around it: a template seen at most `verbatimMax` times shows each
 *     line verbatim, a more frequent one is folded;
 *   - the other templates, most frequent first, folded, while the budget lasts;
 *   - `…` where lines were left out, and a closing line that says what was kept.
 * A folded template is one line: `[×N] ` + the template with each slot written as its value when the
 * slot never varied, else as `{v1|v2|…+K}` (the values in order of first appearance) or `{min..max}`
 * for a numeric slot with many values. So every varying location and id is either listed or counted.
 *
 * Budgets, in UTF-8 bytes (cheap, and deterministic): everything but the error templates fits in what
 * `collapse` would keep of the same text (its first and last `budgetLines / 2` lines), so the fold is
 * never longer than collapse except to show errors; the error templates get at most `signalShare` of
 * the input and at most `maxSignalBytes`. Templates that do not fit are counted in the closing line.
 * Lines are split at "\n" (a "\r" before it belongs to the ending; line-table.ts keeps their offsets,
 * not a string each); the input's first line ending is used throughout and a final newline is kept.
 */

import { byteLength } from '../tokens.js';
import { LineTable } from './line-table.js';
import { SLOT } from './template.js';
import { type Group, type Mined, mineTemplates, type SlotValues } from './templates.js';

export interface FoldOptions {
  headLines: number;
  tailLines: number;
  /** Lines shown before and after the first signal line of each error template. */
  context: number;
  /** An error template seen at most this often shows every line verbatim. */
  verbatimMax: number;
  /** Values listed per varying slot before `+K`. */
  maxValues: number;
  /** The non-error budget: as many bytes as this many head + tail lines of the input… */
  budgetLines: number;
  /** …times this (the component lowers it when bytes undercount the tokens of folded lines). */
  baseScale: number;
  signalShare: number;
  maxSignalBytes: number;
  maxTemplates: number;
  /** Kept lines longer than this are cut in the middle (0: never). */
  maxLineChars: number;
  /** Appended to the closing line (where the marker goes). */
  closingSuffix: string;
  /** Cuts one line to max characters (the collapse component's middle cut). */
  cut: (line: string, max: number) => string;
}

export interface FoldResult {
  text: string;
  /** The text without the lines the error budget paid for: what must not outgrow collapse. */
  base: string;
  /** For --verbose: what was kept. */
  note: string;
}

/** Distinct values remembered per slot (more are only counted as "+K+"). */
const TRACK_VALUES = 64;
/** A listed value longer than this is cut (a folded line must still show its template). */
const MAX_VALUE_CHARS = 48;
/** Values listed when a slot has more than maxValues. */
const LISTED_WHEN_MANY = 3;

/** Which budget paid for a shown line: nothing is shown, the base budget, or the error budget. */
const NOT_SHOWN = 0;
const BASE = 1;
const SIGNAL = 2;
type Budget = typeof BASE | typeof SIGNAL;

/** Returns undefined when nothing would be left out (the text is too short to fold). */
export function foldText(text: string, opts: FoldOptions): FoldResult | undefined {
  const lines = new LineTable(text);
  const { nl, finalNewline } = lines;
  const n = lines.length;
  if (n <= opts.headLines + opts.tailLines) return undefined;
  const mined = mineTemplates(lines, { maxTemplates: opts.maxTemplates, trackValues: TRACK_VALUES });
  const plan = new Planner(lines, mined, opts, byteLength(text));
  plan.select();
  return plan.render(nl, finalNewline);
}

class Planner {
  /** Per input line: which budget shows it verbatim (NOT_SHOWN when it is not). */
  private readonly shown: Uint8Array;
  /** Input line → the group folded there, with the budget that pays for it. */
  private readonly foldAt = new Map<number, { group: Group; budget: Budget }>();
  private readonly folded = new Set<number>();
  private baseLeft: number;
  private signalLeft: number;
  private skippedSignal = 0;

  constructor(
    private readonly lines: LineTable,
    private readonly mined: Mined,
    private readonly opts: FoldOptions,
    inputBytes: number,
  ) {
    this.shown = new Uint8Array(lines.length);
    this.baseLeft = Math.floor(this.collapseBytes() * opts.baseScale);
    this.signalLeft = Math.min(Math.floor(inputBytes * opts.signalShare), opts.maxSignalBytes);
  }

  /** What collapse would keep: the first and last budgetLines / 2 lines, long ones cut. */
  private collapseBytes(): number {
    const half = Math.ceil(this.opts.budgetLines / 2);
    const n = this.lines.length;
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      if (i === half && n - half > i) i = n - half;
      bytes += this.lineBytes(i);
    }
    return bytes;
  }

  private lineBytes(i: number): number {
    return byteLength(this.keptText(this.lines.at(i))) + 1;
  }

  private keptText(line: string): string {
    return this.opts.maxLineChars > 0 && line.length > this.opts.maxLineChars
      ? this.opts.cut(line, this.opts.maxLineChars)
      : line;
  }

  select(): void {
    const n = this.lines.length;
    const { headLines, tailLines } = this.opts;
    for (let i = 0; i < headLines; i++) this.showLine(i, BASE, true);
    for (let i = n - tailLines; i < n; i++) this.showLine(i, BASE, true);
    const signalGroups = this.selectSignalGroups();
    this.selectOtherGroups();
    // Context last: every error template first, then the lines around them while the budget lasts.
    const { context } = this.opts;
    for (const g of signalGroups) {
      const at = g.firstSignal;
      for (let k = 1; k <= context; k++) {
        if (at - k >= 0) this.showLine(at - k, SIGNAL, false);
        if (at + k < n) this.showLine(at + k, SIGNAL, false);
      }
    }
  }

  /** Shows a line verbatim and charges its bytes (and a gap line's); false when it does not fit. */
  private showLine(i: number, budget: Budget, force: boolean): boolean {
    if (this.shown[i] !== NOT_SHOWN) return true;
    const cost = this.lineBytes(i) + 2;
    const left = budget === BASE ? this.baseLeft : this.signalLeft;
    if (!force && cost > left) return false;
    if (budget === BASE) this.baseLeft -= cost;
    else this.signalLeft -= cost;
    this.shown[i] = budget;
    return true;
  }

  /** Shows every error template that fits, cheapest first (so a short budget shows the most). */
  private selectSignalGroups(): Group[] {
    const withSignal = this.mined.groups
      .filter((g) => g.signalLines > 0)
      .map((g) => ({ g, cost: this.signalCost(g) }))
      .sort((a, b) => a.cost - b.cost || a.g.firstSignal - b.g.firstSignal);
    const shown: Group[] = [];
    for (const { g, cost } of withSignal) {
      if (cost > this.signalLeft) {
        this.skippedSignal++;
        continue;
      }
      this.signalLeft -= cost;
      // A rare template shows each of its lines; a frequent one is folded in place of its first signal line.
      if (g.count > this.opts.verbatimMax) this.fold(g.firstSignal, g, SIGNAL);
      else for (const i of this.membersOf(g)) if (this.shown[i] === NOT_SHOWN) this.shown[i] = SIGNAL;
      shown.push(g);
    }
    return shown.sort((a, b) => a.firstSignal - b.firstSignal);
  }

  /** Bytes an error template takes: its lines not yet shown, or its folded line. */
  private signalCost(g: Group): number {
    if (g.count > this.opts.verbatimMax) return byteLength(this.renderGroup(g)) + 3;
    let cost = 0;
    for (const i of this.membersOf(g)) if (this.shown[i] === NOT_SHOWN) cost += this.lineBytes(i) + 2;
    return cost;
  }

  private membersOf(g: Group): number[] {
    const out: number[] = [];
    const { groupOf } = this.mined;
    for (let i = g.first; i < groupOf.length && out.length < g.count; i++)
      if (groupOf[i] === g.id) out.push(i);
    return out;
  }

  private fold(at: number, group: Group, budget: Budget): void {
    this.foldAt.set(at, { group, budget });
    this.folded.add(group.id);
  }

  /** The other templates, most frequent first, then single lines in order, while the budget lasts. */
  private selectOtherGroups(): void {
    const rest = this.mined.groups.filter((g) => g.signalLines === 0 && g.count > 1);
    rest.sort((a, b) => b.count - a.count || a.first - b.first);
    for (const g of rest) {
      if (this.allShown(g)) continue;
      const cost = byteLength(this.renderGroup(g)) + 3;
      if (cost > this.baseLeft) continue;
      this.baseLeft -= cost;
      this.fold(g.first, g, BASE);
    }
    for (const g of this.mined.groups) {
      if (g.count !== 1 || g.signalLines > 0) continue;
      this.showLine(g.first, BASE, false);
    }
  }

  /** Whether every line of a small group is already shown (then folding it adds nothing). */
  private allShown(g: Group): boolean {
    if (g.count > this.opts.headLines + this.opts.tailLines) return false;
    return this.membersOf(g).every((i) => this.shown[i] !== NOT_SHOWN);
  }

  renderGroup(g: Group): string {
    const parts = g.key.split(SLOT);
    if (parts.length - 1 !== g.slots.length) return `[×${g.count}] ${this.keptText(this.lines.at(g.first))}`;
    let out = parts[0]!;
    for (let s = 0; s < g.slots.length; s++)
      out += renderSlot(g.slots[s]!, this.opts.maxValues) + parts[s + 1]!;
    return `[×${g.count}] ${out}`;
  }

  render(nl: string, finalNewline: boolean): FoldResult {
    const out: string[] = [];
    // Output lines the error budget paid for: left out of `base`.
    const paidBySignal: boolean[] = [];
    const push = (line: string, signal: boolean) => {
      out.push(line);
      paidBySignal.push(signal);
    };
    let verbatimCount = 0;
    let gap = false;
    let omitted = 0;
    const n = this.lines.length;
    for (let i = 0; i < n; i++) {
      const f = this.foldAt.get(i);
      const how = this.shown[i]!;
      if (how === NOT_SHOWN && !f) {
        gap = true;
        const gid = this.mined.groupOf[i]!;
        if (gid === -1 || !this.folded.has(gid)) omitted++;
        continue;
      }
      if (gap && out.length > 0) push('…', false);
      gap = false;
      if (how !== NOT_SHOWN) {
        push(this.keptText(this.lines.at(i)), how === SIGNAL);
        verbatimCount++;
      }
      // A group whose first line is shown verbatim folds right after it.
      if (f && f.group.count > 1) push(this.renderGroup(f.group), f.budget === SIGNAL);
    }
    if (gap) push('…', false);
    const signalGroups = this.mined.groups.filter((g) => g.signalLines > 0).length;
    const folds = this.folded.size;
    const parts = [`${n} lines`, `${verbatimCount} shown`];
    if (folds > 0) parts.push(`${folds} templates folded`);
    if (omitted > 0) parts.push(`${omitted} omitted`);
    if (this.skippedSignal > 0)
      parts.push(`${this.skippedSignal} of ${signalGroups} error/warning templates not shown`);
    push(`[${parts.join(', ')}]${this.opts.closingSuffix}`, false);
    const end = finalNewline ? nl : '';
    const text = out.join(nl) + end;
    const base = out.filter((_, k) => !paidBySignal[k]).join(nl) + end;
    const note = `${n} lines → ${out.length}: ${verbatimCount} verbatim, ${folds} of ${this.mined.groups.length} templates folded, ${signalGroups - this.skippedSignal} of ${signalGroups} error templates shown`;
    return { text, base, note };
  }
}

/**
 * One slot of a folded template: its value when it never varied; else a range when the values are
 * numbers or share one shape and are too many to list; else the first values and how many more.
 */
function renderSlot(slot: SlotValues, maxValues: number): string {
  const d = slot.distinct;
  if (d.length === 1 && !slot.overflow) return d[0]!;
  const many = slot.overflow || d.length > maxValues;
  if (many && slot.numeric) return `{${slot.minText}..${slot.maxText}}`;
  if (many && slot.sameShape) return `{${slot.lowest}..${slot.highest}}`;
  // Past maxValues, a list would crowd out the template: the first few stand for the rest.
  const shown = d
    .slice(0, many ? LISTED_WHEN_MANY : maxValues)
    .map((v) => (v.length > MAX_VALUE_CHARS ? `${v.slice(0, MAX_VALUE_CHARS - 1)}…` : v));
  const more = d.length - shown.length;
  const tail = slot.overflow ? `|+${more}+` : more > 0 ? `|+${more}` : '';
  return `{${shown.join('|')}${tail}}`;
}
