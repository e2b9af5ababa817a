import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ERROR_SIGNALS,
  FAILURE_SIGNALS,
  FOLD_SIGNALS,
  type SignalClass,
  Signals,
} from '../../../src/text/signals.js';
import { corpusPath, HAS_CORPUS, ROOT } from '../../helpers.js';

type Row = readonly [file: string, line: number, classes: readonly (SignalClass | 'logcat')[]];

/** Real lines (file, 1-based line number) and the classes each is in. */
const FIXTURES: readonly Row[] = [
  ['node-test-spec.txt', 4, ['error']],
  ['pyflakes-pygments.txt', 127, []],
  ['javac-errors.txt', 1, ['warning']],
  ['javac-errors.txt', 27, ['warning', 'warningSummary']],
  ['go-vet.txt', 3, ['refusal']],
  ['mvn-offline-build.txt', 27, ['error']],
  ['apt-term-log.txt', 1117, ['refusal']],
];
const CORPUS_ROWS: readonly Row[] = [
  ['commands/go_test/gotestsum_format_testname.out', 31, ['error']],
  ['commands/go_test/gotestsum_format_standard-verbose.out', 5, []],
  ['commands/lint/errorformat_cargo-check.in.txt', 1, ['warning']],
  ['logs/loghub/Linux_2k.log', 539, ['error', 'refusal']],
  ['logs/loghub/Linux_2k.log', 136, ['refusal']],
  ['logs/loghub/Mac_2k.log', 119, ['error']],
  ['logs/loghub/Mac_2k.log', 592, ['error', 'refusal']],
  ['logs/loghub/HPC_2k.log', 305, ['crash']],
  ['logs/loghub/Zookeeper_2k.log', 501, ['warning']],
  ['logs/loghub/OpenStack_2k.log', 1, []],
  ['logs/loghub/Android_2k.log', 20, ['logcat']],
  ['logs/loghub/Android_2k.log', 18, []],
];

const CLASSES: readonly SignalClass[] = [
  'error',
  'assertion',
  'crash',
  'refusal',
  'warning',
  'warningSummary',
];
const FOLD: readonly string[] = ['error', 'assertion', 'crash', 'refusal', 'warning', 'logcat'];
const FAILURE: readonly string[] = ['error', 'assertion', 'warningSummary'];
const ERROR: readonly string[] = ['error', 'assertion', 'crash', 'refusal', 'warningSummary'];

function lineOf(path: string, n: number): string {
  const line = readFileSync(path, 'utf8').split('\n')[n - 1];
  if (line === undefined) throw new Error(`${path} has no line ${n}`);
  return line;
}

function check(path: string, n: number, classes: readonly string[]): void {
  const line = lineOf(path, n);
  for (const c of CLASSES) expect(new Signals([c]).has(line), `${c}: ${line}`).toBe(classes.includes(c));
  expect(FOLD_SIGNALS.has(line), `fold: ${line}`).toBe(classes.some((c) => FOLD.includes(c)));
  expect(FAILURE_SIGNALS.has(line), `failure: ${line}`).toBe(classes.some((c) => FAILURE.includes(c)));
  expect(ERROR_SIGNALS.has(line), `error: ${line}`).toBe(classes.some((c) => ERROR.includes(c)));
}

describe('signal classes', () => {
  it.each(FIXTURES)('test/fixtures/unseen/%s line %i is in %j', (file, n, classes) =>
    check(join(ROOT, 'test/fixtures/unseen', file), n, classes),
  );

  it.skipIf(!HAS_CORPUS).each(CORPUS_ROWS)('corpus %s line %i is in %j', (file, n, classes) =>
    check(corpusPath(file), n, classes),
  );

  it('do not count a mention of zero, nor a word that merely contains a signal', () => {
    for (const l of [
      'Found 0 errors. Watching for file changes.',
      'no failures',
      'ok=3 changed=1 failed=0',
      'build finished without warnings',
      '0 warnings',
      'terrors of mirrors',
      'Collecting exceptiongroup>=1.0.0',
      'stderr: redirected',
    ]) {
      expect(FOLD_SIGNALS.has(l), l).toBe(false);
      expect(FAILURE_SIGNALS.has(l), l).toBe(false);
      expect(ERROR_SIGNALS.has(l), l).toBe(false);
    }
  });

  it('count a word ending in Error or Exception in its own case, and npm ERR!', () => {
    for (const l of [
      'raise ValueError("x")',
      'java.lang.NullPointerException',
      'IOError: x',
      'npm ERR! code E404',
    ])
      expect(FAILURE_SIGNALS.has(l) && FOLD_SIGNALS.has(l), l).toBe(true);
    expect(FAILURE_SIGNALS.has('a terror of mirrors')).toBe(false);
  });

  it('say where the first signal that does not count zero starts', () => {
    expect(FAILURE_SIGNALS.firstAt('0 errors, then ValueError: bad')).toBe(20);
    expect(FAILURE_SIGNALS.firstAt('all good')).toBe(-1);
  });

  it('answer line by line through a cursor over the whole text as they answer each line', () => {
    const lines = ['ok', 'Found 0 errors', 'no failures, 2 errors', 'IOError: x', '', 'x failed=0', 'fine'];
    const text = lines.join('\n');
    const cursor = FAILURE_SIGNALS.cursor(text);
    let s = 0;
    for (const l of lines) {
      expect(cursor.within(s, s + l.length), l).toBe(FAILURE_SIGNALS.has(l));
      s += l.length + 1;
    }
  });
});
