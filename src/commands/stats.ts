/**
 * `cg stats`: settles pending records into exact counts, reads the ledger (filtered by --since and
 * --session) and prints the savings: a table, --json (keys listed in stats/report.ts, only ever
 * added), --graph, or --html FILE (one self-contained page, stats/html.ts; its modules load only
 * then, and FILE is checked before the ledger is read). --reset deletes the ledger and pending records and says what it removed.
 * Colour (chalk, loaded only when used) is on for a terminal, off with NO_COLOR or a pipe;
 * FORCE_COLOR turns it on anyway.
 */
import { rm } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { writeOut } from '../io.js';
import { observeEnv } from '../proxy/observe-dir.js';
import { buildReport, type ReportOptions } from '../stats/build.js';
import { removeLedgers } from '../stats/ledger.js';
import { type LedgerLocation, ledgerLocation } from '../stats/paths.js';
import { bytesText, type Paint, PLAIN, renderGraph, renderTable } from '../stats/render.js';
import { parseSince } from '../stats/since.js';

export interface StatsFlags {
  since?: string;
  session?: string;
  top?: string;
  json?: boolean;
  graph?: boolean;
  /** Write the report as one HTML page to this file (`-`: stdout). */
  html?: string;
  reset?: boolean;
  /** What `cg proxy --observe` would have saved (its own ledger), instead of what was saved. */
  observed?: boolean;
}

export const DEFAULT_TOP = 10;

export async function statsCommand(flags: StatsFlags, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const loc = ledgerLocation(flags.observed ? observeEnv(env) : env);
  if (flags.reset) {
    if (flags.since !== undefined || flags.session !== undefined || flags.html !== undefined) {
      throw new UsageError(
        'stats: --reset clears the whole ledger; it cannot be combined with --since, --session or --html',
      );
    }
    return reset(loc, !!flags.json);
  }
  if (flags.html !== undefined && (flags.json || flags.graph)) {
    throw new UsageError('stats: --html writes a page; it cannot be combined with --json or --graph');
  }
  const top = parseTop(flags.top);
  // The text view fits one screen unless --top asks for more rows; --json and --html list the top N.
  const since = flags.since !== undefined ? parseSince(flags.since) : undefined;
  const session = flags.session;

  const opts: ReportOptions = {
    top,
    ...(since !== undefined ? { since } : {}),
    ...(session !== undefined ? { session } : {}),
  };
  if (flags.html !== undefined) return writePage(flags.html, loc, opts);
  const report = await buildReport(loc, opts);
  if (flags.json) {
    await writeOut(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  }
  const paint = await paintFor(process.stdout, env);
  await writeOut(
    flags.graph
      ? renderGraph(report, paint, process.stdout.columns ?? 80)
      : renderTable(report, paint, flags.top === undefined ? {} : { top }),
  );
  return 0;
}

/** --html: FILE is checked before the ledger is read, so a refused target costs no work. */
async function writePage(file: string, loc: LedgerLocation, opts: ReportOptions): Promise<number> {
  const [{ checkTarget, STDOUT, writeAtomically }, { renderHtml }] = await Promise.all([
    import('../stats/write-report.js'),
    import('../stats/html.js'),
  ]);
  const target = await checkTarget(file);
  const html = renderHtml(await buildReport(loc, opts));
  if (target === STDOUT) await writeOut(html);
  else await writeOut(`cg stats: wrote ${file} (${bytesText(await writeAtomically(target, html))})\n`);
  return 0;
}

export function parseTop(raw: string | undefined, fallback = DEFAULT_TOP): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1) {
    throw new UsageError(`--top: expected a positive whole number, got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

async function reset(loc: LedgerLocation, json: boolean): Promise<number> {
  const removed = await removeLedgers(loc);
  let pending = 0;
  try {
    const { readdir } = await import('node:fs/promises');
    pending = (await readdir(loc.pending)).filter((n) => !n.startsWith('.')).length;
  } catch {
    // no pending directory: nothing to count
  }
  await rm(loc.pending, { recursive: true, force: true });
  if (loc.checkpoint) await rm(loc.checkpoint.dir, { recursive: true, force: true });
  if (json) {
    await writeOut(
      `${JSON.stringify({ removed: { events: removed.lines, files: removed.files, bytes: removed.bytes, pending }, dir: loc.dir }, null, 2)}\n`,
    );
  } else {
    await writeOut(
      `cg stats: removed ${removed.lines.toLocaleString('en-US')} events (${removed.files} ledger file${removed.files === 1 ? '' : 's'}, ${removed.bytes.toLocaleString('en-US')} bytes) and ${pending} pending record${pending === 1 ? '' : 's'} from ${loc.dir}\n`,
    );
  }
  return 0;
}

export function colorEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return true;
  return !!stream.isTTY;
}

export async function paintFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Promise<Paint> {
  if (!colorEnabled(stream, env)) return PLAIN;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  return {
    bold: (s) => chalk.bold(s),
    dim: (s) => chalk.dim(s),
    green: (s) => chalk.green(s),
    yellow: (s) => chalk.yellow(s),
    cyan: (s) => chalk.cyan(s),
  };
}
