/**
 * Inline filter tests: each `{name, input, expected}` runs the filter on input and compares with
 * expected — exactly, except that trailing newlines on either side are ignored (YAML's `|` adds
 * one, `|-` does not, and that difference is never what a test means). Used at load (a failing
 * test is a ConfigError naming file, filter and test), at build time for the builtins, and by
 * `cg filters verify`.
 */
import { ConfigError } from '../errors.js';
import type { CompiledFilter, FilterTest } from './types.js';

export interface TestOutcome {
  filter: string;
  source: string;
  test: string;
  ok: boolean;
  expected: string;
  actual: string;
}

const TRAILING_NEWLINES = /(?:\r?\n)+$/;

export function sameOutput(actual: string, expected: string): boolean {
  return actual.replace(TRAILING_NEWLINES, '') === expected.replace(TRAILING_NEWLINES, '');
}

export function runTest(f: CompiledFilter, t: FilterTest): TestOutcome {
  let actual: string;
  try {
    actual = f.run(t.input).text;
  } catch (err) {
    actual = `(the filter threw: ${err instanceof Error ? err.message : String(err)})`;
  }
  return {
    filter: f.name,
    source: f.source,
    test: t.name,
    ok: sameOutput(actual, t.expected),
    expected: t.expected,
    actual,
  };
}

export function runTests(f: CompiledFilter): TestOutcome[] {
  return f.tests.map((t) => runTest(f, t));
}

/** Throws a ConfigError for the first failing test (load-time guardrail). */
export function assertTestsPass(f: CompiledFilter): void {
  for (const o of runTests(f)) {
    if (o.ok) continue;
    throw new ConfigError(
      `filters.${f.name}.tests`,
      `inline test ${JSON.stringify(o.test)} fails (${firstDifference(o.expected, o.actual)}); see \`cg filters verify ${f.source}\``,
      f.source,
    );
  }
}

/** "line N: expected …, got …" for the first line where two outputs part. */
export function firstDifference(expected: string, actual: string): string {
  const e = expected.replace(TRAILING_NEWLINES, '').split('\n');
  const a = actual.replace(TRAILING_NEWLINES, '').split('\n');
  for (let i = 0; i < Math.max(e.length, a.length); i++) {
    if (e[i] === a[i]) continue;
    const show = (s: string | undefined) => (s === undefined ? 'no line' : JSON.stringify(clip(s)));
    return `line ${i + 1}: expected ${show(e[i])}, got ${show(a[i])}`;
  }
  return 'outputs differ';
}

function clip(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** The report block for one failure: header, then expected and actual, indented. */
export function formatFailure(o: TestOutcome): string {
  const indent = (s: string) =>
    s
      .replace(TRAILING_NEWLINES, '')
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n');
  return [
    `FAIL [${o.filter}] ${o.test}`,
    `  ${o.source}; ${firstDifference(o.expected, o.actual)}`,
    '  expected:',
    indent(o.expected),
    '  actual:',
    indent(o.actual),
    '',
  ].join('\n');
}
