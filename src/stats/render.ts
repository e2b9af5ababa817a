/**
 * The human-readable `cg stats`: a summary, then tables by component, by command and of commands no
 * filter matched; or (--graph) daily saved tokens as a bar chart. Pure text in, text out: colour
 * comes in as a Paint (identity functions when colour is off), so this file never loads chalk.
 * Estimated figures are printed on their own line, marked ≈, never added into the exact ones.
 */
import { dayLabel, type StatsReport } from './report.js';

export interface Paint {
  bold(s: string): string;
  dim(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

const id = (s: string) => s;
export const PLAIN: Paint = { bold: id, dim: id, green: id, yellow: id, cyan: id };

const num = (n: number) => Math.round(n).toLocaleString('en-US');
const pctText = (p: number | null) => (p === null ? '–' : `${p.toFixed(1)}%`);

export function bytesText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

function scope(r: StatsReport): string {
  const parts = [r.filter.since ? `since ${r.filter.since.replace(/\.000Z$/, 'Z')}` : 'all time'];
  if (r.filter.session !== null) parts.push(`session ${r.filter.session}`);
  return parts.join(' · ');
}

/** Columns: first left-aligned, the rest right-aligned. */
function table(p: Paint, header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [p.bold(line(header)), ...rows.map(line)];
}

export function renderTable(r: StatsReport, p: Paint, top: number): string {
  const out: string[] = [];
  out.push(`${p.bold('cg stats')} · ${scope(r)} · ${num(r.runs)} run${r.runs === 1 ? '' : 's'}`);
  if (r.runs === 0 && r.expand.requests === 0) {
    out.push(p.dim(`nothing recorded yet in ${r.ledger.dir}`));
    return `${out.join('\n')}\n`;
  }
  const t = r.tokens;
  const rows: [string, string, string][] = [
    ['tokens in', num(t.in), `${num(r.outputs.rewritten)} outputs rewritten`],
    ['tokens out', num(t.out), 'as written, markers and hints included'],
    ['saved', p.green(num(t.saved)), pctText(t.savedPct)],
    [
      'given back',
      num(t.returned),
      `by cg expand: ${num(r.expand.hits)} of ${num(r.expand.requests)} keys found (hit rate ${pctText(r.expand.hitRate)})`,
    ],
    ['net saved', p.bold(p.green(num(t.net))), pctText(t.netPct)],
  ];
  const w = Math.max(...rows.map((row) => stripAnsi(row[1]).length));
  for (const [label, value, note] of rows) {
    out.push(`  ${label.padEnd(12)}${' '.repeat(w - stripAnsi(value).length)}${value}  ${p.dim(note)}`);
  }
  if (r.outputs.untouched > 0) {
    out.push(
      p.dim(
        `  untouched   ${num(r.outputs.untouched)} outputs, ${bytesText(r.outputs.untouchedBytes)}, passed through as they were (not in the token figures)`,
      ),
    );
  }
  const e = r.estimated;
  if (e.outputs + e.events + e.expands > 0) {
    out.push(
      p.yellow(
        `  estimated   ≈${num(e.tokensIn)} → ≈${num(e.tokensOut)} tokens in ${num(e.outputs)} outputs, ≈${num(e.tokensReturned)} given back in ${num(e.expands)} expands: too large to count, bytes/4, not in the figures above`,
      ),
    );
  }
  if (r.ledger.pendingLeft > 0) {
    out.push(
      p.yellow(`  pending     ${num(r.ledger.pendingLeft)} runs still being counted elsewhere, not included`),
    );
  }
  if (r.ledger.pendingBad > 0 || r.ledger.badLines > 0) {
    out.push(
      p.yellow(
        `  unreadable  ${num(r.ledger.badLines)} ledger lines, ${num(r.ledger.pendingBad)} pending records (in ${r.ledger.dir})`,
      ),
    );
  }

  if (r.components.length) {
    out.push('', p.cyan('by component'));
    out.push(
      ...table(
        p,
        ['component', 'rewrites', 'skips', 'reverts', 'fails', 'tokens in', 'tokens out', 'saved', '%'],
        r.components.map((c) => [
          c.component,
          num(c.rewrites),
          num(c.skips),
          num(c.reverts),
          num(c.fails),
          num(c.tokensIn),
          num(c.tokensOut),
          num(c.saved),
          pctText(c.savedPct),
        ]),
      ).map((l) => `  ${l}`),
    );
  }
  if (r.commands.length) {
    out.push('', p.cyan(`by command (top ${top})`));
    out.push(
      ...table(
        p,
        ['command', 'outputs', 'tokens in', 'tokens out', 'saved', '%'],
        r.commands.map((c) => [
          c.command,
          num(c.outputs),
          num(c.tokensIn),
          num(c.tokensOut),
          num(c.saved),
          pctText(c.savedPct),
        ]),
      ).map((l) => `  ${l}`),
    );
  }
  if (r.unmatched.length) {
    out.push('', p.cyan(`no filter matched (top ${top}): where a new filter would pay`));
    out.push(
      ...table(
        p,
        ['command', 'runs', 'bytes'],
        r.unmatched.map((u) => [u.command, num(u.count), bytesText(u.bytes)]),
      ).map((l) => `  ${l}`),
    );
  }
  return `${out.join('\n')}\n`;
}

const MAX_DAYS = 90;
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/** Daily saved tokens, one bar per local day from the first active day (or --since) to today. */
export function renderGraph(r: StatsReport, p: Paint, columns: number, now = Date.now()): string {
  const out = [`${p.bold('cg stats --graph')} · ${scope(r)} · saved tokens per day`];
  const byDay = new Map(r.daily.map((d) => [d.day, d.saved]));
  const first = r.filter.since ? new Date(r.filter.since) : r.daily[0] ? parseDay(r.daily[0].day) : undefined;
  if (!first) {
    out.push(p.dim(`nothing recorded yet in ${r.ledger.dir}`));
    return `${out.join('\n')}\n`;
  }
  const days: string[] = [];
  const today = new Date(now);
  for (
    let d = new Date(first.getFullYear(), first.getMonth(), first.getDate());
    d <= today;
    d = new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1)
  ) {
    days.push(dayLabel(d));
  }
  const shown = days.slice(-MAX_DAYS);
  if (shown.length < days.length) out.push(p.dim(`(last ${MAX_DAYS} days of ${days.length})`));
  const values = shown.map((d) => Math.max(0, byDay.get(d) ?? 0));
  const max = Math.max(0, ...values);
  const valueWidth = Math.max(...values.map((v) => num(v).length));
  const barWidth = Math.max(10, columns - 10 - valueWidth - 4);
  shown.forEach((day, i) => {
    const v = values[i]!;
    const eighths = max > 0 ? Math.round((v / max) * barWidth * 8) : 0;
    const bar = '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8];
    out.push(`${p.dim(day)}  ${p.green(bar.padEnd(barWidth))}  ${num(v).padStart(valueWidth)}`);
  });
  out.push(p.dim(`total saved ${num(r.tokens.saved)} tokens, net ${num(r.tokens.net)} after cg expand`));
  return `${out.join('\n')}\n`;
}

function parseDay(day: string): Date {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y!, m! - 1, d!);
}

function stripAnsi(s: string): string {
  return s.replace(/\x1b\[[0-9;]*m/g, '');
}
