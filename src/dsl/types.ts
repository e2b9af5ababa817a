/**
 * The compiled-filter contract shared by the DSL engine, the `cmdfilter` component, `cg filters` and
 * the build step that pre-compiles the builtins. A filter file is YAML:
 *
 *   schema_version: 1
 *   filters:
 *     pytest:                       # the filter's name (unique across every source)
 *       description: pytest runs: failures, errors and the summary
 *       match: '^\$ (python3? -m )?pytest\b'   # RE2, tested against the selector
 *       priority: 50                # higher is tried first; ties by name
 *       strip_ansi: true
 *       replace: [{ pattern: '…', replacement: '…$1' }]
 *       match_output: [{ pattern: '…', message: 'all 312 tests passed', unless: '…' }]
 *       strip_lines_matching: ['^\s*$', 'PASSED']   # xor keep_lines_matching
 *       truncate_lines_at: 300
 *       head_lines: 40
 *       tail_lines: 40
 *       max_lines: 200
 *       on_empty: 'pytest: no output'
 *       tests:
 *         - { name: noisy success, input: "…", expected: "…" }
 *
 * The selector is `$ <command>` on its first line when the command is known, followed by the first
 * few non-empty lines of the output.
 */
import type { Loss } from '../component.js';

/** What running a filter on one text gives. */
export interface FilterResult {
  text: string;
  /** none: nothing dropped; tail: one contiguous tail of lines dropped and nothing else changed; whole: anything else. */
  loss: Loss;
  /** For loss 'tail': the 1-based number (in the input) of the first dropped line. */
  tailFrom?: number;
}

export interface FilterTest {
  name: string;
  input: string;
  expected: string;
}

/** Where a filter came from: a builtin family, a --filters file, a project or user directory. */
export type FilterSourceKind = 'builtin' | 'file' | 'project' | 'user';

export interface CompiledFilter {
  name: string;
  description: string;
  priority: number;
  sourceKind: FilterSourceKind;
  /** The file it was defined in (for builtins, builtin-filters/<family>.yaml). */
  source: string;
  /** Whether the selector picks this filter (RE2 semantics; compiled lazily on first use). */
  matches(selector: string): boolean;
  run(text: string): FilterResult;
  tests: readonly FilterTest[];
  /** The filter's own YAML, for `cg filters show`. */
  yaml: string;
}
