/**
 * Output shapes a filter may claim by (its `shape` field) when no command says what ran — `cmd | cg`
 * gets what `cg run -- cmd` gets. A shape is judged only on the selector's output lines (the first
 * few non-blank lines; a `$ command` line before them is skipped), and only on evidence there:
 * every one of them must have the shape, and there must be at least MIN_LINES of them. A wrong
 * guess costs more than a missed one (a linter's diagnostics grouped as grep hits would lose
 * messages), so each shape refuses the near misses of other families — test/unit/dsl/shapes.test.ts
 * holds real outputs of other families that no shape may claim.
 *
 *   grep-hits  `path:line:text` (grep -n, rg -n, git grep -n), `path-line-text` context lines and
 *              `--` separators; not compiler or linter diagnostics (`path:line:col: …`,
 *              `path:line: error: …`), which have filters of their own, nor a log line whose
 *              timestamp reads like one (`20171223-22:15:29:606|…`): the path holds a letter, and
 *              no clock time stands where `path:line:` would.
 *   path-list  one path a line (find, fd, git ls-files, grep -l, tar t): no spaces, no `:`, no
 *              URL; at least one holds a `/`; and they share their first segment or one names a
 *              file with an extension (so base64 or word lists are not paths).
 */

export const SHAPE_NAMES = ['grep-hits', 'path-list'] as const;
export type ShapeName = (typeof SHAPE_NAMES)[number];

const MIN_LINES = 2;

const HIT = /^[^\s:]*[A-Za-z][^\s:]*:\d+[:-]/;
/** A clock time where a hit's `file:line:` would be (`20171223-22:15:29`, `log.2017-05-16_13:53:08`). */
const CLOCK = /^[^\s:]*\d:\d\d:\d\d/;
const CONTEXT = /^[^\s:]+-\d+-/;
const DIAGNOSTIC = /^[^\s:]+:\d+:(?:\d+:\s|\s?(?:error|warning|note|info|hint|fatal(?: error)?|remark)\b)/i;
const PATH = /^[^\s:*?"<>|]+$/;
const EXTENSION = /\.[A-Za-z0-9]{1,10}$/;

/** The output lines of a selector (see registry.ts selectorFor). */
function outputLines(selector: string): string[] {
  const lines = selector.split('\n');
  if (lines[0]?.startsWith('$ ')) lines.shift();
  return lines.filter((l) => l.trim() !== '');
}

function grepHits(lines: readonly string[]): boolean {
  let hits = 0;
  for (const l of lines) {
    if (l === '--') continue;
    if (DIAGNOSTIC.test(l) || CLOCK.test(l)) return false;
    if (HIT.test(l)) hits++;
    else if (!CONTEXT.test(l)) return false;
  }
  return hits >= MIN_LINES;
}

const firstSegment = (p: string) => p.split('/')[0];

function pathList(lines: readonly string[]): boolean {
  if (lines.length < MIN_LINES) return false;
  let slash = false;
  let extension = false;
  const first = firstSegment(lines[0]!);
  let shared = true;
  for (const l of lines) {
    if (!PATH.test(l) || l.length > 1000) return false;
    if (l.includes('/')) slash = true;
    if (EXTENSION.test(l.slice(l.lastIndexOf('/') + 1))) extension = true;
    if (firstSegment(l) !== first) shared = false;
  }
  return slash && (extension || shared);
}

const DETECTORS: Record<ShapeName, (lines: readonly string[]) => boolean> = {
  'grep-hits': grepHits,
  'path-list': pathList,
};

/** Whether the selector's output lines have the shape. */
export function hasShape(shape: ShapeName, selector: string): boolean {
  return DETECTORS[shape](outputLines(selector));
}
