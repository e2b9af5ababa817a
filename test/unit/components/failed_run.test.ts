import { describe, expect, it } from 'vitest';
import { type Candidate, MARKER_SLOT } from '../../../src/component.js';
import { failed_run, runOutcome } from '../../../src/components/failed_run.js';
import { isReadCommand } from '../../../src/shell/program.js';
import { candidate, context } from '../../helpers.js';

const ctx = context({ format: 'anthropic' });
const cases = (n: number, failEvery: number) =>
  Array.from(
    { length: n },
    (_, i) => `tests/test_m.py::test_${i} ${i % failEvery === 0 ? 'FAILED' : 'PASSED'}`,
  );

const pytestFail = [
  '============================= test session starts ==============================',
  ...cases(60, 7),
  '=========================== short test summary info ============================',
  'FAILED tests/test_m.py::test_0 - AssertionError: assert 1 == 2',
  '======================== 9 failed, 51 passed in 0.40s =========================',
].join('\n');
const pytestPass = [
  '============================= test session starts ==============================',
  ...cases(60, 1000).map((l) => l.replace('FAILED', 'PASSED')),
  '============================== 60 passed in 0.31s ==============================',
].join('\n');
const traceback = [
  'Traceback (most recent call last):',
  '  File "app.py", line 12, in <module>',
  '    main()',
  ...Array.from({ length: 60 }, (_, i) => `  File "lib/mod${i}.py", line ${i}, in f${i}`),
  'ValueError: bad input',
].join('\n');

const run = (id: string, text: string, command: string, extra: Partial<Candidate> = {}) =>
  candidate(text, { id, command, toolName: 'Bash', ...extra });

describe('failed_run', () => {
  it('supersedes an earlier failed run of the same command once it ran again', async () => {
    const outs = [
      run('a', pytestFail, 'pytest -q'),
      run('b', 'edited\n', 'sed -i s/1/2/ m.py'),
      run('c', pytestFail.replace('9 failed', '3 failed'), 'pytest  -q'),
      run('d', pytestPass, 'pytest -q'),
    ];
    const r = await failed_run.run(outs, failed_run.defaults, ctx);
    expect([...r.keys()]).toEqual(['c', 'a']);
    expect(r.get('a')).toMatchObject({ text: `[superseded by a later run] ${MARKER_SLOT}`, loss: 'whole' });
  });

  it('keeps the newest run, earlier passing runs, and runs of other commands', async () => {
    const outs = [
      run('a', pytestPass, 'pytest -q'),
      run('b', pytestFail, 'pytest -q tests/test_m.py'),
      run('c', pytestFail, 'pytest -q'),
    ];
    expect((await failed_run.run(outs, failed_run.defaults, ctx)).size).toBe(0);
  });

  it('never fires on a file read that contains a traceback in its text', async () => {
    // Claude Code's Read numbers every line, so "Traceback" is never at the start of one.
    const numbered = traceback
      .split('\n')
      .map((l, i) => `${String(i + 1).padStart(6)}→${l}`)
      .join('\n');
    const reads = [
      candidate(numbered, { id: 'r1', toolName: 'Read', path: '/repo/crash.log' }),
      candidate(traceback, { id: 'r2', toolName: 'Read', path: '/repo/crash.log' }),
      run('r3', traceback, 'cat /repo/crash.log'),
      run('r4', traceback, 'cd /repo && tail -n 80 crash.log'),
      run('r5', traceback, 'git show HEAD:crash.log'),
      candidate(numbered, { id: 'r6', toolName: 'Read', path: '/repo/crash.log' }),
      candidate(traceback, { id: 'r7', toolName: 'Read', path: '/repo/crash.log' }),
      run('r8', traceback, 'cat /repo/crash.log'),
      run('r9', traceback, 'cd /repo && tail -n 80 crash.log'),
      run('r10', traceback, 'git show HEAD:crash.log'),
      run('r11', traceback, 'sudo cat /repo/crash.log'),
      run('r12', traceback, 'sudo cat /repo/crash.log'),
    ];
    for (const o of reads) expect(runOutcome(o)).toBeUndefined();
    expect((await failed_run.run(reads, { min_tokens: 0 }, ctx)).size).toBe(0);
    // The same traceback from running the program is a failed run.
    expect(runOutcome(run('x', traceback, 'python app.py'))).toBe('failed');
  });

  it('recognises runs by line-anchored signals, and only "N passed" mid-line', () => {
    const r = (text: string) => runOutcome({ text, command: 'make check' });
    expect(r('test result: ok. 12 passed; 0 failed; 0 ignored')).toBe('passed');
    expect(r('test result: FAILED. 11 passed; 1 failed')).toBe('failed');
    expect(r('ok  \tgithub.com/x/y\t0.012s')).toBe('passed');
    expect(r('--- FAIL: TestX (0.00s)\nFAIL\tgithub.com/x/y\t0.01s')).toBe('failed');
    expect(r('panic: runtime error: index out of range')).toBe('failed');
    expect(r('npm ERR! code ELIFECYCLE')).toBe('failed');
    expect(r('[INFO] BUILD SUCCESS')).toBe('passed');
    expect(r('[ERROR] BUILD FAILURE')).toBe('failed');
    expect(r('BUILD SUCCESSFUL in 3s')).toBe('passed');
    expect(r('Tests:       1 failed, 2 passed, 3 total')).toBe('failed');
    expect(r('Finished in 1.5 seconds\n14 doctests, 65 tests, 0 failures')).toBe('passed');
    expect(r('5 tests, 4 failures')).toBe('failed');
    // Mid-line signals other than "N passed" do not make a run.
    expect(
      r('see the note: BUILD FAILURE happens when… and Traceback (most recent call last):'),
    ).toBeUndefined();
    expect(r('x = "FAILED"\nprint("panic: no")')).toBeUndefined();
  });

  it('knows reading commands from running ones', () => {
    expect(isReadCommand('cat a.py')).toBe(true);
    expect(isReadCommand('cd x && FOO=1 grep -n err log')).toBe(true);
    expect(isReadCommand('/usr/bin/head -50 out.txt')).toBe(true);
    expect(isReadCommand('git diff HEAD~1')).toBe(true);
    expect(isReadCommand('pytest -q | tail -20')).toBe(false);
    expect(isReadCommand('git commit -m x')).toBe(false);
  });

  it('leaves a run the gates keep, and a small failed run, alone', async () => {
    const outs = [
      run('a', pytestFail, 'pytest', { mayChange: false }),
      run('b', 'FAILED x\n1 failed', 'pytest'),
    ];
    outs.push(run('c', pytestPass, 'pytest'));
    expect((await failed_run.run(outs, failed_run.defaults, ctx)).size).toBe(0);
  });
});
