/**
 * cargo --message-format=json (build, check, clippy, test's compile step) → what plain cargo
 * prints: every compiler message as rustc renders it (`warning: unused variable` with its `-->`
 * location and code frame, errors, the `N warnings emitted` notes), any text line among the events
 * (the test harness's output, cargo's own `error: could not compile`); dropped are the
 * compiler-artifact, build-script-executed and build-finished events, counted on a last line:
 * `cargo --message-format=json: 6 crates compiled, 3 warnings, 1 error; build failed`.
 */
import type { Doc, Line } from '../stages.js';
import { type Json, objectOf, plural, str, writtenLines } from './json-lines.js';

const REASONS = new Set(['compiler-message', 'compiler-artifact', 'build-script-executed', 'build-finished']);

export function decodeCargoJson(doc: Doc): Doc {
  const out: Line[] = [];
  const tally = {
    artifacts: 0,
    warnings: 0,
    errors: 0,
    finished: undefined as boolean | undefined,
    events: 0,
  };
  for (const l of doc.lines) {
    const e = objectOf(l.text);
    const reason = e ? str(e.reason) : undefined;
    if (!e || reason === undefined || !REASONS.has(reason)) {
      out.push(l);
      continue;
    }
    tally.events++;
    if (reason === 'compiler-artifact') tally.artifacts++;
    else if (reason === 'build-finished') tally.finished = e.success === true;
    else if (reason === 'compiler-message') {
      const message = (e.message ?? {}) as Json;
      const level = str(message.level);
      if (level === 'warning') tally.warnings++;
      else if (level === 'error') tally.errors++;
      const rendered = str(message.rendered) ?? str(message.message);
      if (rendered !== undefined) out.push(...writtenLines(rendered.replace(/\n$/, ''), doc));
    }
  }
  if (tally.events === 0) return doc;
  const parts = [
    `${plural(tally.artifacts, 'crate')} compiled`,
    plural(tally.warnings, 'warning'),
    plural(tally.errors, 'error'),
  ];
  const verdict = tally.finished === undefined ? '' : tally.finished ? '; build finished' : '; build failed';
  out.push({ text: `cargo --message-format=json: ${parts.join(', ')}${verdict}`, eol: doc.nl, src: 0 });
  return { ...doc, lines: out };
}
