/**
 * The compiled-filter contract shared by the DSL engine, the `cmdfilter` component, `cg filters` and
 * the build step that pre-compiles the builtins. A filter file is YAML (unknown fields are errors):
 *
 *   schema_version: 1
 *   filters:
 *     pytest:                       # the filter's name (letters, digits, _ - .; unique per source)
 *       description: pytest runs: failures, errors and the summary
 *       match: '^\$ (python3? -m )?pytest\b'   # RE2, tested against the selector (required)
 *       priority: 50                # higher is tried first; ties by name (default 0)
 *       strip_ansi: true
 *       replace: [{ pattern: '…', replacement: '…$1' }]
 *       match_output: [{ pattern: '…', message: 'all 312 tests passed', unless: '…' }]
 *       drop_sections: { start: '^=== RUN\s+(\S+)', end: '^--- ', drop: '^\s*--- PASS: (\S+)' }
 *       dedupe_blocks: { start: '^warning: ', location: '^\s*--> (\S+)', also: '  (also at $<locations>)' }
 *       strip_lines_matching: ['^\s*$', 'PASSED']   # xor keep_lines_matching
 *       limit_runs: [{ pattern: '^ ', head: 2, tail: 2 }]
 *       group_lines: [{ pattern: '^([^:]+):(\d+:.*)$', header: '$1 ($<count>)', item: '  $2', max_items: 5 }]
 *       truncate_lines_at: 300
 *       head_lines: 40
 *       tail_lines: 40
 *       max_lines: 200
 *       on_empty: 'pytest: no output'
 *       tests:
 *         - { name: noisy success, command: 'pytest -q', input: "…", expected: "…" }
 *
 * The selector is `$ <command>` on its first line when the command is known, followed by the first
 * 5 non-blank lines of the output (ANSI codes and \r removed). Sources are tried in lookup order
 * (--filters FILE, trusted ./.cg/filters, $XDG_CONFIG_HOME/cg/filters, builtins), and within one
 * source by priority then name; the first match wins.
 *
 * Semantics every filter author needs (stages run in this order on lines split at "\n"; a "\r"
 * before it is part of the line ending, never of the content the regexes see):
 *   - Regexes are RE2 (https://github.com/google/re2/wiki/Syntax): no look-around, no
 *     back-references (rejected at load). All are compiled with (?m): `^`/`$` match at line starts
 *     and ends in the multi-line selector and match_output text; `\A` is the start of the text (the
 *     `$ command` line when there is one). `(?i)` makes a pattern case-insensitive.
 *   - shape (grep-hits | path-list): the filter also claims an output whose selector's output lines
 *     all have that shape (shapes.ts), so `cmd | cg` gets the filter `cg run -- cmd` gets.
 *   - min_tokens: cmdfilter leaves an output of fewer tokens (counted) as it is; run() itself does
 *     not check it (what `cg filters test` shows is what the filter does when it applies).
 *   - decode (go-test-json | cargo-json | eslint-json | jest-json): before every other stage, the
 *     tool's JSON lines or report become the text the plain tool prints (decoders/).
 *   - strip_ansi: removes ANSI escape sequences (colours, cursor moves, OSC links).
 *   - replace: per line, every rule in order over every line (chained); unanchored, all matches
 *     replaced; `$1`, `$<name>`, `$&` in the replacement, `$$` for a literal `$`.
 *   - match_output: the lines joined by "\n" are searched (unanchored) for `pattern`; the first rule
 *     that finds it, and whose `unless` (if any) does not, replaces the whole output with `message`;
 *     the later stages are skipped.
 *   - drop_sections: a section opens at a `start` line (named by its capture 1, else the whole
 *     match) and closes at the next start line or an `end` line (which stays outside it). Its
 *     verdict is the first later line that `drop` or `end` names it by capture 1: a drop line drops
 *     the section (start line and all) and goes itself, an end line keeps it. go test -v: a passing
 *     test goes with its RUN line and logs; a failing one keeps them, even under a repeated name.
 *   - dedupe_blocks: a block is a `start` line and the lines after it up to a blank line or the next
 *     start line. A block whose first line equals an earlier block's first line goes (with one blank
 *     line after it); under the first copy's `location` line (else its last line) goes the `also`
 *     line, `$<locations>` being the dropped copies' location captures and `$<count>` their number.
 *   - strip_lines_matching drops every line any of its regexes finds (unanchored search);
 *     keep_lines_matching keeps only those lines.
 *   - path_tree: the lines `entry` matches (their path: `path`, default `$1`; `size`, `dir`,
 *     `header` for ls -R sections, `totals` for du) become one tree written where the first was
 *     (src/text/path-tree.ts), within max_chars (default 16000); other lines stay in place; the tree
 *     replaces the lines only when it is shorter.
 *   - limit_runs: each rule in turn; a run of more than head + tail consecutive lines its pattern
 *     finds keeps its first head and last tail lines around `... (K lines omitted)`.
 *     runs_max_chars C (filter level): when the result would be longer than C characters, every
 *     run keeps at most k lines (for every rule, shared as its head and tail are), the largest k
 *     that fits, down to a run's first line; lines outside runs always stay.
 *   - group_lines: a line joins the group of the first rule whose pattern finds it, keyed by that
 *     rule's `key` (default `$1`). A group of at least `min_count` (2) lines is written where its
 *     first line was: `header`, then each line's `item` (default: the line), at most `max_items` of
 *     them and then `  … +N more`; with `join`, the items follow the header on its line, joined by
 *     it. key, header and item are replacements as in `replace`, applied to the line (header: to the
 *     group's first line); `$<count>` in the header is the group's size. Smaller groups stay as they are,
 *     and so does a line whose next line `continued` matches (it stays with its continuation).
 *     group_max_chars C (filter level): when the grouped text would be longer than C characters,
 *     every group shows fewer items — one cap for all, the largest that fits, down to the header
 *     alone (then without `… +N more` when the header gives `$<count>`); headers are never cut.
 *     A rule with `brief` (a replacement; `$<count>` the group's size) is named in a list instead
 *     when not even one item fits: each of its groups, and each of its lines too few to make one,
 *     becomes its brief, consecutive briefs joined by `, ` on lines of about 160 characters, a new
 *     line wherever the key's directory (through its last `/`) changes.
 *   - truncate_lines_at N (≥ 4): a line longer than N characters (code points) becomes its first
 *     N-3 characters + "...", so exactly N.
 *   - head_lines H / tail_lines T: when there are more than H+T lines, the first H and last T stay
 *     with one line `... (K lines omitted)` between them (only head: it ends the text; only tail: it
 *     starts it).
 *   - max_lines M: when more than M lines are left, the first M stay, then `... (K lines omitted)`.
 *   - on_empty: the message when nothing but blank lines is left (also for an empty input).
 *   - The output ends with a newline exactly when the input does (messages included).
 *   - Loss: none when the output equals the input; tail when it is input lines 1..k unchanged plus
 *     at most one trailing omission line (then K counts exactly the input lines dropped and the
 *     hint reads `cg expand KEY --lines k+1-`); whole otherwise.
 *   - tests: each runs the filter on `input` and compares with `expected` exactly, except that
 *     trailing newlines are ignored. `command` (optional) is the command the input came from; the
 *     class-wide builtin tests check that `$ <command>` + the input selects this very filter (without
 *     `command`, a test name starting with "$ " is used as the command line, else the input alone).
 *     Builtins need ≥ 2 tests, expected no larger than input, and every input line with an error
 *     signal (see test/unit/dsl/builtins.test.ts) kept in expected, changed at most by strip_ansi,
 *     trailing-space trimming or truncate_lines_at.
 */
import type { Loss } from '../component.js';

/** What running a filter on one text gives. */
export interface FilterResult {
  text: string;
  /** none: nothing dropped; tail: one contiguous tail of lines dropped and nothing else changed; whole: anything else. */
  loss: Loss;
  /** For loss 'tail': the 1-based number (in the input) of the first dropped line. */
  tailFrom?: number;
  /** To fit group_max_chars, each group showed at most this many items. */
  itemCap?: number;
  /** Not even one item a group fitted group_max_chars: the groups were named in a list (brief). */
  listed?: boolean;
  /** To fit runs_max_chars, each run kept at most this many lines. */
  runsKept?: number;
}

export interface FilterRunOptions {
  /**
   * Bounds the filter's character budgets (group_max_chars, runs_max_chars, path_tree.max_chars):
   * cmdfilter's next try when the rewrite came out over its token ceiling.
   */
  cap?: number;
  /** The same object on every try of one run: what a run read of the text is kept for the next try. */
  memo?: object;
}

export interface FilterTest {
  name: string;
  input: string;
  expected: string;
  /** The command that produced input (the selector's `$ <command>` line), for routing checks. */
  command?: string;
}

/** Where a filter came from: a builtin family, a --filters file, a project or user directory. */
export type FilterSourceKind = 'builtin' | 'file' | 'project' | 'user';

export interface CompiledFilter {
  name: string;
  description: string;
  priority: number;
  /**
   * cmdfilter leaves an output of fewer tokens (counted, as fold's max_tokens is) as it is: what
   * the command's flags asked for (ls -l's columns) is not dropped from a small output.
   */
  minTokens?: number;
  sourceKind: FilterSourceKind;
  /** The file it was defined in (for builtins, builtin-filters/<family>.yaml). */
  source: string;
  /** Whether the selector picks this filter (RE2 semantics; compiled lazily on first use). */
  matches(selector: string): boolean;
  /**
   * False when matches(selector) can be answered without RE2: the match pattern's prefilter rules
   * it out (regex.ts mayMatch), so no regex would be compiled or run for it.
   */
  needsRegex(selector: string): boolean;
  run(text: string, opts?: FilterRunOptions): FilterResult;
  tests: readonly FilterTest[];
  /** The filter's own YAML, for `cg filters show`. */
  yaml: string;
}

/** Finds the declarative filter for an output (the lookup order of DESIGN §5); loads filter files lazily. */
export interface FilterSource {
  /** `exclude`: filter names not to consider (cmdfilter's `disabled`); the next match wins instead. */
  select(
    command: string | undefined,
    text: string,
    options?: { exclude?: readonly string[] },
  ): Promise<CompiledFilter | undefined>;
}
