/**
 * A compaction run's ledger lines (line.ts) and the texts their token fields are counted from, made
 * from the run's events by record.ts. The lines come one at a time, in order — the run line, an out
 * line per rewritten output, an ev line per event — and are never all held: a proxy's first sight
 * of a session has ~77,000 events, and the record of them all at once took 190 MB.
 * registerTexts walks the same order without making a line, and says which texts (TextTable) each
 * line's token fields sum (Fill); the two agree on which lines have which token fields.
 */
import type { PipelineEvent } from '../pipeline/run.js';
import { hostCaps, type hostModel } from './hosts.js';
import type { EvLine, LedgerLine, OutLine, RunLine } from './line.js';
import { modelFields } from './model-usage.js';
import type { Fill } from './pending.js';
import type { RecordMeta } from './record.js';
import type { summarizeRun } from './runs.js';
import { type TextTable, viewOf } from './text-table.js';
import { filterOf, isUnmatchedSkip } from './unfiltered.js';

/** What a compaction run's ledger lines are made from. */
export interface RunPlan {
  base: { t: number; r: string; s?: string };
  meta: RecordMeta;
  events: readonly PipelineEvent[];
  run: ReturnType<typeof summarizeRun>;
  host: string | undefined;
  via: string;
  /** The host's caps, when what it shows of a tool output is counted too (hi, ho). */
  capping: ReturnType<typeof hostModel>;
  unfiltered: ReadonlySet<string>;
  rewrittenIds: ReadonlySet<string>;
}

/**
 * Whether an event's line has token figures. A rewrite with no texts and no bytes (a structural
 * edit such as a cache breakpoint) changes no output's tokens: it is recorded without them rather
 * than as a zero estimate.
 */
function hasTokens(e: PipelineEvent): boolean {
  return e.action === 'rewrite' && (e.before !== undefined || e.after !== undefined || e.bytesIn > 0);
}

/** The texts each line's token fields are counted from, in table; line indices as runLines yields them. */
export function registerTexts(p: RunPlan, table: TextTable): Fill[] {
  const fill: Fill[] = [];
  let at = 1; // the run line has no token fields
  for (const o of p.run.rewritten) {
    fill.push([at, 'ti', [table.add(o.original, o.bytesIn, o.key)]]);
    fill.push([at, 'to', [table.add(o.final, o.bytesOut)]]);
    if (p.capping && p.host) {
      // Only a text past the host's cap differs from what the host shows: the rest reads as ti/to.
      if (hostCaps(p.capping, o.original, o.bytesIn))
        fill.push([at, 'hi', [viewOf(table, p.host, o.original, o.bytesIn, o.key)]]);
      if (hostCaps(p.capping, o.final, o.bytesOut))
        fill.push([at, 'ho', [viewOf(table, p.host, o.final, o.bytesOut)]]);
    }
    at++;
  }
  for (const e of p.events) {
    if (hasTokens(e)) {
      fill.push([at, 'ti', [table.add(e.before, e.bytesIn)]]);
      fill.push([at, 'to', [table.add(e.after, e.bytesOut)]]);
    }
    at++;
  }
  return fill;
}

/** The run's ledger lines in order, each made as it is asked for; token fields are 0 until filled. */
export function* runLines(p: RunPlan): Generator<LedgerLine> {
  const { base, meta, host, capping } = p;
  const runLine: RunLine = {
    ...base,
    e: 'run',
    fmt: meta.format,
    tk: meta.tokenizer,
    ...(meta.command ? { cmd: meta.command } : {}),
    n: p.run.outputs,
    rw: p.run.rewritten.length,
    ub: p.run.untouchedBytes,
    ...(host ? { h: host } : {}),
    via: p.via,
  };
  yield runLine;
  for (const o of p.run.rewritten) {
    const caps = capping && host ? capping : undefined;
    const out: OutLine = {
      t: base.t,
      r: base.r,
      s: base.s,
      e: 'out',
      o: o.id,
      cmd: (o.command ?? meta.command) || undefined,
      tool: o.toolName || undefined,
      h: host || undefined,
      nf: p.unfiltered.has(o.id) ? 1 : undefined,
      bi: o.bytesIn,
      bo: o.bytesOut,
      ti: 0,
      to: 0,
      k: o.key || undefined,
      // Only a text past the host's cap differs from what the host shows: the rest reads as ti/to.
      hi: caps && hostCaps(caps, o.original, o.bytesIn) ? 0 : undefined,
      ho: caps && hostCaps(caps, o.final, o.bytesOut) ? 0 : undefined,
    };
    yield out;
  }
  for (const e of p.events) yield evLine(p, e);
}

/**
 * One event's line, as one literal of every field (an absent one undefined, which formatLine and
 * JSON.stringify leave out): a line grown field by field, or spread from a dozen optional parts,
 * reallocated its properties at each step — 16 µs and 1.2 KB a line, 1.5 s and 116 MB for the
 * 94,000 lines of a proxy's first sight of a 20,000-result session.
 */
function evLine(p: RunPlan, e: PipelineEvent): EvLine {
  const { base } = p;
  const tokens = hasTokens(e);
  const line: EvLine = {
    t: base.t,
    r: base.r,
    s: base.s,
    e: 'ev',
    c: e.component,
    a: e.action,
    f: e.action === 'rewrite' ? filterOf(e) : undefined,
    o: e.output,
    cmd: (e.command ?? p.meta.command) || undefined,
    tool: e.toolName || undefined,
    why: e.reason || undefined,
    ro: isUnmatchedSkip(e) && p.rewrittenIds.has(e.output) ? 1 : undefined,
    bi: e.bytesIn,
    bo: e.bytesOut,
    k: e.key || undefined,
    loss: e.loss || undefined,
    ti: tokens ? 0 : undefined,
    to: tokens ? 0 : undefined,
  };
  // What cg's own model calls cost (rare) goes after the component, as it always has.
  if (!e.modelUsage) return line;
  const { t, r, s, e: kind, c, ...rest } = line;
  return { t, r, s, e: kind, c, ...modelFields(e.modelUsage), ...rest };
}
