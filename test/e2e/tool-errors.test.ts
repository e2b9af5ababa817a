/**
 * Tool errors through the CLI (DESIGN §1.5): Claude Code flags every failing Bash run is_error, and
 * Codex writes `Exit code: N` into the text instead. Either way a superseded failing run is folded
 * by failed_run, the newest run and short errors reach the model verbatim, and a large failing run
 * is only shortened by a runner filter that keeps every failure line.
 */
import { describe, expect, it } from 'vitest';
import { readTranscript } from '../../src/input/read.js';
import { tempDir } from '../helpers.js';
import { cg } from './run-cg.js';

const MARKER = /<<cg:([0-9a-f]{16})>>/;

/** A pytest -v run: `passed` PASSED lines, then the failures section and the summary. */
function pytestRun(passed: number, failures: string[]): string {
  const lines = [
    '============================= test session starts ==============================',
    'platform linux -- Python 3.11.7, pytest-9.0.3, pluggy-1.6.0 -- /usr/bin/python3',
    'rootdir: /repo',
    `collecting ... collected ${passed + failures.length} items`,
    '',
    ...Array.from(
      { length: passed },
      (_, i) => `tests/test_api.py::test_case_${i} PASSED${' '.repeat(20)}[ ${i % 100}%]`,
    ),
    ...failures.map((f) => `tests/test_api.py::${f} FAILED`),
    '',
    '=================================== FAILURES ===================================',
    ...failures.flatMap((f) => [
      `_________________________________ ${f} _________________________________`,
      '',
      `    def ${f}():`,
      '>       assert add(1, 1) == 3',
      'E       assert 2 == 3',
      '',
      'tests/test_api.py:12: AssertionError',
    ]),
    '=========================== short test summary info ============================',
    ...failures.map((f) => `FAILED tests/test_api.py::${f} - assert 2 == 3`),
    `========================= ${failures.length} failed, ${passed} passed in 0.52s =========================`,
  ];
  return `${lines.join('\n')}\n`;
}

/** A large failing run (over 2,000 bytes), then a short one: the newest, and short. */
const firstRun = `Exit code 1\n${pytestRun(40, ['test_add', 'test_sub', 'test_mul'])}`;
const lastRun = `Exit code 1\n${pytestRun(6, ['test_mul'])}`;

/** A Claude Code request body: Bash pytest fails, the agent edits, pytest fails again (newest). */
function claudeBody(results: string[]): string {
  const messages: unknown[] = [{ role: 'user', content: 'make the tests pass' }];
  results.forEach((text, i) => {
    messages.push({
      role: 'assistant',
      content: [
        { type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: { command: 'python -m pytest -v' } },
      ],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, is_error: true, content: text }],
    });
  });
  return JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages });
}

/** The same session as Codex sends it: Responses items, the exit status only in the text. */
function codexBody(results: string[]): string {
  const input: unknown[] = [{ role: 'user', content: [{ type: 'input_text', text: 'make the tests pass' }] }];
  results.forEach((text, i) => {
    const output = `Exit code: 1\nWall time: 0.6 seconds\nOutput:\n${text.replace(/^Exit code 1\n/, '')}`;
    input.push({
      type: 'function_call',
      call_id: `call_${i}`,
      name: 'shell',
      arguments: JSON.stringify({ command: ['bash', '-lc', 'python -m pytest -v'] }),
    });
    input.push({ type: 'function_call_output', call_id: `call_${i}`, output });
  });
  return JSON.stringify({ model: 'gpt-5-codex', input });
}

function expectExpands(text: string, original: string, storeDir: string) {
  const key = MARKER.exec(text)?.[1];
  expect(key).toBeDefined();
  const back = cg(['expand', key!], { storeDir });
  expect(back.code).toBe(0);
  expect(back.out).toBe(original);
}

describe('tool errors in a Claude Code session (is_error results)', () => {
  it('folds the superseded failing pytest run and keeps the newest one verbatim', () => {
    const storeDir = tempDir();
    const body = claudeBody([firstRun, lastRun]);
    const r = cg([], { input: body, storeDir });
    expect(r.code).toBe(0);
    const [first, last] = readTranscript(r.out, 'anthropic', {}).outputs;
    expect(first!.text).toMatch(/^\[superseded by a later run\] <<cg:[0-9a-f]{16}>>/);
    expectExpands(first!.text, firstRun, storeDir);
    expect(last!.text).toBe(lastRun);
  });

  it('shortens a large failing run only with a filter that keeps every failure line', () => {
    const storeDir = tempDir();
    const huge = `Exit code 1\n${pytestRun(400, ['test_add', 'test_mul'])}`;
    const r = cg([], { input: claudeBody([huge]), storeDir });
    expect(r.code).toBe(0);
    const [only] = readTranscript(r.out, 'anthropic', {}).outputs;
    expect(only!.text.length).toBeLessThan(huge.length / 4);
    for (const line of huge.split('\n').filter((l) => /FAILED|Error|assert|failed/.test(l)))
      expect(only!.text).toContain(line);
    expectExpands(only!.text, huge, storeDir);
  });

  it('keeps a short error verbatim even where a filter would shorten it', () => {
    const short = `Exit code 1\n${pytestRun(3, ['test_add'])}`;
    const r = cg(['--components', 'cmdfilter'], { input: claudeBody([short]) });
    expect(readTranscript(r.out, 'anthropic', {}).outputs[0]!.text).toBe(short);
  });
});

describe('tool errors in a Codex session (exit code in the text)', () => {
  it('infers the errors, folds the superseded run and keeps the newest one verbatim', () => {
    const storeDir = tempDir();
    const body = codexBody([firstRun, lastRun]);
    const t = readTranscript(body, 'responses', {});
    expect(t.outputs.map((o) => o.isError)).toEqual([true, true]);
    const r = cg([], { input: body, storeDir });
    expect(r.code).toBe(0);
    const [first, last] = readTranscript(r.out, 'responses', {}).outputs;
    expect(first!.text).toMatch(/^\[superseded by a later run\] <<cg:/);
    expectExpands(first!.text, t.outputs[0]!.text, storeDir);
    expect(last!.text).toBe(t.outputs[1]!.text);
  });

  it('keeps the newest short failing run verbatim where a filter would have shortened it', () => {
    const body = codexBody([lastRun]);
    const r = cg(['--components', 'cmdfilter'], { input: body });
    expect(readTranscript(r.out, 'responses', {}).outputs[0]!.text).toBe(
      readTranscript(body, 'responses', {}).outputs[0]!.text,
    );
  });
});
