/**
 * The filter file format (DESIGN §5), declared once with the field toolkit (src/config/fields.ts):
 * each declaration below gives the raw form's strict parser, its defaults and the normalised type
 * (FilterSpec and its parts). A parsed YAML document goes in, FilterSpecs come out, or a ConfigError
 * naming the file, the filter and the field (`x.yaml: filters.pytest.strip_line_matching: unknown
 * field (did you mean strip_lines_matching?)`). Unknown fields are errors, never ignored: a typo must
 * not silently turn a filter off. Patterns are checked here for look-around and back-references
 * only; compiling them (which needs re2js) is compile.ts's job.
 */
import {
  boolean,
  type ConfigOf,
  describe,
  field,
  integer,
  list,
  oneOf,
  record,
  type Shape,
  section,
  string,
} from '../config/fields.js';
import { ConfigError } from '../errors.js';
import { DECODER_NAMES } from './decoders/index.js';
import { checkSyntax } from './regex.js';
import { SHAPE_NAMES } from './shapes.js';

export const SCHEMA_VERSION = 1;

/** `$<count>` in a group header is the group's size, so no capture may take that name. */
const COUNT_CAPTURE = /\(\?P?<count>/;
const DEFAULT_ALSO = '  (also at $<locations>)';
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const MAX = 1e6;

/** The format calls its keys fields. */
const fields = <S extends Shape>(shape: S) => section(shape, { noun: 'field' });

/** A regex, refused here when it uses what RE2 lacks; compiling it is compile.ts's job. */
const pattern = string().to((p, path) => {
  checkSyntax(p, { file: '', path });
  return p;
});

const REPLACE = fields({
  pattern,
  /** `$1`…`$99`, `$<name>` and `$&` refer to the match; `$$` is a literal `$`. */
  replacement: string().required('use "" to delete the match'),
});
export type ReplaceRule = ConfigOf<typeof REPLACE>;

const MATCH_OUTPUT = fields({
  pattern,
  message: string().check((m) =>
    m.trim() === '' ? 'must not be empty (the whole output is replaced by it)' : undefined,
  ),
  unless: pattern.optional(),
});
export type MatchOutputRule = ConfigOf<typeof MATCH_OUTPUT>;

/** drop_sections: sections opened by `start`, closed by `end`, dropped when a `drop` line names them. */
const SECTIONS = fields({
  start: pattern.required('the line that opens a section; capture 1 names it'),
  end: pattern.optional(),
  drop: pattern.required('the line naming a section to drop, by capture 1'),
});
export type SectionsSpec = ConfigOf<typeof SECTIONS>;

/** dedupe_blocks: blocks opened by `start`; a repeated one is listed by its `location` under the first. */
const BLOCKS = fields({
  start: pattern.required('the line that opens a block'),
  location: pattern.optional(),
  also: string().or(DEFAULT_ALSO),
});
export type BlocksSpec = ConfigOf<typeof BLOCKS>;

/** limit_runs: runs of consecutive matching lines keep `head` and `tail` of their lines. */
const RUN = fields({
  pattern,
  head: integer({ max: MAX }).or(0),
  tail: integer({ max: MAX }).or(0),
});
export type RunSpec = ConfigOf<typeof RUN>;

/** group_lines: matching lines gathered by `key` under one `header`, each as an `item`. */
const GROUP = fields({
  pattern: pattern.check((re) =>
    COUNT_CAPTURE.test(re) ? 'a capture may not be named count ($<count> is the group size)' : undefined,
  ),
  key: string().or('$1'),
  header: string().required('the line written for the group; $<count> is its size'),
  item: string().optional(),
  max_items: integer({ max: MAX }).optional(),
  join: string().optional(),
  min_count: integer({ min: 1, max: MAX }).or(2),
  continued: pattern.optional(),
  brief: string().optional(),
});
export type GroupSpec = ConfigOf<typeof GROUP>;

/** path_tree: the lines of a path listing rolled up into one tree of directories with their counts. */
const PATH_TREE = fields({
  entry: pattern.required('a line of the listing; `path` (default $1) gives its path'),
  path: string().or('$1'),
  size: string().optional(),
  dir: pattern.optional(),
  header: pattern.optional(),
  /** A directory's size is the total beneath it (du): shown on its line. */
  totals: boolean().or(false),
  max_chars: integer({ min: 1, max: MAX }).or(16000),
});
export type PathTreeSpec = ConfigOf<typeof PATH_TREE>;

const TEST = fields({
  name: string(),
  input: string(),
  expected: string(),
  /** The command that produced input (the selector's `$ <command>` line), for routing checks. */
  command: string().optional(),
});

const regexes = list(pattern, 'a list of regexes');

/** One filter as written, validated and with defaults filled in (its name is the key above it). */
const FILTER = fields({
  description: string().or(''),
  match: pattern.required('a regex tested against the selector "$ <command>" + first output lines'),
  /** The filter also claims an output whose first lines have this shape (shapes.ts). */
  shape: oneOf(SHAPE_NAMES).optional(),
  priority: integer({ min: -10_000, max: 10_000 }).or(0),
  /** cmdfilter leaves outputs of fewer tokens (counted) as they are: the flags' columns stay. */
  min_tokens: integer({ min: 1, max: MAX }).optional(),
  /** The output is this tool's JSON: decoded to the plain tool's text before the other stages. */
  decode: oneOf(DECODER_NAMES).optional(),
  strip_ansi: boolean().or(false),
  replace: list(REPLACE),
  match_output: list(MATCH_OUTPUT),
  drop_sections: SECTIONS.optional(),
  dedupe_blocks: BLOCKS.optional(),
  /** The lines of a path listing become a tree of directories with counts, within max_chars. */
  path_tree: PATH_TREE.optional(),
  limit_runs: list(RUN),
  /** The text's budget in characters after limit_runs: runs keep fewer lines to fit, other lines stay. */
  runs_max_chars: integer({ min: 1, max: MAX }).optional(),
  group_lines: list(GROUP),
  /** The grouped text's budget in characters: items per group are cut to fit, never headers. */
  group_max_chars: integer({ min: 1, max: MAX }).optional(),
  strip_lines_matching: regexes.optional(),
  keep_lines_matching: regexes.optional(),
  truncate_lines_at: integer({ min: 4, max: MAX }).optional(),
  head_lines: integer({ min: 1, max: MAX }).optional(),
  tail_lines: integer({ min: 1, max: MAX }).optional(),
  max_lines: integer({ min: 1, max: MAX }).optional(),
  on_empty: string().optional(),
  tests: list(TEST).to(uniqueNames),
}).to((f, path) => {
  if (f.strip_lines_matching && f.keep_lines_matching) {
    throw new ConfigError(
      `${path}.keep_lines_matching`,
      'strip_lines_matching and keep_lines_matching cannot both be set (use one)',
    );
  }
  if (f.group_max_chars !== undefined && f.group_lines.length === 0)
    throw new ConfigError(`${path}.group_max_chars`, 'needs group_lines (it is their budget)');
  if (f.runs_max_chars !== undefined && f.limit_runs.length === 0)
    throw new ConfigError(`${path}.runs_max_chars`, 'needs limit_runs (it is their budget)');
  return f;
});
export type FilterSpec = { name: string } & ConfigOf<typeof FILTER>;

const DOCUMENT = fields({
  schema_version: field(version).required(`this cg reads schema_version: ${SCHEMA_VERSION}`),
  filters: record(FILTER, { what: 'a mapping of name → filter', badName }).required(
    'a mapping of filter name → filter',
  ),
});

/** A filter with where it came from: the unit that sources, the build step and `cg filters` pass around. */
export interface FilterDef {
  spec: FilterSpec;
  /** The file it was read from, as shown to users. */
  file: string;
  /** The filter's own YAML (for `cg filters show`). */
  yaml: string;
}

/** Validates one parsed filter document; filters come back in file order. */
/** The top-level keys of a filter file. */
export const DOCUMENT_KEYS = DOCUMENT.keys;

export function validateDocument(raw: unknown, file: string): FilterSpec[] {
  try {
    if (raw === null || raw === undefined)
      throw new ConfigError('', 'empty filter file (expected schema_version: 1 and filters:)');
    const doc = DOCUMENT.parse(raw);
    return Object.entries(doc.filters).map(([name, spec]) => ({ name, ...spec }));
  } catch (err) {
    if (err instanceof ConfigError && !err.file) throw new ConfigError(err.path, err.reason, file);
    throw err;
  }
}

function version(raw: unknown, path: string): typeof SCHEMA_VERSION {
  if (raw !== SCHEMA_VERSION) throw new ConfigError(path, `expected ${SCHEMA_VERSION}, got ${describe(raw)}`);
  return SCHEMA_VERSION;
}

function badName(name: string): string | undefined {
  return NAME_RE.test(name)
    ? undefined
    : 'a filter name is letters, digits, "_", "-" or "." (at most 64, starting with a letter or digit)';
}

function uniqueNames<T extends { name: string }>(tests: T[], path: string): T[] {
  const seen = new Set<string>();
  tests.forEach((t, i) => {
    if (seen.has(t.name))
      throw new ConfigError(`${path}[${i}].name`, `duplicate test name ${JSON.stringify(t.name)}`);
    seen.add(t.name);
  });
  return tests;
}
