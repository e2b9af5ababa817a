/**
 * The ledger's line format: one flat JSON object per line, keys always in the order below (the
 * reader in read.ts stops reading a line once it has what the report needs, so everything a report
 * uses comes before what it does not). Version 1:
 *
 *   prefix   v:1  t: epoch ms  e: kind  r: run id
 *            d?: 1 and i: n on lines written by settling a pending record (the reader drops a second
 *            copy of the same r+i, so a record settled twice after a crash still counts once)
 *            est?: 1 when a token figure on the line is an estimate (bytes/4), not an exact count
 *            s?: session
 *   run      fmt  tk (tokenizer)  cmd?  n (tool outputs seen)  rw (outputs rewritten)  ub (bytes of
 *            the outputs left untouched)                                   — one per compaction run
 *   out      o (output id)  cmd?  tool?  bi bo (bytes)  ti to (tokens before the first rewrite and
 *            after the last, marker and hint included)  k? (marker key)   — one per rewritten output
 *   ev       c (component)  a (rewrite|skip|revert|fail)  o  cmd?  tool?  why? (reason)  bi bo
 *            ti? to? (rewrites only)  k?  loss?                          — one per component decision
 *   x        k  hit (1|0)  b (bytes returned)  tr (tokens returned)        — one per key `cg expand` served
 *
 * Strings are capped (a command at 300 characters, a reason at 200) so a line stays far below the
 * size at which an O_APPEND write could be split.
 */
export type LineKind = 'run' | 'out' | 'ev' | 'x';

interface Base {
  t: number;
  r: string;
  s?: string;
  est?: 1;
  d?: 1;
  i?: number;
}

export interface RunLine extends Base {
  e: 'run';
  fmt: string;
  tk: string;
  cmd?: string;
  n: number;
  rw: number;
  ub: number;
}

export interface OutLine extends Base {
  e: 'out';
  o: string;
  cmd?: string;
  tool?: string;
  bi: number;
  bo: number;
  ti: number;
  to: number;
  k?: string;
}

export interface EvLine extends Base {
  e: 'ev';
  c: string;
  a: string;
  o: string;
  cmd?: string;
  tool?: string;
  why?: string;
  bi: number;
  bo: number;
  ti?: number;
  to?: number;
  k?: string;
  loss?: string;
}

export interface ExpandLine extends Base {
  e: 'x';
  k: string;
  hit: 0 | 1;
  b: number;
  tr: number;
}

export type LedgerLine = RunLine | OutLine | EvLine | ExpandLine;

const CAPS: Record<string, number> = { cmd: 300, why: 200, tool: 100, s: 100, o: 100, c: 64, fmt: 32 };

/** Field order per kind, after the common prefix. */
const ORDER: Record<LineKind, readonly string[]> = {
  run: ['fmt', 'tk', 'cmd', 'n', 'rw', 'ub'],
  out: ['o', 'cmd', 'tool', 'bi', 'bo', 'ti', 'to', 'k'],
  ev: ['c', 'a', 'o', 'cmd', 'tool', 'why', 'bi', 'bo', 'ti', 'to', 'k', 'loss'],
  x: ['k', 'hit', 'b', 'tr'],
};

export function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  // Keep the start: it names the program, which is what grouping and the reader care about.
  return `${text.slice(0, max - 1)}…`;
}

/** One line, without the newline. */
export function formatLine(line: LedgerLine): string {
  const l = line as unknown as Record<string, unknown>;
  let out = `{"v":1,"t":${Math.round(line.t)},"e":"${line.e}","r":${JSON.stringify(line.r)}`;
  if (line.d) out += `,"d":1,"i":${line.i ?? 0}`;
  if (line.est) out += ',"est":1';
  if (line.s !== undefined) out += `,"s":${JSON.stringify(cap(line.s, CAPS.s!))}`;
  for (const key of ORDER[line.e]) out += field(key, l[key]);
  return `${out}}`;
}

function field(key: string, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number') return `,"${key}":${Number.isFinite(value) ? Math.round(value) : 0}`;
  const text = String(value);
  const max = CAPS[key];
  return `,"${key}":${JSON.stringify(max ? cap(text, max) : text)}`;
}
