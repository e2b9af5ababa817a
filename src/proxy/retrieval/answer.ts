/**
 * The proxy's answer to one cg_expand call: `cg mcp`'s tool (src/mcp/tools.ts — the same checks,
 * the same slices, the same ledger record), then bounded. A result over the configured size keeps
 * whole lines up to it and ends with a note naming the call that gives the next slice, so the model
 * can page through a large original instead of losing its context to it. A missing key, a bad
 * argument or a store that cannot be read is a tool error with the tool's own one-line reason —
 * never an empty success.
 */

import type { CgConfig } from '../../config.js';
import { isObject } from '../../json/payload.js';
import { newTally } from '../../mcp/stats.js';
import { callTool } from '../../mcp/tools.js';
import type { Store } from '../../store/store.js';

export interface Answer {
  text: string;
  isError: boolean;
}

export interface AnswerContext {
  config: CgConfig;
  store: Store | null;
  /** The session the ledger records the expand under. */
  session: string;
  env: NodeJS.ProcessEnv;
  maxBytes: number;
}

/** The arguments of a call as the model wrote them (a JSON object's text), or why they are not. */
function argumentsOf(raw: string): Record<string, unknown> | string {
  let v: unknown;
  try {
    v = JSON.parse(raw === '' ? '{}' : raw);
  } catch {
    return 'arguments: not JSON (expected {"key": "<<cg:KEY>>", "lines"?: "A-B", "grep"?: "regex"})';
  }
  return isObject(v) ? v : 'arguments: expected an object {"key": …}';
}

export async function answerCall(rawArgs: string, ctx: AnswerContext): Promise<Answer> {
  const args = argumentsOf(rawArgs);
  if (typeof args === 'string') return { text: args, isError: true };
  const r = await callTool('cg_expand', args, {
    config: ctx.config,
    store: ctx.store,
    session: ctx.session,
    tally: newTally(),
    env: ctx.env,
  });
  const text = r.content.map((c) => c.text).join('');
  if (r.isError) return { text, isError: true };
  return { text: bounded(text, args, ctx.maxBytes), isError: false };
}

/** The first line number a call asked for (1 without a range). */
function firstLine(args: Record<string, unknown>): number {
  const m = typeof args.lines === 'string' ? /^\s*(\d*)/.exec(args.lines) : null;
  return m?.[1] ? Number(m[1]) : 1;
}

/** The last line number a call asked for, as its range wrote it ('' for "to the end"). */
function lastAsked(args: Record<string, unknown>): string {
  if (typeof args.lines !== 'string') return '';
  const m = /-\s*(\d+)\s*$/.exec(args.lines);
  return m ? m[1]! : '';
}

/** Whole lines of text up to `budget` UTF-8 bytes (at least part of the first), and how many. */
function leading(text: string, budget: number): { kept: string; lines: number; cut: boolean } {
  let bytes = 0;
  let at = 0;
  let lines = 0;
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl + 1;
    const size = Buffer.byteLength(text.slice(at, end));
    if (bytes + size > budget) break;
    bytes += size;
    at = end;
    lines++;
  }
  if (lines > 0) return { kept: text.slice(0, at), lines, cut: false };
  // One line longer than the whole budget: its head, cut on a character.
  const head = Buffer.from(text.slice(0, budget), 'utf8').subarray(0, budget).toString('utf8');
  return { kept: head.replace(/\uFFFD$/, ''), lines: 1, cut: true };
}

/** The result cut to maxBytes with a note on the call for the rest; text itself when it fits. */
export function bounded(text: string, args: Record<string, unknown>, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const key = typeof args.key === 'string' ? args.key : '';
  const grep = typeof args.grep === 'string' && args.grep !== '' ? args.grep : undefined;
  const { kept, lines, cut } = leading(text, Math.max(256, maxBytes - 400));
  const body = kept.endsWith('\n') ? kept : `${kept}\n`;
  const total = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const to = lastAsked(args);
  const call = (lines: string) => JSON.stringify({ key, lines, ...(grep !== undefined ? { grep } : {}) });
  if (text.startsWith('=== cg_expand '))
    return `${body}[cg: result cut at ${maxBytes} bytes; ask for one key at a time, with lines A-B for a slice]`;
  if (grep !== undefined) {
    const last = /^(\d+):/.exec(kept.split('\n')[lines - 1] ?? '');
    const next = last ? Number(last[1]) + 1 : firstLine(args);
    return `${body}[cg: ${lines} of ${total} matching lines shown, over ${maxBytes} bytes; the next slice: cg_expand ${call(`${next}-${to}`)}]`;
  }
  const from = firstLine(args);
  const shownTo = from + lines - 1;
  const of = from + total - 1;
  if (cut)
    return `${body}[cg: line ${from} alone is over ${maxBytes} bytes and was cut; the next slice: cg_expand ${call(`${from + 1}-${to}`)}]`;
  return `${body}[cg: lines ${from}-${shownTo} of ${of} shown, over ${maxBytes} bytes; the next slice: cg_expand ${call(`${shownTo + 1}-${to}`)}]`;
}
