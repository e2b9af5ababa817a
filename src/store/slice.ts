/**
 * The slice of a stashed original an agent asks for: `--lines A-B` (1-based, inclusive; also A-, -B,
 * A) and `--grep REGEX` (matching lines as `N:line`, like grep -n, so the agent can cite them).
 * Shared by `cg expand` and the MCP tool cg_expand, which name the same options `lines` and `grep`.
 *
 * Grep patterns are RE2 (re2js, imported on first use): matching is linear in the line, so no
 * pattern — `(a+)+$` included — can stall a command or the MCP server. Look-around and
 * back-references are refused with a reason, like in filters. A bad range or pattern is a UsageError.
 */
import { unsupportedConstruct } from '../dsl/regex.js';
import { UsageError } from '../errors.js';
import { shownToken } from './marker.js';

export interface LineRange {
  from: number;
  /** Inclusive; Infinity for "A-". */
  to: number;
}

/** Whether one line (without its newline) matches. */
export type LineTest = (line: string) => boolean;

/** Parses A-B, A-, -B or A; `option` names it in the error (`--lines`, or `lines` over MCP). */
export function parseLineRange(spec: string, option = '--lines'): LineRange {
  const m = /^\s*(\d*)\s*(-?)\s*(\d*)\s*$/.exec(spec);
  if (!m || (!m[1] && !m[3]))
    throw new UsageError(`${option}: expected A-B, A-, -B or A (1-based), got ${shownToken(spec)}`);
  const from = m[1] ? Number(m[1]) : 1;
  const to = m[3] ? Number(m[3]) : m[2] ? Number.POSITIVE_INFINITY : from;
  if (from < 1 || to < from)
    throw new UsageError(`${option}: ${shownToken(spec)} is not a range of lines (1-based, A ≤ B)`);
  return { from, to };
}

/** Compiles a grep pattern with RE2; `option` names it in the error (`--grep`, or `grep`). */
export async function compileGrep(pattern: string, option = '--grep'): Promise<LineTest> {
  const bad = unsupportedConstruct(pattern);
  if (bad) {
    throw new UsageError(
      `${option}: ${shownToken(pattern)} uses ${bad}, which RE2 does not support ` +
        '(patterns match in linear time: no look-around, no back-references)',
    );
  }
  const { RE2JS } = await import('re2js');
  try {
    const re = RE2JS.compile(pattern);
    return (line) => re.test(line);
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).replace(/^error parsing regexp: /, '');
    throw new UsageError(`${option}: ${shownToken(pattern)} is not a valid RE2 regular expression: ${why}`);
  }
}

/** Lines of text; a trailing newline does not make an extra line. */
function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Why a range asks for nothing this text has — it starts past the last line — or undefined when it
 * fits (a range that runs past the end is cut there, like sed). An empty slice is never silent.
 */
export function rangeProblem(text: string, range: LineRange, option = '--lines'): string | undefined {
  const count = text === '' ? 0 : splitLines(text).length;
  if (range.from <= count) return undefined;
  const spec =
    range.to === range.from
      ? `${range.from}`
      : `${range.from}-${range.to === Number.POSITIVE_INFINITY ? '' : range.to}`;
  return `${option} ${spec}: the original has ${count} line${count === 1 ? '' : 's'}`;
}

/** The slice an agent asked for, or the whole text when it asked for none. */
export function sliceOriginal(text: string, range?: LineRange, grep?: LineTest): string {
  if (!range && !grep) return text;
  const lines = splitLines(text);
  const from = range?.from ?? 1;
  const to = Math.min(range?.to ?? lines.length, lines.length);
  const out: string[] = [];
  for (let n = from; n <= to; n++) {
    const line = lines[n - 1]!;
    if (!grep) out.push(line);
    else if (grep(line)) out.push(`${n}:${line}`);
  }
  return out.length ? `${out.join('\n')}\n` : '';
}
