/**
 * `cg filters list`: every usable filter in selection order — name, priority, source, description —
 * then the filters a same-named one hides, and the project files left out as untrusted. On a
 * terminal (`columns` known) each line fits its width: the description is cut with `…`, or moves
 * to a line of its own when the other columns leave it too little room; piped, or with --json, the
 * text is whole. `--names` prints the names alone, one a line (for scripts and shell completion).
 * The JSON keys are only ever added, never renamed.
 */
import type { LoadedFilters } from '../dsl/registry.js';
import { type SkippedFiles, skippedProjectFilters } from './filters-skipped.js';

export interface ListOptions {
  json?: boolean;
  names?: boolean;
  /** The terminal's width, when stdout is one. */
  columns?: number;
  cwd: string;
}

/** Below this many columns a description is put on its own line rather than cut to nothing. */
const MIN_DESCRIPTION = 24;

export function listFilters(l: LoadedFilters, o: ListOptions): string {
  const skipped = skippedProjectFilters(l.project, o.cwd);
  if (o.json) return `${JSON.stringify(listJson(l, skipped), null, 2)}\n`;
  if (o.names) return l.filters.map((f) => `${f.name}\n`).join('');
  let text = l.filters.length === 0 ? 'no filters\n' : table(l, o.columns);
  for (const v of l.overridden) {
    text += `(${v.filter.name} from ${v.filter.source} is overridden by ${v.by.source})\n`;
  }
  if (skipped) text += `(not listed: ${skipped.files.join(', ')}: ${skipped.reason}; cg trust uses them)\n`;
  return text;
}

function table(l: LoadedFilters, columns: number | undefined): string {
  const rows = [
    ['NAME', 'PRIORITY', 'SOURCE', 'DESCRIPTION'],
    ...l.filters.map((f) => [f.name, String(f.priority), `${f.sourceKind}: ${f.source}`, f.description]),
  ];
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lead = widths.reduce((n, w) => n + w + 2, 0);
  const room = columns === undefined ? Number.POSITIVE_INFINITY : columns - lead;
  let text = '';
  for (const r of rows) {
    const head = r
      .slice(0, 3)
      .map((c, j) => c.padEnd(widths[j]!))
      .join('  ');
    const description = r[3]!;
    if (columns === undefined || room >= MIN_DESCRIPTION)
      text += `${head}  ${cut(description, room)}`.trimEnd();
    else text += `${head.trimEnd()}\n    ${cut(description, columns - 4)}`;
    text += '\n';
  }
  return text;
}

/** The text cut to `room` characters, `…` marking the cut. */
function cut(text: string, room: number): string {
  const chars = [...text];
  return chars.length <= room ? text : `${chars.slice(0, Math.max(0, room - 1)).join('')}…`;
}

function listJson(l: LoadedFilters, skipped: SkippedFiles | undefined) {
  return {
    filters: l.filters.map((f) => ({
      name: f.name,
      priority: f.priority,
      sourceKind: f.sourceKind,
      source: f.source,
      description: f.description,
      tests: f.tests.length,
    })),
    overridden: l.overridden.map((v) => ({
      name: v.filter.name,
      source: v.filter.source,
      by: v.by.source,
    })),
    skipped: skipped ?? null,
  };
}
