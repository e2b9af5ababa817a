/**
 * The human-readable `cg stats`: one line saying what the figures are measured against, the totals
 * against what the agent host would have shown beside the raw ones (cg's own model calls, when it
 * made any, subtracted before the net and listed by component), then by component and by
 * command, then a line each for filters flagged too aggressive and for commands no filter handled
 * (`cg discover` lists those); or (--graph) daily saved tokens as a bar chart. Pure text in, text
 * out: colour comes in as a Paint (identity functions when colour is off), so this file never loads
 * chalk. Estimated figures are printed on their own line, marked ≈, never added into the exact ones.
 */
import { label as recallLabel, TOO_AGGRESSIVE_PCT } from './recall.js';
import { type ComponentRow, dayLabel, pct, type StatsReport } from './report.js';

export interface Paint {
  bold(s: string): string;
  dim(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

const id = (s: string) => s;
export const PLAIN: Paint = { bold: id, dim: id, green: id, yellow: id, cyan: id };

export const num = (n: number) => Math.round(n).toLocaleString('en-US');
export const pctText = (p: number | null) => (p === null ? '–' : `${p.toFixed(1)}%`);

export function bytesText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

/** What the report covers: `all time`, or since when, and the session. */
export function scope(r: StatsReport): string {
  const parts = [r.filter.since ? `since ${r.filter.since.replace(/\.000Z$/, 'Z')}` : 'all time'];
  if (r.filter.session !== null) parts.push(`session ${r.filter.session}`);
  return parts.join(' · ');
}

/** Longest first cell of a table row: a long command must not push the figures off the screen. */
const FIRST_COLUMN = 30;

/** Columns: first left-aligned, the rest right-aligned; indented two, each line clipped to fit. */
function table(p: Paint, header: string[], cells: string[][]): string[] {
  const rows = cells.map(([first, ...rest]) => [clip(first!, FIRST_COLUMN), ...rest]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    clip(`  ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')}`);
  return [p.bold(line(header)), ...rows.map(line)];
}

/** One screen: what the default `cg stats` view fits in, lines of at most SCREEN_COLUMNS. */
export const SCREEN_LINES = 24;
export const SCREEN_COLUMNS = 80;

export interface TableOptions {
  /** Rows per table; undefined: as many as fit one screen. */
  top?: number;
}

/**
 * The default view. Without --top it fits one screen (SCREEN_LINES × SCREEN_COLUMNS): the summary
 * always, then the two tables share the lines left, then one line each for filters flagged too
 * aggressive and for commands no filter handled.
 */
export function renderTable(r: StatsReport, p: Paint, opts: TableOptions = {}): string {
  const out: string[] = [];
  const plural = (n: number, w: string) => `${num(n)} ${w}${n === 1 ? '' : 's'}`;
  const rewritten = r.runs > 0 ? ` · ${num(r.outputs.rewritten)} rewritten` : '';
  out.push(`${p.bold('cg stats')} · ${scope(r)} · ${plural(r.runs, 'run')}${rewritten}`);
  if (r.runs === 0 && r.expand.requests === 0 && r.requests.count === 0) {
    out.push(p.dim(`nothing recorded yet in ${r.ledger.dir}`));
    return finish(out);
  }
  out.push(p.dim(r.capped.measuredAgainst));
  out.push(...summary(r, p));
  out.push(...notes(r, p));
  const tail = tailLines(r, p);
  const avail = opts.top === undefined ? SCREEN_LINES - out.length - tail.length : Number.POSITIVE_INFINITY;
  const comps = componentRows(r);
  const cmds = r.commands;
  const [nComp, nCmd] = share(avail, comps.length, cmds.length, opts.top);
  if (nComp > 0) {
    out.push('');
    out.push(
      ...table(
        p,
        ['by component (raw)', 'rewrites', 'skips', 'fails', 'saved', '%', 'recall'],
        comps
          .slice(0, nComp)
          .map((c) => [
            c.component,
            num(c.rewrites),
            num(c.skips),
            num(c.fails),
            num(c.saved),
            pctText(c.savedPct),
            pctText(c.recall),
          ]),
      ),
    );
  }
  if (nCmd > 0) {
    out.push('');
    out.push(
      ...table(
        p,
        ['by command', 'outputs', 'saved', '%', 'raw saved'],
        cmds
          .slice(0, nCmd)
          .map((c) => [
            c.command,
            num(c.outputs),
            num(c.cappedSaved),
            pctText(c.cappedSavedPct),
            num(c.saved),
          ]),
      ),
    );
  }
  out.push(...tail);
  return finish(out);
}

/** The totals, vs host beside raw (one column when no run named a host). */
function summary(r: StatsReport, p: Paint): string[] {
  const t = r.tokens;
  const c = r.capped;
  const twoColumns = r.hosts.some((h) => h.host !== null && h.outputs > 0);
  const m = r.model;
  const values = [t.in, t.out, t.saved, t.returned, t.model, t.net, c.in, c.out, c.saved, c.net].map(num);
  const w = Math.max(7, ...values.map((v) => v.length));
  const cell = (n: number, pc?: number | null) =>
    `${num(n).padStart(w)} ${(pc === undefined ? '' : pctText(pc)).padStart(7)}`;
  type Row = [string, number, number | null | undefined, number, number | null | undefined, string];
  const given = `${num(r.expand.hits)}/${num(r.expand.requests)} keys found`;
  const rows: Row[] = [
    ['tokens in', c.in, undefined, t.in, undefined, ''],
    ['tokens out', c.out, undefined, t.out, undefined, 'with markers, hints'],
    ['saved', c.saved, c.savedPct, t.saved, t.savedPct, ''],
    ['given back', c.returned, undefined, t.returned, undefined, given],
  ];
  if (m.calls > 0) {
    const calls = `${num(m.calls)} call${m.calls === 1 ? '' : 's'}`;
    const counted = m.estimatedCalls > 0 ? `, ${num(m.estimatedCalls)} ≈ counted by cg` : '';
    rows.push(["cg's model", c.model, undefined, t.model, undefined, `${calls}${counted}`]);
  }
  rows.push(['net saved', c.net, c.netPct, t.net, t.netPct, '']);
  const head = twoColumns ? `${'vs host'.padStart(w)}${' '.repeat(10)}${'raw'.padStart(w)}` : '';
  const lines = twoColumns ? [p.dim(`${' '.repeat(14)}${head}`)] : [];
  for (const [label, hv, hp, rv, rp, note] of rows) {
    const host = cell(hv, hp);
    const values = twoColumns ? `${host}  ${cell(rv, rp)}` : host;
    const painted =
      label === 'net saved' ? p.bold(p.green(values)) : label === 'saved' ? p.green(values) : values;
    lines.push(clip(`  ${label.padEnd(12)}${painted}${note ? `  ${p.dim(note)}` : ''}`.trimEnd()));
  }
  return lines;
}

/** Lines about what is not in the figures: untouched outputs, estimates, pending and bad records. */
function notes(r: StatsReport, p: Paint): string[] {
  const out: string[] = [];
  if (r.outputs.untouched > 0) {
    out.push(
      p.dim(
        clip(
          `  untouched   ${num(r.outputs.untouched)} outputs (${bytesText(r.outputs.untouchedBytes)}) passed through as they were`,
        ),
      ),
    );
  }
  if (r.model.calls > 0) {
    const by = r.components
      .filter((c) => c.modelCalls > 0)
      .sort((a, b) => b.modelTokensIn + b.modelTokensOut - (a.modelTokensIn + a.modelTokensOut))
      .map((c) => `${c.component} ${num(c.modelCalls)}× ${num(c.modelTokensIn + c.modelTokensOut)}`)
      .join(', ');
    const { tokensIn, tokensOut } = r.model;
    out.push(p.dim(clip(`  model calls ${num(tokensIn)} in + ${num(tokensOut)} out: ${by}`)));
  }
  const e = r.estimated;
  if (e.outputs + e.events + e.expands > 0) {
    out.push(
      p.yellow(
        clip(
          `  estimated   ≈${num(e.tokensIn)} → ≈${num(e.tokensOut)} tokens in ${num(e.outputs)} outputs, ≈${num(e.tokensReturned)} back (bytes/4, not above)`,
        ),
      ),
    );
  }
  if (r.ledger.pendingLeft > 0) {
    out.push(
      p.yellow(
        clip(`  pending     ${num(r.ledger.pendingLeft)} runs still being counted elsewhere, not included`),
      ),
    );
  }
  if (r.ledger.pendingBad > 0 || r.ledger.badLines > 0) {
    out.push(
      p.yellow(
        clip(
          `  unreadable  ${num(r.ledger.badLines)} ledger lines, ${num(r.ledger.pendingBad)} pending records (in ${r.ledger.dir})`,
        ),
      ),
    );
  }
  return out;
}

/** One line each: filters whose markers come back too often, and commands no filter handled. */
function tailLines(r: StatsReport, p: Paint): string[] {
  const out: string[] = [];
  const aggressive = r.recall.filter((x) => x.tooAggressive);
  if (aggressive.length) {
    const list = aggressive
      .map((x) => `${recallLabel(x)} ${pctText(x.recallRate)} of ${num(x.markers)}`)
      .join(', ');
    out.push(p.yellow(clip(`too aggressive (markers back >${TOO_AGGRESSIVE_PCT}%): ${list}`)));
  }
  if (r.discover.rows.length) {
    const list = r.discover.rows.map((d) => `${d.command} ${num(d.runs)}×`).join(', ');
    out.push(p.dim(clip(`no filter: ${list}`, SCREEN_COLUMNS - 16) + ' · cg discover'));
  }
  return out;
}

interface ComponentView extends ComponentRow {
  recall: number | null;
}

/** Component rows with their recall (all of cmdfilter's filters together). */
function componentRows(r: StatsReport): ComponentView[] {
  const byComponent = new Map<string, { markers: number; recalled: number }>();
  for (const x of r.recall) {
    const c = byComponent.get(x.component) ?? { markers: 0, recalled: 0 };
    c.markers += x.markers;
    c.recalled += x.recalled;
    byComponent.set(x.component, c);
  }
  return r.components.map((c) => {
    const x = byComponent.get(c.component);
    return { ...c, recall: x && x.markers > 0 ? pct(x.recalled, x.markers) : null };
  });
}

/**
 * Rows for the two tables within `avail` lines (each table costs a blank and a header line): half
 * each, what one does not use goes to the other. An explicit top shows up to top rows of each.
 */
function share(avail: number, a: number, b: number, top: number | undefined): [number, number] {
  if (top !== undefined) return [Math.min(a, top), Math.min(b, top)];
  const room = (n: number) => (n > 0 ? 2 : 0);
  let left = avail - room(a) - room(b);
  if (left <= 0) return [Math.min(a, Math.max(0, avail - 2)), 0];
  const half = Math.ceil(left / 2);
  let na = Math.min(a, half);
  const nb = Math.min(b, left - na);
  left -= na + nb;
  na = Math.min(a, na + left);
  return [na, nb];
}

function finish(lines: string[]): string {
  return `${lines.join('\n')}\n`;
}

/** A line cut to `max` visible columns (colour codes do not count), with … where it was cut. */
export function clip(line: string, max = SCREEN_COLUMNS): string {
  const plain = stripAnsi(line);
  if ([...plain].length <= max) return line;
  return `${[...plain].slice(0, max - 1).join('')}…`;
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
  const after = r.tokens.model > 0 ? "cg expand and cg's own model calls" : 'cg expand';
  out.push(p.dim(`total saved ${num(r.tokens.saved)} tokens, net ${num(r.tokens.net)} after ${after}`));
  return `${out.join('\n')}\n`;
}

function parseDay(day: string): Date {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y!, m! - 1, d!);
}

function stripAnsi(s: string): string {
  return s.replace(/\x1b\[[0-9;]*m/g, '');
}

/**
 * `cg discover`: the commands no filter handled, by tokens — the filters worth writing next. Rows
 * are counted per output; tokens of outputs nothing rewrote are estimated from bytes (≈).
 */
export function renderDiscover(r: StatsReport, p: Paint): string {
  const d = r.discover;
  const out = [`${p.bold('cg discover')} · ${scope(r)} · commands no filter handled, by tokens`];
  if (d.rows.length === 0) {
    out.push(
      p.dim(
        r.runs === 0
          ? `nothing recorded yet in ${r.ledger.dir}`
          : 'every command cg saw had a filter (or was too short to need one)',
      ),
    );
    return finish(out);
  }
  out.push(
    ...table(
      p,
      ['command', 'runs', 'tokens', 'bytes', 'generic cut'],
      d.rows.map((x) => [
        x.command,
        num(x.runs),
        `${x.estimated > 0 ? '≈' : ''}${num(x.tokens)}`,
        bytesText(x.bytes),
        x.rewritten > 0 ? `${num(x.rewritten)}× ${pctText(pct(x.saved, x.tokens))}` : '–',
      ]),
    ),
  );
  const shown = d.rows.length < d.commands ? ` (top ${d.rows.length} of ${num(d.commands)})` : '';
  out.push(p.dim(clip(`${num(d.runs)} outputs, ${num(d.tokens)} tokens${shown}; ≈ estimated from bytes`)));
  out.push(p.dim('a filter for one: cg filters show NAME for an example, README "Filters" for the format'));
  return finish(out);
}
