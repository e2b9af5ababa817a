/**
 * Failure lines: the lines of a test or build run that say what went wrong, which must reach the
 * agent verbatim (DESIGN §1.5). A line is one when it carries an error, assertion or refusal
 * signal or a warning count (FAILURE_SIGNALS, src/text/signals.ts: "FAILED a - AssertionError",
 * "Permission denied", "3 warnings"; never a mention that counts zero). Lines are compared after
 * ANSI codes and trailing spaces are removed; a line cut by truncate_lines_at (`prefix...`) still
 * counts as kept.
 *
 * A filter is proven to keep failure lines when its inline tests show it on failing output (some
 * test input has a failure line) and every test keeps every failure line of its input. Only such a
 * filter may shorten a large tool error; the pipeline checks the rewrite keeps them all, too.
 */
import { FAILURE_SIGNALS } from '../text/signals.js';
import { DECODERS } from './decoders/index.js';
import { splitLines, stripAnsiText } from './stages.js';
import type { CompiledFilter } from './types.js';

/** Whether a line is a failure line (src/text/signals.ts). */
export const hasFailureSignal = (line: string) => FAILURE_SIGNALS.has(line);

const normalise = (line: string) => stripAnsiText(line).trimEnd();

function linesOf(text: string): string[] {
  const lines = text.split('\n').map((l) => normalise(l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * The text a tool's JSON output stands for (decoders/: go test -json, cargo's, eslint's and jest's
 * reports as the plain tool prints them), or the text itself when no decoder reads it. The failure
 * lines of a JSON stream are those its tool would print — `--- FAIL: TestX` and the t.Error line
 * under it — not the JSON lines that carry them, which stay behind the marker.
 */
export function failureView(text: string): string {
  let doc = splitLines(text);
  for (const decode of Object.values(DECODERS)) doc = decode(doc);
  return doc.lines.map((l) => l.text).join('\n');
}

/**
 * The failure lines of `input` that `output` does not keep, in input order (empty: all kept). A line
 * is kept when the output has it, or has it cut short as `prefix...`. A JSON stream's failure lines
 * are those of its plain view (failureView).
 */
export function missingFailureLines(input: string, output: string): string[] {
  const view = input.includes('{') || input.includes('[') ? failureView(input) : input;
  const failures = linesOf(view).filter(hasFailureSignal);
  if (failures.length === 0) return [];
  const kept = new Set<string>();
  const cut: string[] = [];
  for (const l of linesOf(output)) {
    kept.add(l);
    if (l.endsWith('...')) cut.push(l.slice(0, -3));
  }
  return failures.filter((l) => !kept.has(l) && !cut.some((prefix) => prefix !== '' && l.startsWith(prefix)));
}

const proven = new WeakMap<CompiledFilter, boolean>();

/** Whether the filter's inline tests prove it keeps every failure line (see the header). */
export function provenToKeepFailures(filter: CompiledFilter): boolean {
  let ok = proven.get(filter);
  if (ok === undefined) {
    ok = filter.tests.some((t) => linesOf(failureView(t.input)).some(hasFailureSignal));
    for (const t of ok ? filter.tests : []) {
      let actual: string;
      try {
        actual = filter.run(t.input).text;
      } catch {
        ok = false;
        break;
      }
      if (missingFailureLines(t.input, actual).length > 0) ok = false;
    }
    proven.set(filter, ok);
  }
  return ok;
}
