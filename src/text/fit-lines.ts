/**
 * fitLines: a text cut, line by line, to a token budget, keeping what a reader needs most of a long
 * command output rather than its first screenful. In order of worth:
 *   0. lines that must stay whatever the budget (a tool error's failure lines, DESIGN §1.5);
 *   1. the command's summary line (the last non-empty one) and its first line;
 *   2. error, warning and failure lines (signal.ts: the templates fold always shows);
 *   3. failure locations (`path/file.ext:12`, `line 12`);
 *   4. the rest, from the top.
 * Kept lines stay in their order; each run of dropped lines becomes one `... (N lines omitted)`
 * line (one or two blank lines stay as they are). A kept line longer than MAX_LINE characters is cut to its start and `...` (the form a
 * failure line may be kept in, src/dsl/failure-lines.ts). What is kept of worth 1-4 fits the budget
 * counted exactly; worth-0 lines are kept even past it, and then the result may be over (the
 * caller says so). Time is linear in the text plus one count per line considered; lines are only
 * counted until the budget is full (MAX_MISSES lines of a worth that do not fit end that worth).
 */
import { hasSignal } from './signal.js';

/** Characters a kept line keeps before it is cut to `...`. */
export const MAX_LINE = 400;

/** Lines of one worth that did not fit, after which the rest of that worth is not tried. */
const MAX_MISSES = 64;

const LOCATION = /[\w./\\-]+\.[A-Za-z]\w*:\d+|\bline \d+\b/;

export interface FitOptions {
  /** Most tokens the result may have. */
  budget: number;
  count(text: string): Promise<number>;
  /** Lines kept whatever the budget. */
  mustKeep?: (line: string) => boolean;
}

export interface Fitted {
  text: string;
  /** Lines of the text, and of them kept. */
  lines: number;
  kept: number;
  /** The worth-0 lines alone came to more than the budget. */
  over: boolean;
}

function clip(line: string): string {
  return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}...` : line;
}

function worthOf(line: string, i: number, last: number, must?: (l: string) => boolean): number {
  if (must?.(line)) return 0;
  if (i === last || i === 0) return 1;
  if (hasSignal(line)) return 2;
  if (LOCATION.test(line)) return 3;
  return 4;
}

export async function fitLines(text: string, o: FitOptions): Promise<Fitted> {
  const endsNl = text.endsWith('\n');
  const lines = (endsNl ? text.slice(0, -1) : text).split('\n');
  let last = lines.length - 1;
  while (last > 0 && lines[last]!.trim() === '') last--;
  const byWorth: number[][] = [[], [], [], [], []];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() === '' && i !== last) continue;
    byWorth[worthOf(lines[i]!, i, last, o.mustKeep)]!.push(i);
  }
  const keep = new Uint8Array(lines.length);
  let used = 0;
  for (const i of byWorth[0]!) {
    keep[i] = 1;
    used += (await o.count(clip(lines[i]!))) + 1;
  }
  const over = used > o.budget;
  // An omission line costs about this many tokens; every kept line may open one gap.
  const GAP = 8;
  outer: for (let w = 1; w < byWorth.length; w++) {
    let misses = 0;
    for (const i of byWorth[w]!) {
      const cost = (await o.count(clip(lines[i]!))) + 1 + GAP;
      if (used + cost > o.budget) {
        if (w === 4) break outer;
        // A shorter line of the class may still fit, but a log of a million error lines is not
        // counted line by line once the budget is as good as full.
        if (++misses > MAX_MISSES) break;
        continue;
      }
      keep[i] = 1;
      used += cost;
    }
  }
  let result = render(lines, keep, endsNl);
  // The estimate above counts lines one by one; the joined text is counted exactly and, while over,
  // the least worth lines kept go, a tenth at a time.
  const dropOrder = [4, 3, 2, 1].flatMap((w) => [...byWorth[w]!].reverse()).filter((i) => keep[i] === 1);
  while (dropOrder.length > 0 && (await o.count(result.text)) > o.budget) {
    for (const i of dropOrder.splice(0, Math.max(1, Math.ceil(dropOrder.length / 10)))) keep[i] = 0;
    result = render(lines, keep, endsNl);
  }
  return { ...result, lines: lines.length, over };
}

function render(lines: readonly string[], keep: Uint8Array, endsNl: boolean): { text: string; kept: number } {
  const out: string[] = [];
  let gapFrom = -1;
  let kept = 0;
  const close = (to: number) => {
    if (gapFrom === -1) return;
    // A gap of blank lines only is cheaper as those lines than as an omission line.
    let blank = to - gapFrom <= 2;
    for (let j = gapFrom; blank && j < to; j++) blank = lines[j]!.trim() === '';
    if (blank) for (let j = gapFrom; j < to; j++) out.push(lines[j]!);
    else out.push(`... (${to - gapFrom} lines omitted)`);
    gapFrom = -1;
  };
  for (let i = 0; i < lines.length; i++) {
    if (keep[i] === 1) {
      close(i);
      out.push(clip(lines[i]!));
      kept++;
    } else if (gapFrom === -1) gapFrom = i;
  }
  close(lines.length);
  return { text: out.join('\n') + (endsNl ? '\n' : ''), kept };
}
