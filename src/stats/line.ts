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
 *            the outputs left untouched)  h? (agent host: claude-code, codex, gemini, …)  via (the door:
 *            pipe, hook, proxy, mcp)                                       — one per compaction run
 *   out      o (output id)  cmd?  tool?  h?  nf? (1: no filter handled it — cmdfilter found none, or
 *            only a generic fallback rewrote it)  bi bo (bytes)  ti (tokens before the first rewrite)
 *            hi? ho? (tokens of what the host would have shown of the original and of cg's output,
 *            when its cap cut them; absent: the same as ti and to)  to (tokens after the last rewrite,
 *            marker and hint included)  k? (marker key)                   — one per rewritten output
 *   ev       c (component)  a (rewrite|skip|revert|fail)  f? (the filter cmdfilter applied)  o  cmd?
 *            tool?  why? (reason)  ro? (1 on cmdfilter's "no filter" skip of an output that has an out
 *            line: counted there)  bi bo  ti? to? (rewrites only)  k?  loss?
 *                                                                          — one per component decision
 *   x        k  hit (1|0)  h?  b (bytes returned)  hr? (tokens of what the host showed of them, when
 *            its cap cut them)  tr (tokens returned)                       — one per key `cg expand` served
 *   req      fmt  h?  bi bo (request bytes as received and as forwarded)  ti to (their tokens)
 *            cs? (1: the turn kept the earlier turns byte-identical, so the provider's cache held)
 *            mi? mo? (tokens cg's own model calls took in and gave out for this request)
 *                                                                          — one per `cg proxy` request
 *
 * Strings are capped (a command at 300 characters, a reason at 200) so a line stays far below the
 * size at which an O_APPEND write could be split.
 */
export type LineKind = 'run' | 'out' | 'ev' | 'x' | 'req';

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
  h?: string;
  via?: string;
}

export interface OutLine extends Base {
  e: 'out';
  o: string;
  cmd?: string;
  tool?: string;
  h?: string;
  nf?: 1;
  bi: number;
  bo: number;
  ti: number;
  hi?: number;
  ho?: number;
  to: number;
  k?: string;
}

export interface EvLine extends Base {
  e: 'ev';
  c: string;
  a: string;
  f?: string;
  o: string;
  cmd?: string;
  tool?: string;
  why?: string;
  ro?: 1;
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
  h?: string;
  b: number;
  hr?: number;
  tr: number;
}

export interface RequestLine extends Base {
  e: 'req';
  fmt: string;
  h?: string;
  bi: number;
  bo: number;
  ti: number;
  to: number;
  cs?: 0 | 1;
  mi?: number;
  mo?: number;
}

export type LedgerLine = RunLine | OutLine | EvLine | ExpandLine | RequestLine;

const CAPS: Record<string, number> = {
  cmd: 300,
  why: 200,
  tool: 100,
  s: 100,
  o: 100,
  c: 64,
  f: 64,
  fmt: 32,
  h: 32,
  via: 16,
};

/** Field order per kind, after the common prefix. */
const ORDER: Record<LineKind, readonly string[]> = {
  run: ['fmt', 'tk', 'cmd', 'n', 'rw', 'ub', 'h', 'via'],
  out: ['o', 'cmd', 'tool', 'h', 'nf', 'bi', 'bo', 'ti', 'hi', 'ho', 'to', 'k'],
  ev: ['c', 'a', 'f', 'o', 'cmd', 'tool', 'why', 'ro', 'bi', 'bo', 'ti', 'to', 'k', 'loss'],
  x: ['k', 'hit', 'h', 'b', 'hr', 'tr'],
  req: ['fmt', 'h', 'bi', 'bo', 'ti', 'to', 'cs', 'mi', 'mo'],
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
