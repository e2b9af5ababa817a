/**
 * jest --json (and vitest's jest-compatible --reporter=json: one report document on one line) →
 * what jest prints: `FAIL path` for each failing suite with its rendered failure message (every
 * `● suite › test` block with expected/received, code frame and `at file:line:col`), then jest's
 * `Test Suites:` and `Tests:` totals; passing suites are only counted there. A failing test whose
 * suite carries no rendered message gets its own failure messages under `● full name`. What jest
 * also printed as text beside the report (its stderr, merged) is not repeated: a suite it named FAIL,
 * its totals.
 */
import { arrayAt } from '../../json/payload.js';
import type { Doc, Line } from '../stages.js';
import { documentOf, type Json, num, str, writtenLines } from './json-lines.js';

function isReport(v: unknown): v is Json {
  return arrayAt(v, 'testResults') !== undefined;
}

function totals(label: string, failed: number, passed: number, pending: number, total: number): string {
  const parts = [];
  if (failed > 0) parts.push(`${failed} failed`);
  if (pending > 0) parts.push(`${pending} skipped`);
  parts.push(`${passed} passed`, `${total} total`);
  return `${label} ${parts.join(', ')}`;
}

function suiteLines(suite: Json, doc: Doc): Line[] {
  const out: Line[] = [{ text: `FAIL ${str(suite.name) ?? '?'}`, eol: doc.nl, src: 0 }];
  const message = str(suite.message) ?? '';
  if (message.trim() !== '') return [...out, ...writtenLines(message.replace(/\n+$/, ''), doc)];
  const tests = Array.isArray(suite.assertionResults) ? (suite.assertionResults as Json[]) : [];
  for (const t of tests) {
    if (t.status !== 'failed') continue;
    out.push({ text: `  ● ${str(t.fullName) ?? str(t.title) ?? '?'}`, eol: doc.nl, src: 0 });
    const failures = Array.isArray(t.failureMessages) ? (t.failureMessages as unknown[]) : [];
    for (const f of failures) if (typeof f === 'string') out.push(...writtenLines(f, doc));
  }
  return out;
}

/**
 * What jest already printed as text beside the report (`jest --json` writes its usual report to
 * stderr, which `cg run` merges): the suites it named FAIL, and whether it printed its totals.
 */
function printed(doc: Doc): { failed: string[]; totals: boolean } {
  const failed: string[] = [];
  let totals = false;
  for (const l of doc.lines) {
    const m = /^FAIL (\S+)/.exec(l.text);
    if (m) failed.push(m[1]!);
    else if (/^Tests:\s/.test(l.text)) totals = true;
  }
  return { failed, totals };
}

export function decodeJestJson(doc: Doc): Doc {
  const out: Line[] = [];
  let decoded = false;
  const shown = printed(doc);
  const alreadyShown = (name: string) => shown.failed.some((f) => name === f || name.endsWith(`/${f}`));
  for (const l of doc.lines) {
    const report = l.text.trimStart().startsWith('{') ? documentOf(l.text) : undefined;
    if (!isReport(report)) {
      out.push(l);
      continue;
    }
    decoded = true;
    for (const suite of report.testResults as Json[]) {
      const failing = suite.status === 'failed' || (str(suite.message) ?? '').trim() !== '';
      if (failing && !alreadyShown(str(suite.name) ?? '')) out.push(...suiteLines(suite, doc));
    }
    if (shown.totals) continue;
    const n = (k: string) => num(report[k]) ?? 0;
    const write = (text: string) => out.push({ text, eol: doc.nl, src: 0 });
    write(
      totals(
        'Test Suites:',
        n('numFailedTestSuites'),
        n('numPassedTestSuites'),
        n('numPendingTestSuites'),
        n('numTotalTestSuites'),
      ),
    );
    write(
      totals('Tests:', n('numFailedTests'), n('numPassedTests'), n('numPendingTests'), n('numTotalTests')),
    );
  }
  return decoded ? { ...doc, lines: out } : doc;
}
