import { describe, expect, it } from 'vitest';
import {
  assertTestsPass,
  firstDifference,
  formatFailure,
  runTests,
  sameOutput,
} from '../../../src/dsl/verify.js';
import { compileOne } from '../../filter-source.js';

const FILTER = `schema_version: 1
filters:
  heads:
    match: 'x'
    head_lines: 2
    tests:
      - name: short input passes through
        input: |
          a
          b
        expected: "a\\nb"
      - name: long input is cut
        input: "1\\n2\\n3\\n4\\n"
        expected: |
          1
          2
          ... (2 lines omitted)
      - name: wrong on purpose
        input: "1\\n2\\n3\\n"
        expected: "1\\n2\\n3\\n"
`;

describe('inline filter tests', () => {
  it('compare exactly except for trailing newlines', () => {
    expect(sameOutput('a\nb\n', 'a\nb')).toBe(true);
    expect(sameOutput('a\r\n', 'a\n\n')).toBe(true);
    expect(sameOutput('a\n\nb', 'a\nb')).toBe(false);
    expect(sameOutput(' a', 'a')).toBe(false);
  });

  it('report each test with expected and actual', async () => {
    const f = await compileOne(FILTER);
    const outcomes = runTests(f);
    expect(outcomes.map((o) => o.ok)).toEqual([true, true, false]);
    const failed = outcomes[2]!;
    expect(failed.actual).toBe('1\n2\n... (1 lines omitted)\n');
    const block = formatFailure(failed);
    expect(block.split('\n')[0]).toBe('FAIL [heads] wrong on purpose');
    expect(block).toContain('line 3: expected "3", got "... (1 lines omitted)"');
    expect(block).toMatch(
      /expected:\n {4}1\n {4}2\n {4}3\n {2}actual:\n {4}1\n {4}2\n {4}\.\.\. \(1 lines omitted\)/,
    );
  });

  it('make a failing test a load error naming file, filter and test', async () => {
    const f = await compileOne(FILTER);
    expect(() => assertTestsPass(f)).toThrow(
      /^test\.yaml: filters\.heads\.tests: inline test "wrong on purpose" fails/,
    );
  });

  it('point at the first differing line, or at a missing one', () => {
    expect(firstDifference('a\nb', 'a\nc')).toBe('line 2: expected "b", got "c"');
    expect(firstDifference('a\nb', 'a')).toBe('line 2: expected "b", got no line');
  });
});
