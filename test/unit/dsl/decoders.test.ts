import { describe, expect, it } from 'vitest';
import { DECODERS } from '../../../src/dsl/decoders/index.js';
import { failureView, missingFailureLines } from '../../../src/dsl/failure-lines.js';
import { joinLines, splitLines } from '../../../src/dsl/stages.js';

const decode = (name: keyof typeof DECODERS, text: string) => joinLines(DECODERS[name](splitLines(text)));
const ev = (o: Record<string, unknown>) => JSON.stringify(o);

// go 1.19's order: a subtest's t.Error output comes before its parent's --- FAIL line.
const GO = [
  '# example.com/shop/broken [example.com/shop/broken.test]',
  'broken/broken_test.go:6:11: cannot use "3" (untyped string constant) as int value in argument to Twice',
  ev({ Action: 'run', Package: 'example.com/shop/calc', Test: 'TestAdd' }),
  ev({ Action: 'output', Package: 'example.com/shop/calc', Test: 'TestAdd', Output: '=== RUN   TestAdd\n' }),
  ev({
    Action: 'output',
    Package: 'example.com/shop/calc',
    Test: 'TestAdd',
    Output: '--- PASS: TestAdd (0.00s)\n',
  }),
  ev({ Action: 'pass', Package: 'example.com/shop/calc', Test: 'TestAdd', Elapsed: 0 }),
  ev({ Action: 'run', Package: 'example.com/shop/calc', Test: 'TestTable' }),
  ev({
    Action: 'output',
    Package: 'example.com/shop/calc',
    Test: 'TestTable/case#01',
    Output: '    calc_test.go:19: Add(2, 2) = 4, want 5\n',
  }),
  ev({
    Action: 'output',
    Package: 'example.com/shop/calc',
    Test: 'TestTable',
    Output: '--- FAIL: TestTable (0.00s)\n',
  }),
  ev({
    Action: 'output',
    Package: 'example.com/shop/calc',
    Test: 'TestTable/case#01',
    Output: '    --- FAIL: TestTable/case#01 (0.00s)\n',
  }),
  ev({ Action: 'fail', Package: 'example.com/shop/calc', Test: 'TestTable/case#01', Elapsed: 0 }),
  ev({
    Action: 'output',
    Package: 'example.com/shop/calc',
    Test: 'TestTable/case#00',
    Output: '    --- PASS: TestTable/case#00 (0.00s)\n',
  }),
  ev({ Action: 'pass', Package: 'example.com/shop/calc', Test: 'TestTable/case#00', Elapsed: 0 }),
  ev({ Action: 'fail', Package: 'example.com/shop/calc', Test: 'TestTable', Elapsed: 0 }),
  ev({ Action: 'output', Package: 'example.com/shop/calc', Output: 'FAIL\n' }),
  ev({ Action: 'output', Package: 'example.com/shop/calc', Output: 'FAIL\texample.com/shop/calc\t0.009s\n' }),
  ev({ Action: 'fail', Package: 'example.com/shop/calc', Elapsed: 0.009 }),
  ev({ Action: 'output', Package: 'example.com/shop/strs', Output: 'ok  \texample.com/shop/strs\t0.002s\n' }),
  ev({ Action: 'pass', Package: 'example.com/shop/strs', Elapsed: 0.002 }),
  '',
].join('\n');

describe('decoders', () => {
  it('go-test-json prints what plain go test prints: a failing test with its --- FAIL line first, passes only counted', () => {
    expect(decode('go-test-json', GO)).toBe(
      [
        '# example.com/shop/broken [example.com/shop/broken.test]',
        'broken/broken_test.go:6:11: cannot use "3" (untyped string constant) as int value in argument to Twice',
        '--- FAIL: TestTable (0.00s)',
        '    --- FAIL: TestTable/case#01 (0.00s)',
        '    calc_test.go:19: Add(2, 2) = 4, want 5',
        'FAIL',
        'FAIL\texample.com/shop/calc\t0.009s',
        'go test -json: 2 passed, 2 failed, 0 skipped; 1 of 2 packages ok',
        '',
      ].join('\n'),
    );
  });

  it('go-test-json leaves JSON lines that are no go test events alone (an Action field without a package)', () => {
    const log = `${ev({ Action: 'login', user: 'ann', level: 'error' })}\n`;
    expect(decode('go-test-json', log)).toBe(log);
  });

  it('cargo-json prints each compiler message as rustc renders it and counts the build events', () => {
    const text = [
      '   Compiling util v0.1.0 (/tmp/ws/util)',
      ev({
        reason: 'compiler-message',
        message: {
          level: 'warning',
          rendered: 'warning: unused variable: `spare`\n --> util/src/lib.rs:2:9\n  |\n\n',
        },
      }),
      ev({ reason: 'compiler-artifact', package_id: 'path+file:///tmp/ws/util#0.1.0' }),
      ev({
        reason: 'compiler-message',
        message: { level: 'error', rendered: 'error[E0308]: mismatched types\n --> app/src/main.rs:4:18\n' },
      }),
      ev({ reason: 'build-finished', success: false }),
      'error: could not compile `app` (bin "app") due to 1 previous error',
      '',
    ].join('\n');
    expect(decode('cargo-json', text)).toBe(
      [
        '   Compiling util v0.1.0 (/tmp/ws/util)',
        'warning: unused variable: `spare`',
        ' --> util/src/lib.rs:2:9',
        '  |',
        'error[E0308]: mismatched types',
        ' --> app/src/main.rs:4:18',
        'error: could not compile `app` (bin "app") due to 1 previous error',
        'cargo --message-format=json: 1 crate compiled, 1 warning, 1 error; build failed',
        '',
      ].join('\n'),
    );
  });

  it('eslint-json prints stylish lines for files with problems and counts the clean ones', () => {
    const report = [
      {
        filePath: '/p/src/a.js',
        messages: [{ ruleId: 'no-undef', severity: 2, message: "'x' is not defined.", line: 6, column: 10 }],
      },
      { filePath: '/p/src/b.js', messages: [] },
    ];
    expect(decode('eslint-json', `${JSON.stringify(report)}\n`)).toBe(
      [
        '/p/src/a.js',
        "  6:10  error  'x' is not defined  no-undef",
        '',
        '✖ 1 problem (1 error, 0 warnings)',
        'eslint -f json: 2 files linted, 1 without problems',
        '',
      ].join('\n'),
    );
  });

  it('jest-json prints failing suites and the totals, and repeats nothing jest printed as text beside it', () => {
    const report = {
      numFailedTestSuites: 1,
      numPassedTestSuites: 1,
      numPendingTestSuites: 0,
      numTotalTestSuites: 2,
      numFailedTests: 1,
      numPassedTests: 3,
      numPendingTests: 0,
      numTotalTests: 4,
      testResults: [
        {
          name: '/p/src/cart.test.js',
          status: 'failed',
          message: '  ● cart › total\n\n    Expected: 25\n',
          assertionResults: [],
        },
        { name: '/p/src/ok.test.js', status: 'passed', message: '', assertionResults: [] },
      ],
    };
    const json = JSON.stringify(report);
    expect(decode('jest-json', `${json}\n`)).toBe(
      [
        'FAIL /p/src/cart.test.js',
        '  ● cart › total',
        '',
        '    Expected: 25',
        'Test Suites: 1 failed, 1 passed, 2 total',
        'Tests: 1 failed, 3 passed, 4 total',
        '',
      ].join('\n'),
    );
    const beside = `FAIL src/cart.test.js\n  ● cart › total\nTests:       1 failed, 3 passed, 4 total\n${json}\n`;
    expect(decode('jest-json', beside)).toBe(
      'FAIL src/cart.test.js\n  ● cart › total\nTests:       1 failed, 3 passed, 4 total\n',
    );
  });

  it('a JSON stream keeps its failure lines when what the tool prints of them is kept, not the JSON lines', () => {
    expect(failureView(GO)).toContain('    calc_test.go:19: Add(2, 2) = 4, want 5');
    const rewrite = decode('go-test-json', GO);
    expect(missingFailureLines(GO, rewrite)).toEqual([]);
    expect(missingFailureLines(GO, 'go test -json: 2 passed, 2 failed, 0 skipped\n')).toContain(
      '--- FAIL: TestTable (0.00s)',
    );
  });
});
