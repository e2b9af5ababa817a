import { describe, expect, it } from 'vitest';
import { compileFilter } from '../../../src/dsl/compile.js';
import { loadRe2 } from '../../../src/dsl/regex.js';
import { validateDocument } from '../../../src/dsl/schema.js';
import { filterOf } from '../../filter-source.js';

describe('a compiled filter', () => {
  it('runs the stages in order: ansi, replace, match_output, strip, truncate, head/tail, max, on_empty', async () => {
    const f = await filterOf({
      strip_ansi: true,
      replace: [
        { pattern: '^(\\w+) PASSED$', replacement: 'ok $1' },
        { pattern: '^ok (\\w+)$', replacement: 'OK[$1]' },
      ],
      strip_lines_matching: ['^OK\\['],
      truncate_lines_at: 12,
      head_lines: 2,
      tail_lines: 1,
      max_lines: 3,
    });
    const input =
      '\x1b[32mt1 PASSED\x1b[0m\nt2 FAILED because of a long reason\nt3 PASSED\nE1\nE2\nE3\nsummary\n';
    // replace chains (ok t1 → OK[t1]); strip drops them; truncate cuts line 2; head 2 + tail 1
    // leaves 4 lines (t2, E1, omission of E2 E3, summary); max_lines 3 folds summary into the omission.
    expect(f.run(input)).toEqual({
      text: 't2 FAILED...\nE1\n... (3 lines omitted)\n',
      loss: 'whole',
    });
  });

  it('expands $1 back-references and $$ in replacements, every match on the line', async () => {
    const f = await filterOf({ replace: [{ pattern: '(\\d+)ms', replacement: '$$$1' }] });
    expect(f.run('a 12ms b 3ms\n').text).toBe('a $12 b $3\n');
  });

  it('short-circuits on match_output unless its guard matches, skipping later stages', async () => {
    const f = await filterOf({
      match_output: [{ pattern: '^\\d+ passed', message: 'all tests passed', unless: '(?i)fail|error' }],
      on_empty: 'never used',
      head_lines: 1,
    });
    expect(f.run('collecting\n12 passed in 1s\n')).toEqual({ text: 'all tests passed\n', loss: 'whole' });
    expect(f.run('collecting\n12 passed, 1 failed\n')).toEqual({
      text: 'collecting\n... (1 lines omitted)\n',
      loss: 'tail',
      tailFrom: 2,
    });
  });

  it('keeps only matching lines with keep_lines_matching', async () => {
    const f = await filterOf({ keep_lines_matching: ['^error', 'warning'] });
    expect(f.run('a\nerror: x\nb\nwarning: y\n').text).toBe('error: x\nwarning: y\n');
  });

  it('says on_empty when everything was dropped, even for an empty input', async () => {
    const f = await filterOf({ strip_lines_matching: ['.'], on_empty: 'git push: ok' });
    expect(f.run('Everything up-to-date\n')).toEqual({ text: 'git push: ok\n', loss: 'whole' });
    expect(f.run('').text).toBe('git push: ok');
  });

  it('reports loss none, tail with the first dropped line, or whole', async () => {
    const head = await filterOf({ head_lines: 3 });
    expect(head.run('1\n2\n3\n')).toEqual({ text: '1\n2\n3\n', loss: 'none' });
    expect(head.run('1\n2\n3\n4\n5\n')).toEqual({
      text: '1\n2\n3\n... (2 lines omitted)\n',
      loss: 'tail',
      tailFrom: 4,
    });
    const tail = await filterOf({ tail_lines: 1 });
    expect(tail.run('1\n2\n3\n').loss).toBe('whole');
  });

  it('handles CRLF output: patterns see lines without \\r, endings are kept', async () => {
    const f = await filterOf({ strip_lines_matching: ['^skip$'], head_lines: 2 });
    expect(f.run('a\r\nskip\r\nb\r\nc\r\nd\r\n')).toEqual({
      text: 'a\r\nb\r\n... (2 lines omitted)\r\n',
      loss: 'whole',
    });
  });

  it('matches and cuts unicode by characters', async () => {
    const f = await filterOf({ keep_lines_matching: ['☕'], truncate_lines_at: 6 });
    expect(f.run('thé ☕ chaud\nrien\n𝔘𝔫𝔦☕𝔠𝔬𝔡𝔢\n').text).toBe('thé...\n𝔘𝔫𝔦...\n');
  });

  it('gives an empty input back unchanged when there is no on_empty', async () => {
    const f = await filterOf({ strip_lines_matching: ['x'], head_lines: 1 });
    expect(f.run('')).toEqual({ text: '', loss: 'none' });
  });

  it('matches the selector with ^ at any line and \\A at its start', async () => {
    const anyLine = await filterOf({ match: '^=+ test session starts' });
    expect(anyLine.matches('$ python -m pytest\n===== test session starts =====')).toBe(true);
    const first = await filterOf({ match: '\\A\\$ cargo (build|check)\\b' });
    expect(first.matches('$ cargo build --release\nCompiling x')).toBe(true);
    expect(first.matches('$ make\n$ cargo build')).toBe(false);
  });

  it('compiles a builtin lazily: a broken body pattern surfaces only when it runs', async () => {
    await loadRe2();
    const [spec] = validateDocument(
      { schema_version: 1, filters: { lazy: { match: 'x', strip_lines_matching: ['(unclosed'] } } },
      'builtin-filters/t.yaml',
    );
    const f = compileFilter(
      { spec: spec!, file: 'builtin-filters/t.yaml', yaml: '' },
      { kind: 'builtin', eager: false },
    );
    expect(f.matches('x')).toBe(true);
    expect(() => f.run('y')).toThrow(/builtin-filters\/t\.yaml: filters\.lazy\.strip_lines_matching\[0\]/);
    expect(() =>
      compileFilter({ spec: spec!, file: 'user.yaml', yaml: '' }, { kind: 'user', eager: true }),
    ).toThrow(
      /user\.yaml: filters\.lazy\.strip_lines_matching\[0\]: pattern "\(unclosed" is not a valid RE2 regex/,
    );
  });
});
