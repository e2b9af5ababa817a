/**
 * FilterDef → CompiledFilter. The stages (stages.ts, block-stages.ts) run in their fixed order; this module only
 * turns the spec's patterns into the predicates and rewriters they take.
 *
 * Regexes compile through regex.ts (RE2, memoised per process). `eager` compiles every pattern now,
 * so a bad one is a load error naming file, filter and field (user, project and --filters files).
 * Without it (builtins, validated at build time) a pattern compiles on first use, and not even then
 * when its prefilter (regex.ts) shows it cannot match the text at hand: compiling costs
 * milliseconds, and choosing among 40 filters must not compile 40 selectors and bodies. Either way
 * re2js must be loaded (loadRe2) before matches() or run() is called; the registry sees to it.
 */

import {
  type BlockRule,
  dedupeBlocks,
  dropSections,
  type GroupRule,
  groupLines,
  type LineRewriter,
  limitRuns,
  type RunRule,
  type SectionRule,
} from './block-stages.js';
import { DECODERS } from './decoders/index.js';
import { compileRegex, mayMatch, type PatternSite } from './regex.js';
import type { FilterDef, FilterSpec } from './schema.js';
import { hasShape } from './shapes.js';
import {
  classify,
  type Doc,
  filterLines,
  headTail,
  joinLines,
  matchOutput,
  maxLines,
  messageDoc,
  type OutputRule,
  onEmpty,
  replaceLines,
  splitLines,
  stripAnsi,
  truncateLines,
} from './stages.js';
import { pathTree, type TreeRule } from './tree-stage.js';
import type { CompiledFilter, FilterResult, FilterSourceKind } from './types.js';

export interface CompileOptions {
  kind: FilterSourceKind;
  /** Compile (and so validate) every regex now. */
  eager: boolean;
}

type Site = (field: string) => PatternSite;

export function compileFilter(def: FilterDef, opts: CompileOptions): CompiledFilter {
  const { spec, file } = def;
  const site: Site = (field) => ({ file, path: `filters.${spec.name}.${field}` });
  // A run's line model, by the caller's memo: cmdfilter runs a filter again on the same text with
  // a smaller budget, and a stage may keep what it read of the same lines (path_tree's entries).
  // Held by the memo only, so nothing outlives the caller's run.
  const docs = new WeakMap<object, { text: string; doc: Doc }>();
  const lines = (text: string, memo: object | undefined) => {
    if (memo === undefined) return splitLines(text);
    let known = docs.get(memo);
    if (known?.text !== text) {
      known = { text, doc: splitLines(text) };
      docs.set(memo, known);
    }
    return known.doc;
  };
  if (opts.eager) for (const [pattern, field] of patternsOf(spec)) compileRegex(pattern, site(field));
  return {
    name: spec.name,
    description: spec.description,
    priority: spec.priority,
    ...(spec.min_tokens !== undefined ? { minTokens: spec.min_tokens } : {}),
    sourceKind: opts.kind,
    source: file,
    // Getters: a builtin's tests and YAML are read from disk only when asked for (show, verify).
    get tests() {
      return spec.tests;
    },
    get yaml() {
      return def.yaml;
    },
    matches: (s) =>
      (mayMatch(spec.match, s) && compileRegex(spec.match, site('match')).test(s)) ||
      (spec.shape !== undefined && hasShape(spec.shape, s)),
    needsRegex: (s) => mayMatch(spec.match, s),
    run: (text, opts = {}) => runSpec(spec, site, text, opts.cap, lines(text, opts.memo)),
  };
}

/** Every pattern of a filter with its field path. */
export function patternsOf(spec: FilterSpec): [string, string][] {
  const out: [string, string][] = [[spec.match, 'match']];
  spec.replace.forEach((r, i) => {
    out.push([r.pattern, `replace[${i}].pattern`]);
  });
  spec.match_output.forEach((r, i) => {
    out.push([r.pattern, `match_output[${i}].pattern`]);
    if (r.unless !== undefined) out.push([r.unless, `match_output[${i}].unless`]);
  });
  const sections = spec.drop_sections;
  if (sections) {
    out.push([sections.start, 'drop_sections.start'], [sections.drop, 'drop_sections.drop']);
    if (sections.end !== undefined) out.push([sections.end, 'drop_sections.end']);
  }
  const blocks = spec.dedupe_blocks;
  if (blocks) {
    out.push([blocks.start, 'dedupe_blocks.start']);
    if (blocks.location !== undefined) out.push([blocks.location, 'dedupe_blocks.location']);
  }
  const tree = spec.path_tree;
  if (tree) {
    out.push([tree.entry, 'path_tree.entry']);
    if (tree.dir !== undefined) out.push([tree.dir, 'path_tree.dir']);
    if (tree.header !== undefined) out.push([tree.header, 'path_tree.header']);
  }
  spec.limit_runs.forEach((r, i) => {
    out.push([r.pattern, `limit_runs[${i}].pattern`]);
  });
  spec.group_lines.forEach((g, i) => {
    out.push([g.pattern, `group_lines[${i}].pattern`]);
    if (g.continued !== undefined) out.push([g.continued, `group_lines[${i}].continued`]);
  });
  const field = spec.strip_lines_matching ? 'strip_lines_matching' : 'keep_lines_matching';
  (spec.strip_lines_matching ?? spec.keep_lines_matching ?? []).forEach((p, i) => {
    out.push([p, `${field}[${i}]`]);
  });
  return out;
}

const blobOf = (doc: Doc) => doc.lines.map((l) => l.text).join('\n');

/** A stage's view of one regex: test, first capture, replacement (block-stages.ts). */
function lineMatcher(pattern: string, site: Site, field: string): LineRewriter {
  const re = compileRegex(pattern, site(field));
  const groups = re.groupCount();
  return {
    test: (line) => re.test(line),
    capture: (line) => {
      const m = re.matcher(line);
      if (!m.find()) return undefined;
      return (groups > 0 ? m.group(1) : m.group(0)) ?? '';
    },
    expand: (line, replacement) => re.matcher(line).replaceFirst(replacement),
  };
}

/** Stages 4 and 5: drop_sections, dedupe_blocks (each only when set). */
function sectionStages(spec: FilterSpec, site: Site, start: Doc): Doc {
  let doc = start;
  const m = (pattern: string, field: string) => lineMatcher(pattern, site, field);
  const sections = spec.drop_sections;
  if (sections) {
    const rule: SectionRule = {
      start: m(sections.start, 'drop_sections.start'),
      drop: m(sections.drop, 'drop_sections.drop'),
    };
    if (sections.end !== undefined) rule.end = m(sections.end, 'drop_sections.end');
    doc = dropSections(doc, rule);
  }
  const blocks = spec.dedupe_blocks;
  if (blocks) {
    const rule: BlockRule = { start: m(blocks.start, 'dedupe_blocks.start'), also: blocks.also };
    if (blocks.location !== undefined) rule.location = m(blocks.location, 'dedupe_blocks.location');
    doc = dedupeBlocks(doc, rule);
  }
  return doc;
}

/** What the budgets of stages 7 and 8 cut: items a group (group_max_chars), lines a run (runs_max_chars). */
interface Shaped {
  itemCap?: number;
  /** No item fitted, and the groups were named in a list (a rule's brief). */
  listed?: boolean;
  runsKept?: number;
}

/** A character budget under the caller's cap (cmdfilter's next try under its token ceiling). */
function capped<T extends number | undefined>(chars: T, cap: number | undefined): T {
  return (chars === undefined || cap === undefined ? chars : Math.max(1, Math.min(chars, cap))) as T;
}

/** Stages 7 and 8: path_tree, limit_runs, group_lines (each only when set). */
function runStages(
  spec: FilterSpec,
  site: Site,
  start: Doc,
  cap: number | undefined,
): { doc: Doc; shaped: Shaped } {
  let doc = start;
  const shaped: Shaped = {};
  const m = (pattern: string, field: string) => lineMatcher(pattern, site, field);
  const tree = spec.path_tree;
  if (tree) {
    const rule: TreeRule = {
      entry: m(tree.entry, 'path_tree.entry'),
      path: tree.path,
      maxChars: capped(tree.max_chars, cap),
      key: JSON.stringify([tree.entry, tree.path, tree.size, tree.dir, tree.header]),
    };
    if (tree.size !== undefined) rule.size = tree.size;
    if (tree.dir !== undefined) rule.dir = m(tree.dir, 'path_tree.dir');
    if (tree.header !== undefined) rule.header = m(tree.header, 'path_tree.header');
    if (tree.totals) rule.totals = true;
    doc = pathTree(doc, rule);
  }
  if (spec.limit_runs.length > 0) {
    const rules = spec.limit_runs.map(
      (r, i): RunRule => ({ matches: m(r.pattern, `limit_runs[${i}].pattern`), head: r.head, tail: r.tail }),
    );
    const r = limitRuns(doc, rules, capped(spec.runs_max_chars, cap));
    doc = r.doc;
    if (r.kept !== undefined) shaped.runsKept = r.kept;
  }
  if (spec.group_lines.length > 0) {
    const rules = spec.group_lines.map((g, i): GroupRule => {
      const rule: GroupRule = {
        matches: m(g.pattern, `group_lines[${i}].pattern`),
        key: g.key,
        header: g.header,
        minCount: g.min_count,
      };
      if (g.item !== undefined) rule.item = g.item;
      if (g.max_items !== undefined) rule.maxItems = g.max_items;
      if (g.join !== undefined) rule.join = g.join;
      if (g.continued !== undefined) rule.continued = m(g.continued, `group_lines[${i}].continued`);
      if (g.brief !== undefined) rule.brief = g.brief;
      return rule;
    });
    const g = groupLines(doc, rules, capped(spec.group_max_chars, cap));
    doc = g.doc;
    if (g.capped !== undefined) shaped.itemCap = g.capped;
    if (g.listed) shaped.listed = true;
  }
  return { doc, shaped };
}

/** The 12 stages in order (see types.ts); a match_output hit short-circuits everything after it. */
function runSpec(
  spec: FilterSpec,
  site: Site,
  input: string,
  cap: number | undefined,
  start: Doc,
): FilterResult {
  const total = start.lines.length;
  let doc: Doc = start;
  if (spec.decode !== undefined) doc = DECODERS[spec.decode](doc);
  if (spec.strip_ansi) doc = stripAnsi(doc);

  if (spec.replace.length > 0) {
    // A rule that cannot match the text is skipped — until one applies: later rules may match
    // what an earlier replacement wrote, so from there on every rule runs.
    const text = doc === start ? input : joinLines(doc);
    const rules: ((line: string) => string)[] = [];
    spec.replace.forEach((r, i) => {
      if (rules.length === 0 && !mayMatch(r.pattern, text)) return;
      const re = compileRegex(r.pattern, site(`replace[${i}].pattern`));
      // JS replacement syntax ($1, $<name>, $&, $$), expanded by re2js as String.replace would.
      rules.push((line) => (re.test(line) ? re.matcher(line).replaceAll(r.replacement) : line));
    });
    doc = replaceLines(doc, rules);
  }

  if (spec.match_output.length > 0) {
    const test = (pattern: string, field: string) => (blob: string) =>
      mayMatch(pattern, blob) && compileRegex(pattern, site(field)).test(blob);
    const rules = spec.match_output.map((r, i): OutputRule => {
      const rule: OutputRule = { test: test(r.pattern, `match_output[${i}].pattern`), message: r.message };
      if (r.unless !== undefined) rule.unless = test(r.unless, `match_output[${i}].unless`);
      return rule;
    });
    const message = matchOutput(doc, rules);
    if (message !== undefined) return classify(input, total, messageDoc(doc, message));
  }

  doc = sectionStages(spec, site, doc);

  const list = spec.strip_lines_matching ?? spec.keep_lines_matching;
  if (list) {
    const field = spec.strip_lines_matching ? 'strip_lines_matching' : 'keep_lines_matching';
    const blob = blobOf(doc);
    const res = list.flatMap((p, i) => (mayMatch(p, blob) ? [compileRegex(p, site(`${field}[${i}]`))] : []));
    doc = filterLines(doc, (line) => res.some((re) => re.test(line)), spec.keep_lines_matching !== undefined);
  }
  const staged = runStages(spec, site, doc, cap);
  doc = staged.doc;
  if (spec.truncate_lines_at !== undefined) doc = truncateLines(doc, spec.truncate_lines_at);
  if (spec.head_lines !== undefined || spec.tail_lines !== undefined) {
    doc = headTail(doc, spec.head_lines, spec.tail_lines);
  }
  if (spec.max_lines !== undefined) doc = maxLines(doc, spec.max_lines);
  if (spec.on_empty !== undefined) doc = onEmpty(doc, spec.on_empty);
  const result = classify(input, total, doc);
  const { shaped } = staged;
  if (result.loss !== 'none') {
    if (shaped.itemCap !== undefined) result.itemCap = shaped.itemCap;
    if (shaped.listed) result.listed = true;
    if (shaped.runsKept !== undefined) result.runsKept = shaped.runsKept;
  }
  return result;
}
