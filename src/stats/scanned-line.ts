/**
 * One ledger line as the reader (read.ts) scanned it: numbers read in place, strings kept as
 * positions in the chunk until someone reads them. The object is reused from line to line
 * (visitors copy what they keep). Most visitors never need a string, only to know whether it is a
 * given value: `equals` and `startsWith` answer that from the bytes, without making one —
 * on a ledger of a million lines, the strings not made are most of what a report costs.
 *
 * Fields a kind does not need may be left at their defaults when the scan stopped early: run
 * (all), out (cmd tool h nf ti hi ho to est), ev (c and action; rewrite: f ti to k est; cmdfilter
 * skip: cmd tool why ro bi), x (k hit h hr tr est), req (all). hi, ho and hr are -1 when the line
 * has none (the host showed the text whole: read ti, to and tr); cs is -1 when a req line does not
 * say.
 */

/** The string fields, by the index of their positions in Line.pos. */
export const F_S = 0;
export const F_C = 1;
export const F_CMD = 2;
export const F_TOOL = 3;
export const F_WHY = 4;
export const F_TK = 5;
export const F_H = 6;
export const F_VIA = 7;
export const F_F = 8;
export const F_K = 9;
const FIELDS = 10;

export interface ScannedLine {
  t: number;
  /** KIND_* (read.ts) or 0 for a kind this reader does not know. */
  kind: number;
  /** ACTION_* for ev lines, 0 otherwise. */
  action: number;
  readonly s: string | undefined;
  readonly c: string | undefined;
  readonly cmd: string | undefined;
  readonly tool: string | undefined;
  readonly why: string | undefined;
  readonly tk: string | undefined;
  readonly h: string | undefined;
  readonly via: string | undefined;
  readonly f: string | undefined;
  readonly k: string | undefined;
  bi: number;
  bo: number;
  ti: number;
  to: number;
  tr: number;
  b: number;
  n: number;
  rw: number;
  ub: number;
  hit: number;
  hi: number;
  ho: number;
  hr: number;
  nf: number;
  ro: number;
  cs: number;
  mi: number;
  mo: number;
  est: boolean;
  /** Whether the line has the string field F_*. */
  has(field: number): boolean;
  /** Whether string field F_* is exactly `value`; a line without the field matches nothing. */
  equals(field: number, value: string): boolean;
  /** Whether string field F_* starts with the ASCII `prefix`. */
  startsWith(field: number, prefix: string): boolean;
  /** Whether the component is exactly `name` (equals(F_C, name)). */
  componentIs(name: string): boolean;
  /** The length in bytes of string field F_*, or -1 when the line has none. */
  lengthOf(field: number): number;
  /** Lower-case hex digits [from, from + digits) of field F_* as a number (digits ≤ 7), else -1. */
  hex(field: number, from: number, digits: number): number;
}

export class Line implements ScannedLine {
  /** The chunk the positions are in (valid only while the line is being visited). */
  buf: Buffer = Buffer.alloc(0);
  t = 0;
  kind = 0;
  action = 0;
  bi = 0;
  bo = 0;
  ti = 0;
  to = 0;
  tr = 0;
  b = 0;
  n = 0;
  rw = 0;
  ub = 0;
  hit = 0;
  hi = -1;
  ho = -1;
  hr = -1;
  nf = 0;
  ro = 0;
  cs = -1;
  mi = 0;
  mo = 0;
  est = false;
  /** [open quote, close quote] of each string field F_*; open is -1 when absent. */
  readonly pos: number[] = new Array<number>(FIELDS * 2).fill(-1);

  reset(): void {
    this.t = this.kind = this.action = 0;
    this.bi = this.bo = this.ti = this.to = this.tr = this.b = this.n = this.rw = this.ub = this.hit = 0;
    this.nf = this.ro = this.mi = this.mo = 0;
    this.hi = this.ho = this.hr = this.cs = -1;
    this.est = false;
    const pos = this.pos;
    for (let i = 0; i < pos.length; i += 2) pos[i] = -1;
  }

  /** Records where string field F_* is: the positions of its quotes. */
  set(field: number, open: number, close: number): void {
    this.pos[field * 2] = open;
    this.pos[field * 2 + 1] = close;
  }

  private get_(field: number): string | undefined {
    const open = this.pos[field * 2]!;
    return open < 0 ? undefined : this.text(open, this.pos[field * 2 + 1]!);
  }

  get s() {
    return this.get_(F_S);
  }
  get c() {
    return this.get_(F_C);
  }
  get cmd() {
    return this.get_(F_CMD);
  }
  get tool() {
    return this.get_(F_TOOL);
  }
  get why() {
    return this.get_(F_WHY);
  }
  get tk() {
    return this.get_(F_TK);
  }
  get h() {
    return this.get_(F_H);
  }
  get via() {
    return this.get_(F_VIA);
  }
  get f() {
    return this.get_(F_F);
  }
  get k() {
    return this.get_(F_K);
  }

  has(field: number): boolean {
    return this.pos[field * 2]! >= 0;
  }

  equals(field: number, value: string): boolean {
    const open = this.pos[field * 2]!;
    return open >= 0 && this.is(open, this.pos[field * 2 + 1]!, value);
  }

  startsWith(field: number, prefix: string): boolean {
    const open = this.pos[field * 2]!;
    if (open < 0 || open + prefix.length >= this.pos[field * 2 + 1]!) return false;
    const buf = this.buf;
    for (let i = 0; i < prefix.length; i++) if (buf[open + 1 + i] !== prefix.charCodeAt(i)) return false;
    return true;
  }

  componentIs(name: string): boolean {
    return this.equals(F_C, name);
  }

  lengthOf(field: number): number {
    const open = this.pos[field * 2]!;
    return open < 0 ? -1 : this.pos[field * 2 + 1]! - open - 1;
  }

  hex(field: number, from: number, digits: number): number {
    const open = this.pos[field * 2]!;
    if (open < 0 || open + 1 + from + digits > this.pos[field * 2 + 1]!) return -1;
    const buf = this.buf;
    let v = 0;
    for (let i = open + 1 + from; i < open + 1 + from + digits; i++) {
      const c = buf[i]!;
      const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    return v;
  }

  /**
   * The string value between the quotes at open and close: latin1 (a byte a char) when it is plain
   * ASCII, else decoded as UTF-8 JSON from the bytes. A copy: the chunk is reused.
   */
  text(open: number, close: number): string {
    return this.encoded(open, close)
      ? (JSON.parse(this.buf.toString('utf8', open, close + 1)) as string)
      : this.buf.toString('latin1', open + 1, close);
  }

  /**
   * Whether the string value at [open, close] is exactly `want`, making no string when it can: the
   * bytes are compared with `want` until one differs; only a value holding an escape or a non-ASCII
   * byte (where bytes and text differ) is decoded to compare.
   */
  is(open: number, close: number, want: string): boolean {
    const buf = this.buf;
    const len = close - open - 1;
    const n = Math.min(len, want.length);
    for (let i = 0; i < n; i++) {
      const c = buf[open + 1 + i]!;
      if (c === 92 || c > 127) return this.text(open, close) === want;
      if (c !== want.charCodeAt(i)) return false;
    }
    if (len === want.length) return true;
    // A longer value equals `want` only if escapes or UTF-8 in its rest make it shorter as text.
    return len > want.length && this.encoded(open + n, close) && this.text(open, close) === want;
  }

  /** Whether the value holds an escape or a non-ASCII byte (its text is not its bytes). */
  private encoded(open: number, close: number): boolean {
    const buf = this.buf;
    for (let i = open + 1; i < close; i++) {
      const c = buf[i]!;
      if (c === 92 || c > 127) return true;
    }
    return false;
  }
}
