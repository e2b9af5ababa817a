import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { precompileBuiltins } from '../../../src/dsl/builtins.js';
import { compileFilter } from '../../../src/dsl/compile.js';
import { missingFailureLines, provenToKeepFailures } from '../../../src/dsl/failure-lines.js';
import type { CompiledFilter, FilterTest } from '../../../src/dsl/types.js';
import { FAILURE_SIGNALS } from '../../../src/text/signals.js';
import { ROOT } from '../../helpers.js';

function fake(run: (t: string) => string, tests: FilterTest[]): CompiledFilter {
  return {
    name: 'f',
    description: '',
    priority: 0,
    sourceKind: 'user',
    source: 'f.yaml',
    matches: () => true,
    needsRegex: () => true,
    run: (t) => ({ text: run(t), loss: 'whole' }),
    tests,
    yaml: '',
  };
}

describe('failure lines', () => {
  it('are lines with an error signal that does not count zero', () => {
    expect(FAILURE_SIGNALS.has('FAILED tests/a.py::b - AssertionError')).toBe(true);
    expect(FAILURE_SIGNALS.has('=== 2 failed, 3 passed ===')).toBe(true);
    expect(FAILURE_SIGNALS.has('Found 0 errors.')).toBe(false);
    expect(FAILURE_SIGNALS.has('tests/a.py::b PASSED')).toBe(false);
  });

  it('are kept when the output has them verbatim (ANSI and trailing spaces aside) or cut short', () => {
    const input = 'ok\n\x1b[31mFAILED a - boom\x1b[0m  \nerror: very long message about the failure\n';
    expect(missingFailureLines(input, 'FAILED a - boom\nerror: very long...\n')).toEqual([]);
    expect(missingFailureLines(input, 'FAILED a - boom\n')).toEqual([
      'error: very long message about the failure',
    ]);
  });

  it('are proven kept only by a filter whose tests show failing output and keep all of it', () => {
    const failing = { name: 't', input: 'x\nFAILED a\n1 failed', expected: 'FAILED a\n1 failed' };
    const keep = (t: string) =>
      t
        .split('\n')
        .filter((l) => /FAIL|fail/.test(l))
        .join('\n');
    expect(provenToKeepFailures(fake(keep, [failing]))).toBe(true);
    expect(provenToKeepFailures(fake(keep, [{ name: 'ok', input: 'a\nb', expected: '' }]))).toBe(false);
    expect(provenToKeepFailures(fake(() => '1 failed', [failing]))).toBe(false);
  });

  it('are proven kept by the builtin test-runner filters', async () => {
    const bundle = await precompileBuiltins(join(ROOT, 'builtin-filters'), false);
    const proven = bundle.filters
      .map((def) => compileFilter(def, { kind: 'builtin', eager: true }))
      .filter(provenToKeepFailures)
      .map((f) => f.name);
    expect(proven).toEqual(expect.arrayContaining(['pytest', 'cargo-test', 'go-test']));
  });
});
