/**
 * Class-wide rules every builtin filter (builtin-filters/*.yaml) keeps, whatever filters exist:
 *   - every filter has at least 2 inline tests, and they pass;
 *   - each test input routes to its own filter among all builtins: the selector is `$ <command>`
 *     from the test's `command` field (or a test name starting with "$ ") plus the input;
 *   - no expected output is larger (in bytes) than its input;
 *   - no input line carrying an error signal is missing from the expected output.
 *
 * Error signals (case-insensitive, whole words): error(s), fail/fails/failed/failure(s),
 * panic/panicked, fatal, exception(s), assert/assertion(s), Traceback, any word ending in Error or
 * Exception (ValueError, NullPointerException), `npm ERR!`, and warning summaries ("3 warnings",
 * "warnings summary"). A mention that counts zero is not a signal: "0 errors", "no failures",
 * "failed=0". A signal line is found when the expected output has the same line after ANSI codes
 * and trailing spaces are removed from both — or, for a filter with truncate_lines_at N, the line
 * as truncate_lines_at would cut it. Any other change to a signal line (replace, a match_output
 * message instead of it) fails: errors reach the agent verbatim — except that a filter grouping
 * lines (group_lines) may write a signal line as its group's item (tsc: one message, every
 * location), or cut it at max_items when the group says how many it cut; a path listing rolled up
 * into a tree (path_tree) names or counts each path (errors.js is a file, not an error); and a
 * filter may rewrite what comes before a line's first signal word, never that word and what follows it.
 * For a filter that decodes a tool's JSON (decode), the error lines are those of the text the
 * plain tool prints (failureView): `--- FAIL: TestX`, not the JSON event that carries it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_JSON, precompileBuiltins, splitBundle } from '../../../src/dsl/builtins.js';
import { compileFilter, patternsOf } from '../../../src/dsl/compile.js';
import { failureView } from '../../../src/dsl/failure-lines.js';
import { compileRegex, passes } from '../../../src/dsl/regex.js';
import { byPriority, selectFilter, selectorFor } from '../../../src/dsl/registry.js';
import type { FilterSpec } from '../../../src/dsl/schema.js';
import { splitLines, stripAnsiText, truncateLine } from '../../../src/dsl/stages.js';
import type { FilterTest } from '../../../src/dsl/types.js';
import { runTests } from '../../../src/dsl/verify.js';
import { FAILURE_SIGNALS } from '../../../src/text/signals.js';
import { ROOT } from '../../helpers.js';

/**
 * A signal line whose text from its first signal word on ends a line of the expected output counts
 * as kept: a filter may rewrite what comes before the error (ls's permissions, tree's box drawing,
 * a timestamp), never the error itself.
 */
function keptFromSignal(line: string, kept: ReadonlySet<string>): boolean {
  const at = FAILURE_SIGNALS.firstAt(line);
  if (at === -1) return false;
  const tail = line.slice(at);
  for (const k of kept) if (k.endsWith(tail)) return true;
  return false;
}

/**
 * A line group_lines gathered counts as kept when its item (what the rule writes for it) is in the
 * expected output — a line of its own, or part of a joined header line — or when its group was cut
 * at max_items and says so (`… +N more`): grouping filters name every group and count what they cut.
 */
function keptAsItem(spec: FilterSpec, line: string, expected: string): boolean {
  const rule = spec.group_lines.find((g) => compileRegex(g.pattern, { file: '', path: '' }).test(line));
  if (!rule) return false;
  const re = compileRegex(rule.pattern, { file: '', path: '' });
  let item = rule.item === undefined ? line : re.matcher(line).replaceFirst(rule.item);
  if (spec.truncate_lines_at !== undefined) item = truncateLine(item, spec.truncate_lines_at);
  const out = linesOf(expected);
  if (rule.join === undefined ? out.includes(item.trimEnd()) : out.some((l) => l.includes(item.trimEnd())))
    return true;
  return rule.max_items !== undefined && /… \+\d+ more$/m.test(expected);
}

/**
 * A path listing's line (path_tree) counts as kept when the tree names it — its last segment is in
 * the expected output — or summarises it: a directory above it is there with its counts. A file
 * called errors.js is a path, not an error.
 */
function keptInTree(spec: FilterSpec, line: string, expected: string): boolean {
  const tree = spec.path_tree;
  if (!tree) return false;
  const re = compileRegex(tree.entry, { file: '', path: '' });
  if (!re.test(line)) return false;
  const segments = re.matcher(line).replaceFirst(tree.path).split('/').filter(Boolean);
  if (expected.includes(segments[segments.length - 1] ?? '\u0000')) return true;
  return segments.slice(0, -1).some((dir) => expected.includes(`${dir}/ (`));
}

const normalise = (line: string) => stripAnsiText(line).trimEnd();
const linesOf = (text: string) => splitLines(text).lines.map((l) => normalise(l.text));

/** The command a test's input came from: its `command`, else a name starting with "$ ". */
function commandOf(t: FilterTest): string | undefined {
  if (t.command !== undefined) return t.command;
  return t.name.startsWith('$ ') ? t.name.slice(2) : undefined;
}

const bundle = await precompileBuiltins(join(ROOT, 'builtin-filters'), false);
const compiled = bundle.filters.map((def) => ({
  def,
  filter: compileFilter(def, { kind: 'builtin', eager: true }),
}));
const ordered = compiled.map((c) => c.filter).sort(byPriority);

describe('builtin filters', () => {
  it('load: every file validates and every name is unique across files', () => {
    expect(new Set(bundle.filters.map((d) => d.spec.name)).size).toBe(bundle.filters.length);
  });

  it('classify error signals as documented', () => {
    for (const l of [
      'error: could not compile `x`',
      'FAILED tests/test_a.py::test_b - AssertionError',
      "thread 'main' panicked at src/main.rs:2:5",
      'Traceback (most recent call last):',
      'ValueError: bad',
      'npm ERR! code E404',
      '=== 1 failed, 3 passed in 0.1s ===',
      'warning: `x` (lib) generated 3 warnings',
      '=============== warnings summary ===============',
      'fatal: not a git repository',
    ]) {
      expect(FAILURE_SIGNALS.has(l), l).toBe(true);
    }
    for (const l of [
      'Found 0 errors. Watching for file changes.',
      'no errors found',
      'ok: 3 changed=1 failed=0',
      'Collecting exceptiongroup>=1.0.0',
      'stderr: redirected',
      'warning: unused variable `x`',
    ]) {
      expect(FAILURE_SIGNALS.has(l), l).toBe(false);
    }
  });
});

for (const { def, filter } of compiled) {
  const spec = def.spec;
  describe(`builtin filter ${spec.name} (${def.file})`, () => {
    it('has at least two inline tests, and they pass', () => {
      expect(spec.tests.length).toBeGreaterThanOrEqual(2);
      const failures = runTests(filter)
        .filter((o) => !o.ok)
        .map((o) => `${o.test}:\n--- expected\n${o.expected}\n--- actual\n${o.actual}`);
      expect(failures).toEqual([]);
    });

    it.each(spec.tests.map((t) => [t.name, t] as const))('routes test "%s" to itself', (_name, t) => {
      const chosen = selectFilter(ordered, selectorFor(commandOf(t), t.input));
      expect(chosen?.name, `selector:\n${selectorFor(commandOf(t), t.input)}`).toBe(spec.name);
    });

    it('has prefilters that never reject a text its patterns match (on every test input)', () => {
      for (const [pattern, field] of patternsOf(spec)) {
        const pf = bundle.prefilters[pattern];
        if (pf === undefined || pf === null) continue;
        const re = compileRegex(pattern, { file: def.file, path: field });
        for (const t of spec.tests) {
          const texts = [selectorFor(commandOf(t), t.input), t.input, ...t.input.split('\n')];
          for (const text of texts)
            if (re.test(text)) expect(passes(pf, text), `${field} on ${JSON.stringify(text)}`).toBe(true);
        }
      }
    });

    it.each(spec.tests.map((t) => [t.name, t] as const))('does not grow test "%s"', (_name, t) => {
      expect(Buffer.byteLength(t.expected)).toBeLessThanOrEqual(Buffer.byteLength(t.input));
    });

    it.each(spec.tests.map((t) => [t.name, t] as const))(
      'keeps every error line of test "%s"',
      (_name, t) => {
        const kept = new Set(linesOf(t.expected));
        const max = spec.truncate_lines_at;
        // A JSON stream's error lines are those its tool prints (failureView), not the JSON lines.
        const view = spec.decode === undefined ? t.input : failureView(t.input);
        const missing = linesOf(view).filter(
          (l) =>
            FAILURE_SIGNALS.has(l) &&
            !kept.has(l) &&
            !(max !== undefined && kept.has(truncateLine(l, max))) &&
            !keptFromSignal(l, kept) &&
            !keptAsItem(spec, l, t.expected) &&
            !keptInTree(spec, l, t.expected),
        );
        expect(missing).toEqual([]);
      },
    );
  });
}

describe('the runtime bundle (splitBundle)', () => {
  it('is ASCII, and holds each prefilter as the JSON text of the same value', () => {
    const runtime = splitBundle(bundle)[BUILTIN_JSON]!;
    expect(/[^\x00-\x7f]/.test(runtime)).toBe(false);
    const parsed = JSON.parse(runtime) as {
      filters: { spec: unknown }[];
      prefilters: Record<string, string>;
    };
    expect(Object.keys(parsed.prefilters)).toEqual(Object.keys(bundle.prefilters));
    for (const [pattern, text] of Object.entries(parsed.prefilters))
      expect(JSON.parse(text), pattern).toEqual(bundle.prefilters[pattern]);
    expect(parsed.filters.map((f) => f.spec)).toEqual(
      bundle.filters.map(({ spec: { tests: _, ...rest } }) => rest),
    );
  });
});
