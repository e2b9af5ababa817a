/**
 * go test -json → what plain `go test` prints: each failing test's output (its `--- FAIL:` line,
 * t.Error/t.Log lines with their file:line, panics and goroutine traces), every package's FAIL
 * lines, build errors (text lines among the events, or Go 1.24's build-output events) and any
 * output of a test that never got a verdict (a timeout, a crash); dropped are the run/pause/cont
 * events, `=== RUN` lines and everything of tests that passed or were skipped, the `PASS` line and
 * the `ok`/`[no test files]` lines of passing packages. A last line counts them:
 * `go test -json: 243 passed, 4 failed, 1 skipped; 3 of 5 packages ok`.
 */
import type { Doc, Line } from '../stages.js';
import { type Json, objectOf, plural, str, writtenLines } from './json-lines.js';

const NOISE =
  /^(?:=== (?:RUN|PAUSE|CONT|NAME)\s|\s*--- (?:PASS|SKIP): |PASS$|ok {2}\t|\? {3}\t|testing: warning: no tests to run$)/;

const keyOf = (e: Json) => `${str(e.Package) ?? str(e.ImportPath) ?? ''}\u0000${str(e.Test) ?? ''}`;

/** A failing test's lines: its `--- FAIL:` line first, then its output, then its failing subtests'. */
interface Block {
  header: Line[];
  lines: Line[];
  children: Block[];
}

const FAIL_HEADER = /^\s*--- FAIL: /;

export function decodeGoTestJson(doc: Doc): Doc {
  const events = doc.lines.map((l) => {
    const e = objectOf(l.text);
    return e && typeof e.Action === 'string' && (str(e.Package) ?? str(e.ImportPath)) !== undefined
      ? e
      : undefined;
  });
  if (!events.some(Boolean)) return doc;
  const verdicts = new Map<string, string>();
  const tally = { passed: 0, failed: 0, skipped: 0, packages: 0, ok: 0 };
  for (const e of events) {
    if (!e) continue;
    const action = e.Action as string;
    if (action !== 'pass' && action !== 'fail' && action !== 'skip') continue;
    verdicts.set(keyOf(e), action);
    if (e.Test === undefined) {
      tally.packages++;
      if (action !== 'fail') tally.ok++;
    } else if (action === 'pass') tally.passed++;
    else if (action === 'fail') tally.failed++;
    else tally.skipped++;
  }
  const out: Line[] = [];
  // Output of tests not yet decided, by test: go prints a failing test's block once it is decided,
  // its --- FAIL line first and its failing subtests after it.
  const pending = new Map<string, Block>();
  const blockOf = (key: string) => {
    let b = pending.get(key);
    if (!b) {
      b = { header: [], lines: [], children: [] };
      pending.set(key, b);
    }
    return b;
  };
  const emit = (b: Block) => {
    out.push(...b.header, ...b.lines);
    for (const c of b.children) emit(c);
  };
  const flushPackage = (pkg: string) => {
    for (const [key, b] of pending)
      if (key.startsWith(`${pkg}\u0000`)) {
        pending.delete(key);
        emit(b);
      }
  };
  doc.lines.forEach((l, i) => {
    const e = events[i];
    if (!e) {
      out.push(l);
      return;
    }
    const key = keyOf(e);
    const test = str(e.Test);
    if (e.Action === 'fail' && test !== undefined) {
      const b = blockOf(key);
      pending.delete(key);
      const slash = test.lastIndexOf('/');
      if (slash === -1) emit(b);
      else blockOf(`${key.slice(0, key.indexOf('\u0000'))}\u0000${test.slice(0, slash)}`).children.push(b);
      return;
    }
    if (e.Action !== 'output' && e.Action !== 'build-output') return;
    const output = str(e.Output);
    if (output === undefined) return;
    const verdict = verdicts.get(key);
    if (test !== undefined && (verdict === 'pass' || verdict === 'skip')) return;
    const lines = writtenLines(output, doc).filter((w) => !NOISE.test(w.text));
    if (test === undefined) {
      flushPackage(key.slice(0, key.indexOf('\u0000')));
      out.push(...lines);
      return;
    }
    const b = blockOf(key);
    for (const w of lines) (FAIL_HEADER.test(w.text) && b.header.length === 0 ? b.header : b.lines).push(w);
  });
  for (const b of pending.values()) emit(b);
  const counts = `${tally.passed} passed, ${tally.failed} failed, ${tally.skipped} skipped`;
  const pkgs = tally.packages > 0 ? `; ${tally.ok} of ${plural(tally.packages, 'package')} ok` : '';
  out.push({ text: `go test -json: ${counts}${pkgs}`, eol: doc.nl, src: 0 });
  return { ...doc, lines: out };
}
