/**
 * The multi-line filter stages (src/dsl/block-stages.ts), through compiled YAML filters so the
 * schema, the RE2 wiring and the stage order are exercised with them.
 */
import { describe, expect, it } from 'vitest';
import { loadRe2 } from '../../../src/dsl/regex.js';
import { validateDocument } from '../../../src/dsl/schema.js';
import { filterOf } from '../../filter-source.js';

await loadRe2();

describe('drop_sections', () => {
  const goTest = {
    drop_sections: {
      start: '^=== (?:RUN|CONT|PAUSE)\\s+(\\S+)',
      end: '^\\s*--- FAIL: (\\S+)|^(?:PASS|FAIL|ok)\\b',
      drop: '^\\s*--- PASS: (\\S+)',
    },
  };
  const input = [
    '=== RUN   TestA',
    '    a_test.go:3: setting up',
    '=== RUN   TestA/ok',
    '    a_test.go:9: fine',
    '=== RUN   TestA/bad',
    '    a_test.go:12: got 1, want 2',
    '--- FAIL: TestA (0.00s)',
    '    --- PASS: TestA/ok (0.00s)',
    '    --- FAIL: TestA/bad (0.00s)',
    '=== RUN   TestB',
    '    b_test.go:1: noisy log',
    '--- PASS: TestB (0.00s)',
    'FAIL',
    'FAIL\texample.com/x\t0.01s',
    '',
  ].join('\n');

  it("drops passing tests with their names and logs and keeps failing ones' logs under their names", async () => {
    const f = await filterOf(goTest);
    expect(f.run(input).text).toBe(
      [
        '=== RUN   TestA',
        '    a_test.go:3: setting up',
        '=== RUN   TestA/bad',
        '    a_test.go:12: got 1, want 2',
        '--- FAIL: TestA (0.00s)',
        '    --- FAIL: TestA/bad (0.00s)',
        'FAIL',
        'FAIL\texample.com/x\t0.01s',
        '',
      ].join('\n'),
    );
  });

  it('judges each run of a repeated name by its own verdict (the same test in two packages)', async () => {
    const f = await filterOf(goTest);
    const text = [
      '=== RUN   TestX',
      '    x_test.go:1: pass log',
      '--- PASS: TestX (0.00s)',
      'ok  \tpkg/a\t0.01s',
      '=== RUN   TestX',
      '    x_test.go:1: fail log',
      '--- FAIL: TestX (0.00s)',
      'FAIL\tpkg/b\t0.01s',
      '',
    ].join('\n');
    expect(f.run(text).text).toBe(
      'ok  \tpkg/a\t0.01s\n=== RUN   TestX\n    x_test.go:1: fail log\n--- FAIL: TestX (0.00s)\nFAIL\tpkg/b\t0.01s\n',
    );
  });

  it('changes nothing when no line names a section to drop', async () => {
    const f = await filterOf(goTest);
    const text = '=== RUN   TestA\n--- FAIL: TestA (0.00s)\nFAIL\n';
    expect(f.run(text)).toEqual({ text, loss: 'none' });
  });
});

describe('dedupe_blocks', () => {
  const cargo = {
    dedupe_blocks: {
      start: '^warning(?:\\[\\w+\\])?: ',
      location: '^\\s*--> (\\S+)',
      also: '   = also at: $<locations> ($<count> more)',
    },
  };
  const block = (line: number) =>
    [
      'warning: unexpected `cfg` condition value: `foo`',
      ` --> src/lib.rs:${line}:7`,
      '  |',
      `${line} | #[cfg(feature = "foo")]`,
      '',
    ].join('\n');

  it('lists the locations of repeated blocks under the first copy and drops the copies', async () => {
    const f = await filterOf(cargo);
    const input = `${block(3)}\n${block(9)}\n${block(14)}\nerror: could not compile\n`;
    expect(f.run(input).text).toBe(
      [
        'warning: unexpected `cfg` condition value: `foo`',
        ' --> src/lib.rs:3:7',
        '   = also at: src/lib.rs:9:7, src/lib.rs:14:7 (2 more)',
        '  |',
        '3 | #[cfg(feature = "foo")]',
        '',
        'error: could not compile',
        '',
      ].join('\n'),
    );
  });

  it('keeps blocks whose first lines differ', async () => {
    const f = await filterOf(cargo);
    const text = 'warning: a\n --> x.rs:1:1\n\nwarning: b\n --> x.rs:2:1\n';
    expect(f.run(text).loss).toBe('none');
  });
});

describe('limit_runs', () => {
  it('keeps the ends of long runs of matching lines around an omission line', async () => {
    const f = await filterOf({ limit_runs: [{ pattern: '^ ', head: 1, tail: 1 }] });
    const input = '@@ -1,9 +1,9 @@\n a\n b\n c\n d\n-e\n+E\n f\n g\n';
    expect(f.run(input).text).toBe('@@ -1,9 +1,9 @@\n a\n... (2 lines omitted)\n d\n-e\n+E\n f\n g\n');
  });

  it('cuts a run only one line longer than head + tail too (the line count stays as it was)', async () => {
    const f = await filterOf({ limit_runs: [{ pattern: '^ ', head: 1, tail: 1 }] });
    expect(f.run('@@ -1,4 +1,4 @@\n a\n b\n c\n-d\n+D\n').text).toBe(
      '@@ -1,4 +1,4 @@\n a\n... (1 lines omitted)\n c\n-d\n+D\n',
    );
  });
});

describe('limit_runs within runs_max_chars', () => {
  const diff = (max: number) => ({
    limit_runs: [
      { pattern: '^ ', head: 1, tail: 1 },
      { pattern: '^[+-]', head: 4, tail: 2 },
    ],
    runs_max_chars: max,
  });
  const hunk = (f: number) => [
    `diff --git a/f${f}.ts b/f${f}.ts`,
    `@@ -1,12 +1,12 @@ function f${f}() {`,
    ' const a = 1;',
    ' const b = 2;',
    ' const c = 3;',
    ...Array.from({ length: 9 }, (_, i) => `+  line ${i} of f${f}`),
  ];
  const input = `${[0, 1, 2].flatMap(hunk).join('\n')}\n`;

  it('keeps the rules as they are when they fit, with no cap reported', async () => {
    const r = (await filterOf(diff(100_000))).run(input);
    expect(r.text).toContain('+  line 3 of f0\n... (3 lines omitted)\n+  line 7 of f0\n');
    expect(r.loss).toBe('whole');
    expect(r.runsKept).toBeUndefined();
  });

  it('keeps fewer lines of every run, the most that fit, and every line outside a run', async () => {
    const full = (await filterOf(diff(100_000))).run(input).text;
    const r = (await filterOf(diff(full.length - 1))).run(input);
    expect(r.runsKept).toBe(5);
    expect(r.text.length).toBeLessThanOrEqual(full.length - 1);
    for (const f of [0, 1, 2]) {
      expect(r.text).toContain(
        `diff --git a/f${f}.ts b/f${f}.ts\n@@ -1,12 +1,12 @@ function f${f}() {\n const a = 1;\n`,
      );
      // Four and two shared within five: three from the head, two from the tail.
      expect(r.text).toContain(
        `+  line 2 of f${f}\n... (4 lines omitted)\n+  line 7 of f${f}\n+  line 8 of f${f}\n`,
      );
    }
  });

  it('keeps at least the first line of each run, whatever the budget', async () => {
    const r = (await filterOf(diff(1))).run(input);
    expect(r.runsKept).toBe(1);
    expect(r.text).toContain(
      'diff --git a/f2.ts b/f2.ts\n@@ -1,12 +1,12 @@ function f2() {\n const a = 1;\n... (2 lines omitted)\n+  line 0 of f2\n... (8 lines omitted)\n',
    );
  });

  it('is refused without limit_runs', () => {
    const doc = { schema_version: 1, filters: { t: { match: '', runs_max_chars: 100 } } };
    expect(() => validateDocument(doc, 'f.yaml')).toThrow(/t\.runs_max_chars: needs limit_runs/);
  });
});

describe('group_lines', () => {
  const grep = {
    group_lines: [
      { pattern: '^([^:]+):(\\d+[:-].*)$', header: '$1 ($<count> hits)', item: '  $2', max_items: 2 },
    ],
  };

  it('gathers lines by key under one header where the group began, at most max_items each', async () => {
    const f = await filterOf(grep);
    const input = 'a.ts:1:x\nb.ts:4:y\na.ts:7:z\na.ts:9:w\nc.ts:2:only\nBinary file d matches\n';
    expect(f.run(input)).toEqual({
      text: 'a.ts (3 hits)\n  1:x\n  7:z\n  … +1 more\nb.ts:4:y\nc.ts:2:only\nBinary file d matches\n',
      loss: 'whole',
    });
  });

  it('joins items onto the header line with join', async () => {
    const f = await filterOf({
      group_lines: [
        {
          pattern: '^(\\S+\\(\\d+,\\d+\\)): error (TS\\d+: .*)$',
          key: '$2',
          header: 'error $2 ($<count>×): ',
          item: '$1',
          join: ', ',
        },
      ],
    });
    const input =
      "a.ts(1,2): error TS2304: Cannot find name 'x'.\nb.ts(3,4): error TS2304: Cannot find name 'x'.\n";
    expect(f.run(input).text).toBe("error TS2304: Cannot find name 'x'. (2×): a.ts(1,2), b.ts(3,4)\n");
  });

  it('refuses a capture named count, a missing header and unknown fields', () => {
    const doc = (g: Record<string, unknown>) => ({
      schema_version: 1,
      filters: { t: { match: '', group_lines: [g] } },
    });
    expect(() => validateDocument(doc({ pattern: '(?P<count>x)', header: 'h' }), 'f.yaml')).toThrow(
      /named count/,
    );
    expect(() => validateDocument(doc({ pattern: 'x' }), 'f.yaml')).toThrow(
      /group_lines\[0\]\.header: missing/,
    );
    expect(() => validateDocument(doc({ pattern: 'x', header: 'h', items: 3 }), 'f.yaml')).toThrow(
      /group_lines\[0\]\.items: unknown field/,
    );
  });
});

describe('group_lines within group_max_chars', () => {
  const grep = (max: number) => ({
    group_lines: [
      { pattern: '^([^:]+):(\\d+[:-].*)$', header: '$1 ($<count> hits)', item: '  $2', max_items: 3 },
    ],
    group_max_chars: max,
  });
  // Three files of four hits, one of two, and a line no rule groups.
  const input = [
    ...['a.ts', 'b.ts', 'c.ts'].flatMap((f) => [1, 2, 3, 4].map((n) => `${f}:${n}:hit ${n} in ${f}`)),
    'd.ts:1:one',
    'd.ts:2:two',
    'Binary file e matches',
    '',
  ].join('\n');

  it('leaves the groups as max_items makes them when they fit, with no cap reported', async () => {
    const r = (await filterOf(grep(10_000))).run(input);
    expect(r.text).toContain(
      'a.ts (4 hits)\n  1:hit 1 in a.ts\n  2:hit 2 in a.ts\n  3:hit 3 in a.ts\n  … +1 more\n',
    );
    expect(r.loss).toBe('whole');
    expect(r.itemCap).toBeUndefined();
  });

  it('shows fewer items a group, the most that fit, and never drops a header', async () => {
    const full = (await filterOf(grep(10_000))).run(input).text;
    const r = (await filterOf(grep(full.length - 1))).run(input);
    expect(r.itemCap).toBe(2);
    expect(r.text).toBe(
      [
        'a.ts (4 hits)',
        '  1:hit 1 in a.ts',
        '  2:hit 2 in a.ts',
        '  … +2 more',
        'b.ts (4 hits)',
        '  1:hit 1 in b.ts',
        '  2:hit 2 in b.ts',
        '  … +2 more',
        'c.ts (4 hits)',
        '  1:hit 1 in c.ts',
        '  2:hit 2 in c.ts',
        '  … +2 more',
        'd.ts (2 hits)',
        '  1:one',
        '  2:two',
        'Binary file e matches',
        '',
      ].join('\n'),
    );
    expect(r.text.length).toBeLessThanOrEqual(full.length - 1);
  });

  it('keeps every header alone when even one item a group is too many', async () => {
    const r = (await filterOf(grep(1))).run(input);
    expect(r.itemCap).toBe(0);
    // A header that gives the count needs no "… +N more" under it.
    expect(r.text).toBe(
      'a.ts (4 hits)\nb.ts (4 hits)\nc.ts (4 hits)\nd.ts (2 hits)\nBinary file e matches\n',
    );
  });

  it('cuts joined items too, a header alone without its trailing separator', async () => {
    const listing = (max: number) =>
      filterOf({
        group_lines: [{ pattern: '^(.*/)([^/]+)$', header: '$1 ($<count>): ', item: '$2', join: ' ' }],
        group_max_chars: max,
      });
    const input = 'src/a.ts\nsrc/b.ts\nsrc/c.ts\nsrc/d.ts\nsrc/e.ts\nlib/x.js\nlib/y.js\n';
    // 55 characters in full; with two items a group, 50.
    const r = (await listing(50)).run(input);
    expect(r.text).toBe('src/ (5): a.ts b.ts … +3 more\nlib/ (2): x.js y.js\n');
    expect(r.itemCap).toBe(2);
    expect((await listing(20)).run(input).text).toBe('src/ (5):\nlib/ (2):\n');
  });

  it('names every group and every lone line of a brief rule in a list when not one item fits', async () => {
    const briefed = (max: number) =>
      filterOf({
        group_lines: [
          {
            pattern: '^([^:]+):(\\d+[:-].*)$',
            header: '$1 ($<count> hits)',
            item: '  $2',
            max_items: 3,
            brief: '$1 ($<count>)',
          },
        ],
        group_max_chars: max,
      });
    const paths = [
      ...['src/a.ts', 'src/b.ts'].flatMap((f) => [1, 2, 3].map((n) => `${f}:${n}:hit ${n} in ${f}`)),
      'src/c.ts:9:a lone hit',
      'lib/x.js:1:one',
      'lib/x.js:2:two',
      'Binary file e matches',
      'lib/y.js:5:another lone hit',
      '',
    ].join('\n');
    const r = (await briefed(60)).run(paths);
    expect(r.text).toBe(
      'src/a.ts (3), src/b.ts (3), src/c.ts (1)\nlib/x.js (2)\nBinary file e matches\nlib/y.js (1)\n',
    );
    expect(r.listed).toBe(true);
    // One item a group fits: the groups as usual, lone lines as they are.
    const one = (await briefed(400)).run(paths);
    expect(one.listed).toBeUndefined();
    expect(one.text).toContain('src/c.ts:9:a lone hit');
  });

  it('does not say so when nothing was grouped', async () => {
    const r = (await filterOf(grep(1))).run('a.ts:1:x\nb.ts:2:y\n');
    expect(r.loss).toBe('none');
    expect(r.itemCap).toBeUndefined();
  });

  it('is refused without group_lines', () => {
    const doc = { schema_version: 1, filters: { t: { match: '', group_max_chars: 100 } } };
    expect(() => validateDocument(doc, 'f.yaml')).toThrow(/t\.group_max_chars: needs group_lines/);
  });
});

describe('group_lines with continued', () => {
  it('leaves a line followed by its continuation in place, with it', async () => {
    const f = await filterOf({
      group_lines: [
        {
          pattern: '^(\\S+\\(\\d+,\\d+\\)): error (TS\\d+: .*)$',
          key: '$2',
          header: 'error $2 ($<count>×): ',
          item: '$1',
          join: ', ',
          continued: '^\\s',
        },
      ],
    });
    const input = [
      "a.ts(1,2): error TS2345: Argument of type 'X' is not assignable.",
      "  Type 'X' is missing 'y'.",
      "b.ts(3,4): error TS2345: Argument of type 'X' is not assignable.",
      "c.ts(5,6): error TS2345: Argument of type 'X' is not assignable.",
      '',
    ].join('\n');
    expect(f.run(input).text).toBe(
      [
        "a.ts(1,2): error TS2345: Argument of type 'X' is not assignable.",
        "  Type 'X' is missing 'y'.",
        "error TS2345: Argument of type 'X' is not assignable. (2×): b.ts(3,4), c.ts(5,6)",
        '',
      ].join('\n'),
    );
  });
});
