/**
 * The filter stages that look at more than one line at a time, as pure functions over the line model
 * of stages.ts. drop_sections and dedupe_blocks run after match_output and before strip/keep (they
 * need the blank lines and headers that strip may remove); limit_runs and group_lines after it, before
 * truncate_lines_at:
 *   drop_sections  sections named by a line that marks them passed are dropped, with that line
 *                  (go test -v: a passing test's RUN line and logs go with its `--- PASS` line);
 *   dedupe_blocks  a block repeating an earlier block's first line is dropped, and where it was
 *                  is listed under the first copy (cargo's identical warnings at many locations);
 *   limit_runs     a run of consecutive matching lines longer than head + tail keeps its ends
 *                  around one omission line (a diff's long context);
 *   group_lines    matching lines are gathered by a key into one header where the group began,
 *                  with its members as items (grep hits by file, tsc errors by code and message).
 * Like stages.ts they take plain matchers (compile.ts builds them from RE2 regexes). A kept line keeps
 * its src; every written line has src 0, so classify() reports such a rewrite as whole loss.
 */
import { largestFitting } from '../text/largest-fitting.js';
import type { Doc, Line } from './stages.js';
import { omissionText } from './stages.js';

/** A compiled regex as these stages use it: match test and first capture, plus replacement. */
export interface LineMatcher {
  test(line: string): boolean;
  /** Capture group 1 of the first match (the whole match when the pattern has no group), or undefined. */
  capture(line: string): string | undefined;
}

export interface LineRewriter extends LineMatcher {
  /** What `replace` with this replacement would make of the line; `$<count>` is already filled in. */
  expand(line: string, replacement: string): string;
}

const written = (text: string, doc: Doc): Line => ({ text, eol: doc.nl, src: 0 });

export interface SectionRule {
  start: LineMatcher;
  /** Closes the open section; when its capture names a section, that is its verdict: kept. */
  end?: LineMatcher;
  /** Its capture names a section whose verdict is: dropped. */
  drop: LineMatcher;
}

/**
 * Sections open at a `start` line (named by its capture) and close at the next start or `end` line.
 * A section's verdict is the first `drop` or naming `end` line for its name after it opens: a drop
 * line drops the section (start line and all) and itself; an end line keeps it. So names may repeat
 * (the same test in two packages) and each run is judged by its own verdict. Lines outside
 * sections, and sections without a drop verdict, stay.
 */
export function dropSections(doc: Doc, rule: SectionRule): Doc {
  const { lines } = doc;
  const verdicts = new Map<string, { at: number; drop: boolean }[]>();
  const dropLine = new Uint8Array(lines.length);
  lines.forEach((l, i) => {
    const dropped = rule.drop.capture(l.text);
    const kept = dropped === undefined ? rule.end?.capture(l.text) : undefined;
    const name = dropped ?? kept;
    if (!name) return;
    if (dropped !== undefined) dropLine[i] = 1;
    const list = verdicts.get(name) ?? [];
    if (list.length === 0) verdicts.set(name, list);
    list.push({ at: i, drop: dropped !== undefined });
  });
  if (!dropLine.includes(1)) return doc;
  const next = new Map<string, number>(); // per name: index into its verdicts, moving forward
  const verdictAfter = (name: string, i: number): boolean => {
    const list = verdicts.get(name);
    if (!list) return false;
    let k = next.get(name) ?? 0;
    while (k < list.length && list[k]!.at < i) k++;
    next.set(name, k);
    return list[k]?.drop === true;
  };
  const out: Line[] = [];
  let dropping = false;
  lines.forEach((l, i) => {
    if (dropLine[i]) return;
    const started = rule.start.capture(l.text);
    if (started !== undefined) dropping = verdictAfter(started, i);
    else if (rule.end?.test(l.text)) dropping = false;
    if (!dropping) out.push(l);
  });
  return out.length === lines.length ? doc : { ...doc, lines: out };
}

export interface BlockRule {
  start: LineMatcher;
  /** Its capture, in a block, is where that copy is (`--> src/lib.rs:3:7`). */
  location?: LineMatcher;
  /** The line written under the first copy: `$<locations>` and `$<count>` are filled in. */
  also: string;
}

const isBlank = (l: Line) => l.text.trim() === '';

/**
 * A block is a `start` line and the lines after it up to the next blank line or start line. A block
 * whose first line equals an earlier block's first line is dropped (with one blank line after it);
 * the first copy gets, after its location line (or its last line), the `also` line naming where the
 * dropped copies were. Lines outside blocks stay.
 */
export function dedupeBlocks(doc: Doc, rule: BlockRule): Doc {
  const { lines } = doc;
  const firsts = new Map<string, { at: number; locations: string[]; copies: number }>();
  const drop = new Uint8Array(lines.length);
  const insertAfter = new Map<number, string>();
  for (let i = 0; i < lines.length; i++) {
    if (!rule.start.test(lines[i]!.text)) continue;
    let end = i + 1;
    while (end < lines.length && !isBlank(lines[end]!) && !rule.start.test(lines[end]!.text)) end++;
    const key = lines[i]!.text;
    const first = firsts.get(key);
    if (!first) {
      firsts.set(key, { at: locationLine(lines, i, end, rule) ?? end - 1, locations: [], copies: 0 });
    } else {
      const at = locationLine(lines, i, end, rule);
      first.locations.push(at === undefined ? '?' : (rule.location?.capture(lines[at]!.text) ?? '?'));
      first.copies++;
      for (let k = i; k < end; k++) drop[k] = 1;
      if (end < lines.length && isBlank(lines[end]!)) drop[end] = 1;
    }
    i = end - 1;
  }
  for (const f of firsts.values()) {
    if (f.copies === 0) continue;
    const text = rule.also
      .replaceAll('$<count>', String(f.copies))
      .replaceAll('$<locations>', f.locations.join(', '));
    insertAfter.set(f.at, text);
  }
  if (insertAfter.size === 0) return doc;
  const out: Line[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!drop[i]) out.push(lines[i]!);
    const also = insertAfter.get(i);
    if (also !== undefined) out.push(written(also, doc));
  }
  return { ...doc, lines: out };
}

function locationLine(lines: readonly Line[], from: number, to: number, rule: BlockRule): number | undefined {
  if (!rule.location) return undefined;
  for (let k = from; k < to; k++) if (rule.location.test(lines[k]!.text)) return k;
  return undefined;
}

export interface RunRule {
  matches: LineMatcher;
  head: number;
  tail: number;
}

/**
 * A run of more than head + tail consecutive lines the rule matches keeps its first head and last
 * tail. maxChars (the filter's runs_max_chars): when the result would be longer than that many
 * UTF-16 units, line ends counted, every run keeps fewer lines — at most `kept` a run for every rule,
 * shared between head and tail as the rule shares them, the largest that fits, down to a run's first
 * line — while every line no rule matches (a diff's file and hunk headers) stays. `kept` is that cap
 * (undefined: the rules' own head and tail fitted). The lines outside runs alone may be more than
 * maxChars: they are the text's outline and stay.
 */
export function limitRuns(
  doc: Doc,
  rules: readonly RunRule[],
  maxChars?: number,
): { doc: Doc; kept?: number } {
  // A line's match per rule, remembered across the trial caps (lines are shared between trials).
  const memo = rules.map(() => new Map<Line, boolean>());
  const test = (r: number, l: Line) => {
    let m = memo[r]!.get(l);
    if (m === undefined) {
      m = rules[r]!.matches.test(l.text);
      memo[r]!.set(l, m);
    }
    return m;
  };
  // Whether the last trial cut a run: an omission line for one line leaves the count as it was.
  let cut = false;
  const apply = (cap: number) => {
    cut = false;
    let lines = doc.lines;
    rules.forEach((rule, r) => {
      const { head, tail } = capped(rule, cap);
      const out: Line[] = [];
      let i = 0;
      while (i < lines.length) {
        if (!test(r, lines[i]!)) {
          out.push(lines[i++]!);
          continue;
        }
        let end = i;
        while (end < lines.length && test(r, lines[end]!)) end++;
        const run = end - i;
        if (run > head + tail) {
          cut = true;
          for (let k = i; k < i + head; k++) out.push(lines[k]!);
          out.push({ ...written(omissionText(run - head - tail), doc), omitted: run - head - tail });
          for (let k = end - tail; k < end; k++) out.push(lines[k]!);
        } else for (let k = i; k < end; k++) out.push(lines[k]!);
        i = end;
      }
      lines = out;
    });
    return lines;
  };
  const result = (lines: Line[]) => (cut ? { ...doc, lines } : doc);
  const full = apply(Number.POSITIVE_INFINITY);
  if (maxChars === undefined || charsOf(full) <= maxChars) return { doc: result(full) };
  const most = Math.max(...rules.map((r) => r.head + r.tail));
  const kept = largestFitting(1, most - 1, (cap) => charsOf(apply(cap)) <= maxChars);
  return { doc: result(apply(kept)), kept };
}

/** A rule's head and tail within `cap` lines a run, shared as head : tail (the head at least one). */
function capped(rule: RunRule, cap: number): { head: number; tail: number } {
  const { head, tail } = rule;
  if (head + tail <= cap) return { head, tail };
  const h = Math.min(head, Math.max(1, Math.round((cap * head) / (head + tail))));
  return { head: h, tail: Math.min(tail, cap - h) };
}

function charsOf(lines: readonly Line[]): number {
  let n = 0;
  for (const l of lines) n += l.text.length + 1;
  return n;
}

export interface GroupRule {
  matches: LineRewriter;
  /** Replacement giving a line's group key. */
  key: string;
  /** Replacement for the group's header, applied to its first line; `$<count>` is its size. */
  header: string;
  /** Replacement for each member's item; undefined: the line as it is. */
  item?: string;
  /** Items shown per group (undefined: all), then one `… +N more`. */
  maxItems?: number;
  /** Items on the header's line, separated by this, instead of one line each. */
  join?: string;
  /** Smaller groups stay as their lines. */
  minCount: number;
  /** A line followed by a line this matches (its continuation) stays where it is, ungrouped. */
  continued?: LineMatcher;
  /**
   * Replacement naming a group in a list (`$<count>` its size), for when not even one item a group
   * fits the budget: each group of this rule, and each of its lines too few to make one, is then
   * named in a list instead — several a line, a new line for each key's directory.
   */
  brief?: string;
}

interface Gathered {
  rule: GroupRule;
  members: Line[];
}

/**
 * Each line joins the group of the first rule that matches it, keyed by that rule's `key`; a group
 * of at least minCount lines is written where its first line was — its header, then its items —
 * and its other lines go. Smaller groups, lines no rule matches and lines followed by their
 * continuation (`continued`) stay where they are.
 *
 * maxChars (the filter's group_max_chars): when the result would be longer than that many UTF-16
 * units, line ends counted, every group shows fewer items — the same cap for all, the largest that
 * fits, down to none (a header alone) — so what is cut is items, never a header. `capped` is the
 * cap it took (undefined: the groups' own max_items fitted, or nothing was grouped).
 */
export function groupLines(
  doc: Doc,
  rules: readonly GroupRule[],
  maxChars?: number,
): { doc: Doc; capped?: number; listed?: boolean } {
  if (rules.length === 0) return { doc };
  const groups = new Map<string, Gathered>();
  const memberOf: (Gathered | undefined)[] = [];
  doc.lines.forEach((l, i) => {
    const next = doc.lines[i + 1]?.text;
    const r = rules.findIndex(
      (rule) => rule.matches.test(l.text) && !(next !== undefined && rule.continued?.test(next)),
    );
    if (r === -1) {
      memberOf.push(undefined);
      return;
    }
    const rule = rules[r]!;
    const id = `${r}\u0000${rule.matches.expand(l.text, rule.key)}`;
    let g = groups.get(id);
    if (!g) {
      g = { rule, members: [] };
      groups.set(id, g);
    }
    g.members.push(l);
    memberOf.push(g);
  });
  // The output in order: a kept line, or a group (once, where its first line was).
  const layout: (Line | Drafted)[] = [];
  const drafted = new Map<Gathered, Drafted>();
  doc.lines.forEach((l, i) => {
    const g = memberOf[i];
    if (!g || g.members.length < g.rule.minCount) {
      layout.push(l);
      return;
    }
    if (drafted.has(g)) return;
    const d = draft(g);
    drafted.set(g, d);
    layout.push(d);
  });
  if (drafted.size === 0) return { doc };
  const capped = maxChars === undefined ? undefined : fittingCap(layout, maxChars);
  if (capped === 0 && rules.some((r) => r.brief !== undefined)) {
    return { doc: { ...doc, lines: listed(doc, layout, memberOf, drafted) }, capped, listed: true };
  }
  const cap = capped ?? Number.POSITIVE_INFINITY;
  const out: Line[] = [];
  for (const x of layout) {
    if ('src' in x) out.push(x);
    else for (const t of render(x, cap)) out.push(written(t, doc));
  }
  return capped === undefined ? { doc: { ...doc, lines: out } } : { doc: { ...doc, lines: out }, capped };
}

/** A list line holds names up to about this many characters before the next line begins. */
const LIST_LINE_CHARS = 160;

/** The directory part of a key (through its last `/`), which starts a list line of its own. */
function directoryOf(key: string): string {
  return key.slice(0, key.lastIndexOf('/') + 1);
}

/**
 * The layout with every group of a `brief` rule, and every line of such a rule too few to make a
 * group, named in a list: consecutive names joined by `, ` on one line while they share a
 * directory and the line is short, the other lines where they were.
 */
function listed(
  doc: Doc,
  layout: readonly (Line | Drafted)[],
  memberOf: readonly (Gathered | undefined)[],
  drafted: ReadonlyMap<Gathered, Drafted>,
): Line[] {
  const groupOfLine = new Map<Line, Gathered>();
  doc.lines.forEach((l, i) => {
    const g = memberOf[i];
    if (g) groupOfLine.set(l, g);
  });
  const groupOfDraft = new Map<Drafted, Gathered>();
  for (const [g, d] of drafted) groupOfDraft.set(d, g);
  const out: Line[] = [];
  let names: string[] = [];
  let chars = 0;
  let dir: string | undefined;
  const flush = () => {
    if (names.length > 0) out.push(written(names.join(', '), doc));
    names = [];
    chars = 0;
  };
  for (const x of layout) {
    const g = 'src' in x ? groupOfLine.get(x) : groupOfDraft.get(x);
    if (!g?.rule.brief) {
      flush();
      dir = undefined;
      if ('src' in x) out.push(x);
      else for (const t of render(x, 0)) out.push(written(t, doc));
      continue;
    }
    const first = g.members[0]!.text;
    const name = g.rule.matches.expand(first, g.rule.brief.replaceAll('$<count>', String(g.members.length)));
    const here = directoryOf(g.rule.matches.expand(first, g.rule.key));
    if (here !== dir || chars + name.length > LIST_LINE_CHARS) flush();
    dir = here;
    names.push(name);
    chars += name.length + 2;
  }
  flush();
  return out;
}

/** A group with its header and the items max_items lets it show, written out once. */
interface Drafted {
  rule: GroupRule;
  header: string;
  items: string[];
  size: number;
}

function draft(g: Gathered): Drafted {
  const { rule, members } = g;
  const header = rule.matches.expand(
    members[0]!.text,
    rule.header.replaceAll('$<count>', String(members.length)),
  );
  const shown = rule.maxItems === undefined ? members : members.slice(0, rule.maxItems);
  const items = shown.map((m) => (rule.item === undefined ? m.text : rule.matches.expand(m.text, rule.item)));
  return { rule, header, items, size: members.length };
}

/** The group's lines with at most cap items. A header that states the count needs no `+N more` alone. */
function render(d: Drafted, cap: number): string[] {
  const { rule, header } = d;
  const items = cap < d.items.length ? d.items.slice(0, cap) : d.items;
  const more = d.size - items.length;
  const alone = items.length === 0 && rule.header.includes('$<count>');
  if (rule.join !== undefined) {
    if (alone) return [header.trimEnd()];
    const list =
      items.join(rule.join) + (more > 0 ? `${items.length > 0 ? rule.join : ''}… +${more} more` : '');
    return [header + list];
  }
  const lines = [header, ...items];
  if (more > 0 && !alone) lines.push(`  … +${more} more`);
  return lines;
}

/**
 * The largest cap on items per group with which the layout is at most maxChars (line ends counted
 * as one), or 0 when none fits; undefined when the groups' own max_items already fit. Found by
 * bisection: the length grows with the cap (an item in place of a `+1 more` line aside).
 */
function fittingCap(layout: readonly (Line | Drafted)[], maxChars: number): number | undefined {
  let most = 0;
  for (const x of layout) if (!('src' in x) && x.items.length > most) most = x.items.length;
  const length = (cap: number) => {
    let n = 0;
    for (const x of layout) {
      if ('src' in x) n += x.text.length + 1;
      else for (const t of render(x, cap)) n += t.length + 1;
    }
    return n;
  };
  if (length(most) <= maxChars) return undefined;
  return largestFitting(0, most - 1, (cap) => length(cap) <= maxChars);
}
