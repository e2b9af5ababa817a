/**
 * The filter file format (DESIGN §5) as raw types, and its strict validation: a parsed YAML
 * document in, normalised FilterSpecs out, or a ConfigError naming the file, the filter and the
 * field (`x.yaml: filters.pytest.strip_line_matching: unknown field (did you mean
 * strip_lines_matching?)`). Unknown fields are errors, never ignored: a typo must not silently
 * turn a filter off. Patterns are checked here for look-around and back-references only; compiling
 * them (which needs re2js) is compile.ts's job.
 */
import { ConfigError } from '../errors.js';
import { describe } from '../validate.js';
import { checkSyntax } from './regex.js';
import type { FilterTest } from './types.js';

export const SCHEMA_VERSION = 1;

export interface ReplaceRule {
  pattern: string;
  /** `$1`…`$99`, `$<name>` and `$&` refer to the match; `$$` is a literal `$`. */
  replacement: string;
}

export interface MatchOutputRule {
  pattern: string;
  message: string;
  unless?: string;
}

/** drop_sections: sections opened by `start`, closed by `end`, dropped when a `drop` line names them. */
export interface SectionsSpec {
  start: string;
  end?: string;
  drop: string;
}

/** dedupe_blocks: blocks opened by `start`; a repeated one is listed by its `location` under the first. */
export interface BlocksSpec {
  start: string;
  location?: string;
  also: string;
}

/** limit_runs: runs of consecutive matching lines keep `head` and `tail` of their lines. */
export interface RunSpec {
  pattern: string;
  head: number;
  tail: number;
}

/** group_lines: matching lines gathered by `key` under one `header`, each as an `item`. */
export interface GroupSpec {
  pattern: string;
  key: string;
  header: string;
  item?: string;
  max_items?: number;
  join?: string;
  min_count: number;
  continued?: string;
}

/** One filter as written, validated and with defaults filled in. */
export interface FilterSpec {
  name: string;
  description: string;
  match: string;
  priority: number;
  strip_ansi: boolean;
  replace: ReplaceRule[];
  match_output: MatchOutputRule[];
  drop_sections?: SectionsSpec;
  dedupe_blocks?: BlocksSpec;
  limit_runs: RunSpec[];
  group_lines: GroupSpec[];
  strip_lines_matching?: string[];
  keep_lines_matching?: string[];
  truncate_lines_at?: number;
  head_lines?: number;
  tail_lines?: number;
  max_lines?: number;
  on_empty?: string;
  tests: FilterTest[];
}

/** A filter with where it came from: the unit that sources, the build step and `cg filters` pass around. */
export interface FilterDef {
  spec: FilterSpec;
  /** The file it was read from, as shown to users. */
  file: string;
  /** The filter's own YAML (for `cg filters show`). */
  yaml: string;
}

export const TOP_FIELDS = ['schema_version', 'filters'] as const;
export const FILTER_FIELDS = [
  'description',
  'match',
  'priority',
  'strip_ansi',
  'replace',
  'match_output',
  'drop_sections',
  'dedupe_blocks',
  'limit_runs',
  'group_lines',
  'strip_lines_matching',
  'keep_lines_matching',
  'truncate_lines_at',
  'head_lines',
  'tail_lines',
  'max_lines',
  'on_empty',
  'tests',
] as const;
const REPLACE_FIELDS = ['pattern', 'replacement'] as const;
const MATCH_OUTPUT_FIELDS = ['pattern', 'message', 'unless'] as const;
const TEST_FIELDS = ['name', 'input', 'expected', 'command'] as const;
const SECTIONS_FIELDS = ['start', 'end', 'drop'] as const;
const BLOCKS_FIELDS = ['start', 'location', 'also'] as const;
const RUN_FIELDS = ['pattern', 'head', 'tail'] as const;
const GROUP_FIELDS = [
  'pattern',
  'key',
  'header',
  'item',
  'max_items',
  'join',
  'min_count',
  'continued',
] as const;
/** `$<count>` in a group header is the group's size, so no capture may take that name. */
const COUNT_CAPTURE = /\(\?P?<count>/;
const DEFAULT_ALSO = '  (also at $<locations>)';

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Validates one parsed filter document; filters come back in file order. */
export function validateDocument(raw: unknown, file: string): FilterSpec[] {
  const at = (path: string, reason: string) => new ConfigError(path, reason, file);
  if (raw === null || raw === undefined)
    throw at('', 'empty filter file (expected schema_version: 1 and filters:)');
  const top = fields(raw, '', TOP_FIELDS, at);
  if (top.schema_version !== SCHEMA_VERSION) {
    throw at(
      'schema_version',
      top.schema_version === undefined
        ? `missing (this cg reads schema_version: ${SCHEMA_VERSION})`
        : `expected ${SCHEMA_VERSION}, got ${describe(top.schema_version)}`,
    );
  }
  if (top.filters === undefined) throw at('filters', 'missing (a mapping of filter name → filter)');
  if (!isMapping(top.filters))
    throw at('filters', `expected a mapping of name → filter, got ${describe(top.filters)}`);
  return Object.entries(top.filters).map(([name, body]) => validateFilter(name, body, file));
}

function validateFilter(name: string, raw: unknown, file: string): FilterSpec {
  const base = `filters.${name}`;
  const at = (path: string, reason: string) => new ConfigError(path ? `${base}.${path}` : base, reason, file);
  if (!NAME_RE.test(name)) {
    throw at(
      '',
      'a filter name is letters, digits, "_", "-" or "." (at most 64, starting with a letter or digit)',
    );
  }
  const f = fields(raw, '', FILTER_FIELDS, at);
  const pattern = (v: unknown, path: string): string => {
    const p = str(v, path, at);
    checkSyntax(p, { file, path: `${base}.${path}` });
    return p;
  };
  const patterns = (v: unknown, path: string): string[] | undefined => {
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) throw at(path, `expected a list of regexes, got ${describe(v)}`);
    return v.map((p, i) => pattern(p, `${path}[${i}]`));
  };

  if (f.match === undefined)
    throw at('match', 'missing (a regex tested against the selector "$ <command>" + first output lines)');
  const spec: FilterSpec = {
    name,
    description: f.description === undefined ? '' : str(f.description, 'description', at),
    match: pattern(f.match, 'match'),
    priority: f.priority === undefined ? 0 : int(f.priority, 'priority', -10_000, 10_000, at),
    strip_ansi: f.strip_ansi === undefined ? false : bool(f.strip_ansi, 'strip_ansi', at),
    replace: list(f.replace, 'replace', at).map((r, i) => {
      const p = `replace[${i}]`;
      const m = fields(r, p, REPLACE_FIELDS, at);
      if (m.pattern === undefined) throw at(`${p}.pattern`, 'missing');
      if (m.replacement === undefined) throw at(`${p}.replacement`, 'missing (use "" to delete the match)');
      return {
        pattern: pattern(m.pattern, `${p}.pattern`),
        replacement: str(m.replacement, `${p}.replacement`, at),
      };
    }),
    match_output: list(f.match_output, 'match_output', at).map((r, i) => {
      const p = `match_output[${i}]`;
      const m = fields(r, p, MATCH_OUTPUT_FIELDS, at);
      if (m.pattern === undefined) throw at(`${p}.pattern`, 'missing');
      if (m.message === undefined) throw at(`${p}.message`, 'missing');
      const message = str(m.message, `${p}.message`, at);
      if (message.trim() === '')
        throw at(`${p}.message`, 'must not be empty (the whole output is replaced by it)');
      return {
        pattern: pattern(m.pattern, `${p}.pattern`),
        message,
        ...(m.unless !== undefined ? { unless: pattern(m.unless, `${p}.unless`) } : {}),
      };
    }),
    limit_runs: list(f.limit_runs, 'limit_runs', at).map((r, i) => {
      const p = `limit_runs[${i}]`;
      const m = fields(r, p, RUN_FIELDS, at);
      if (m.pattern === undefined) throw at(`${p}.pattern`, 'missing');
      return {
        pattern: pattern(m.pattern, `${p}.pattern`),
        head: m.head === undefined ? 0 : int(m.head, `${p}.head`, 0, 1e6, at),
        tail: m.tail === undefined ? 0 : int(m.tail, `${p}.tail`, 0, 1e6, at),
      };
    }),
    group_lines: list(f.group_lines, 'group_lines', at).map((r, i) => {
      const p = `group_lines[${i}]`;
      const m = fields(r, p, GROUP_FIELDS, at);
      if (m.pattern === undefined) throw at(`${p}.pattern`, 'missing');
      if (m.header === undefined)
        throw at(`${p}.header`, 'missing (the line written for the group; $<count> is its size)');
      const re = pattern(m.pattern, `${p}.pattern`);
      if (COUNT_CAPTURE.test(re))
        throw at(`${p}.pattern`, 'a capture may not be named count ($<count> is the group size)');
      const g: GroupSpec = {
        pattern: re,
        key: m.key === undefined ? '$1' : str(m.key, `${p}.key`, at),
        header: str(m.header, `${p}.header`, at),
        min_count: m.min_count === undefined ? 2 : int(m.min_count, `${p}.min_count`, 1, 1e6, at),
      };
      if (m.item !== undefined) g.item = str(m.item, `${p}.item`, at);
      if (m.max_items !== undefined) g.max_items = int(m.max_items, `${p}.max_items`, 0, 1e6, at);
      if (m.join !== undefined) g.join = str(m.join, `${p}.join`, at);
      if (m.continued !== undefined) g.continued = pattern(m.continued, `${p}.continued`);
      return g;
    }),
    tests: [],
  };
  if (f.drop_sections !== undefined) {
    const m = fields(f.drop_sections, 'drop_sections', SECTIONS_FIELDS, at);
    if (m.start === undefined)
      throw at('drop_sections.start', 'missing (the line that opens a section; capture 1 names it)');
    if (m.drop === undefined)
      throw at('drop_sections.drop', 'missing (the line naming a section to drop, by capture 1)');
    spec.drop_sections = {
      start: pattern(m.start, 'drop_sections.start'),
      drop: pattern(m.drop, 'drop_sections.drop'),
      ...(m.end !== undefined ? { end: pattern(m.end, 'drop_sections.end') } : {}),
    };
  }
  if (f.dedupe_blocks !== undefined) {
    const m = fields(f.dedupe_blocks, 'dedupe_blocks', BLOCKS_FIELDS, at);
    if (m.start === undefined) throw at('dedupe_blocks.start', 'missing (the line that opens a block)');
    spec.dedupe_blocks = {
      start: pattern(m.start, 'dedupe_blocks.start'),
      also: m.also === undefined ? DEFAULT_ALSO : str(m.also, 'dedupe_blocks.also', at),
      ...(m.location !== undefined ? { location: pattern(m.location, 'dedupe_blocks.location') } : {}),
    };
  }
  const strip = patterns(f.strip_lines_matching, 'strip_lines_matching');
  const keep = patterns(f.keep_lines_matching, 'keep_lines_matching');
  if (strip && keep) {
    throw at(
      'keep_lines_matching',
      'strip_lines_matching and keep_lines_matching cannot both be set (use one)',
    );
  }
  if (strip) spec.strip_lines_matching = strip;
  if (keep) spec.keep_lines_matching = keep;
  if (f.truncate_lines_at !== undefined)
    spec.truncate_lines_at = int(f.truncate_lines_at, 'truncate_lines_at', 4, 1e6, at);
  if (f.head_lines !== undefined) spec.head_lines = int(f.head_lines, 'head_lines', 1, 1e6, at);
  if (f.tail_lines !== undefined) spec.tail_lines = int(f.tail_lines, 'tail_lines', 1, 1e6, at);
  if (f.max_lines !== undefined) spec.max_lines = int(f.max_lines, 'max_lines', 1, 1e6, at);
  if (f.on_empty !== undefined) spec.on_empty = str(f.on_empty, 'on_empty', at);

  const seen = new Set<string>();
  spec.tests = list(f.tests, 'tests', at).map((t, i) => {
    const p = `tests[${i}]`;
    const m = fields(t, p, TEST_FIELDS, at);
    for (const k of ['name', 'input', 'expected'] as const)
      if (m[k] === undefined) throw at(`${p}.${k}`, 'missing');
    const test: FilterTest = {
      name: str(m.name, `${p}.name`, at),
      input: str(m.input, `${p}.input`, at),
      expected: str(m.expected, `${p}.expected`, at),
    };
    if (m.command !== undefined) test.command = str(m.command, `${p}.command`, at);
    if (seen.has(test.name)) throw at(`${p}.name`, `duplicate test name ${JSON.stringify(test.name)}`);
    seen.add(test.name);
    return test;
  });
  return spec;
}

type At = (path: string, reason: string) => ConfigError;

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fields<K extends string>(
  raw: unknown,
  path: string,
  allowed: readonly K[],
  at: At,
): Partial<Record<K, unknown>> {
  if (!isMapping(raw)) throw at(path, `expected a mapping, got ${describe(raw)}`);
  for (const key of Object.keys(raw)) {
    if ((allowed as readonly string[]).includes(key)) continue;
    const near = closest(key, allowed);
    throw at(
      path ? `${path}.${key}` : key,
      `unknown field${near ? ` (did you mean ${near}?)` : ''} (known: ${allowed.join(', ')})`,
    );
  }
  return raw as Partial<Record<K, unknown>>;
}

function list(v: unknown, path: string, at: At): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw at(path, `expected a list, got ${describe(v)}`);
  return v;
}

function str(v: unknown, path: string, at: At): string {
  if (typeof v !== 'string') throw at(path, `expected a string, got ${describe(v)}`);
  return v;
}

function bool(v: unknown, path: string, at: At): boolean {
  if (typeof v !== 'boolean') throw at(path, `expected true or false, got ${describe(v)}`);
  return v;
}

function int(v: unknown, path: string, min: number, max: number, at: At): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw at(path, `expected an integer in ${min}..${max}, got ${describe(v)}`);
  }
  return v;
}

/** The allowed name within edit distance 2 of a typo, if any. */
function closest(key: string, allowed: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = 3;
  for (const a of allowed) {
    const d = distance(key, a);
    if (d < bestD) {
      bestD = d;
      best = a;
    }
  }
  return best;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}
