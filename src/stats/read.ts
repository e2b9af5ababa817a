/**
 * Reading the ledger fast: `cg stats` on a 200,000-event ledger must answer well under a second, and
 * JSON.parse on every line (an object per line, every string materialised) takes most of a second on
 * its own. So:
 *   - files are streamed in 4 MiB chunks, split on newline bytes and decoded as latin1 (one char per
 *     byte, several times cheaper than UTF-8 and enough to find the JSON structure); a string value
 *     with non-ASCII bytes is decoded as UTF-8 from the chunk itself when someone reads it;
 *   - each line is walked once by a scanner for the flat objects line.ts writes: keys are told apart
 *     by length and first characters without making strings, numbers are read in place, and strings
 *     are sliced out only when a visitor reads them;
 *   - the scan stops as soon as the line has given what the report needs (a skip decision needs only
 *     its component and action), after checking the line ends whole; lines before `since` or of
 *     another session are dropped as soon as their `t` or `s` is read.
 * A line the scanner cannot read (torn by a crash or a full disk) is retried from the last `{"v":`
 * inside it, since a torn write is followed by a whole line; failing that it is counted as bad and
 * skipped. Lines from a settled pending record (d:1) are counted once per run id and index.
 */
import { open } from 'node:fs/promises';
import { ledgerFiles } from './ledger.js';
import type { LedgerLocation } from './paths.js';

export const KIND_RUN = 1;
export const KIND_OUT = 2;
export const KIND_EV = 3;
export const KIND_EXPAND = 4;
export const KIND_REQ = 5;

export const ACTION_REWRITE = 1;
export const ACTION_SKIP = 2;
export const ACTION_REVERT = 3;
export const ACTION_FAIL = 4;

/**
 * One scanned line. The object is reused from line to line (visitors copy what they keep), and its
 * strings are sliced out only when a visitor reads them. Fields a kind does not need may be left at
 * their defaults when the scan stopped early: run (all), out (cmd tool h nf ti hi ho to est), ev (c
 * and action; rewrite: f ti to k est; cmdfilter skip: cmd tool why ro bi), x (k hit h hr tr est), req (all).
 * hi, ho and hr are -1 when the line has none (the host showed the text whole: read ti and to), cs is
 * -1 when a req line does not say.
 */
export interface ScannedLine {
  t: number;
  /** KIND_* or 0 for a kind this reader does not know. */
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
  /** Whether the component is exactly `name`, without making a string. */
  componentIs(name: string): boolean;
  /** Whether the host (h) is exactly `name`; hostless lines match nothing. */
  hostIs(name: string): boolean;
  readonly hasHost: boolean;
  /** Whether the command is exactly `command`; lines without one match nothing. */
  cmdIs(command: string): boolean;
  /** Whether the reason starts with `prefix`. */
  whyStartsWith(prefix: string): boolean;
}

export interface ReadFilter {
  since?: number;
  session?: string;
}

export interface ReadCounts {
  files: number;
  bytes: number;
  lines: number;
  /** Lines that matched the filter and were visited. */
  visited: number;
  bad: number;
  duplicates: number;
}

const CHUNK = 4 * 1024 * 1024;

export async function readLedger(
  loc: LedgerLocation,
  filter: ReadFilter,
  visit: (line: ScannedLine) => void,
): Promise<ReadCounts> {
  const counts: ReadCounts = { files: 0, bytes: 0, lines: 0, visited: 0, bad: 0, duplicates: 0 };
  const scanner = new Scanner(filter);
  for (const file of await ledgerFiles(loc)) {
    let fh: Awaited<ReturnType<typeof open>>;
    try {
      fh = await open(file, 'r');
    } catch {
      continue; // rotated away and pruned since it was listed
    }
    counts.files++;
    try {
      const buf = Buffer.allocUnsafe(CHUNK);
      let carried = 0;
      for (;;) {
        if (carried === buf.length) {
          // One line longer than a chunk is not something this format writes: drop it as bad.
          counts.bad++;
          carried = 0;
        }
        const { bytesRead } = await fh.read(buf, carried, buf.length - carried, null);
        if (bytesRead === 0) break;
        counts.bytes += bytesRead;
        const filled = carried + bytesRead;
        const lastNl = buf.lastIndexOf(10, filled - 1);
        if (lastNl < 0) {
          carried = filled;
          continue;
        }
        scanner.scanChunk(buf, lastNl + 1, counts, visit, false);
        // The partial line after the last newline moves to the front; the next read appends to it.
        carried = filled - lastNl - 1;
        buf.copy(buf, 0, lastNl + 1, filled);
      }
      // A last line without its newline may be a write still in flight: read it if it is whole.
      if (carried) {
        const last = Buffer.concat([buf.subarray(0, carried), Buffer.from('\n')]);
        scanner.scanChunk(last, last.length, counts, visit, true);
      }
    } finally {
      await fh.close();
    }
  }
  counts.duplicates = scanner.duplicates;
  return counts;
}

// Key signatures: length << 16 | first char << 8 | second char (0 for one-letter keys).
const sig = (k: string) => (k.length << 16) | (k.charCodeAt(0) << 8) | (k.length > 1 ? k.charCodeAt(1) : 0);
const K_T = sig('t');
const K_E = sig('e');
const K_R = sig('r');
const K_S = sig('s');
const K_C = sig('c');
const K_A = sig('a');
const K_B = sig('b');
const K_D = sig('d');
const K_I = sig('i');
const K_N = sig('n');
const K_CMD = sig('cmd');
const K_TOOL = sig('tool');
const K_WHY = sig('why');
const K_TK = sig('tk');
const K_BI = sig('bi');
const K_BO = sig('bo');
const K_TI = sig('ti');
const K_TO = sig('to');
const K_TR = sig('tr');
const K_RW = sig('rw');
const K_UB = sig('ub');
const K_HIT = sig('hit');
const K_EST = sig('est');
const K_H = sig('h');
const K_VIA = sig('via');
const K_F = sig('f');
const K_K = sig('k');
const K_HI = sig('hi');
const K_HO = sig('ho');
const K_HR = sig('hr');
const K_NF = sig('nf');
const K_RO = sig('ro');
const K_CS = sig('cs');
const K_MI = sig('mi');
const K_MO = sig('mo');

const KEEP = 0;
const SKIP = 1;
const BAD = 2;
const PREFIX = '{"v":1,"t":';

/** A line whose strings are positions in the current chunk until someone reads them. */
class Line implements ScannedLine {
  str = '';
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
  // [open quote, close quote] of each string field; open is -1 when absent.
  sAt = -1;
  sTo = -1;
  cAt = -1;
  cTo = -1;
  cmdAt = -1;
  cmdTo = -1;
  toolAt = -1;
  toolTo = -1;
  whyAt = -1;
  whyTo = -1;
  tkAt = -1;
  tkTo = -1;
  hAt = -1;
  hTo = -1;
  viaAt = -1;
  viaTo = -1;
  fAt = -1;
  fTo = -1;
  kAt = -1;
  kTo = -1;

  reset(): void {
    this.t = this.kind = this.action = 0;
    this.bi = this.bo = this.ti = this.to = this.tr = this.b = this.n = this.rw = this.ub = this.hit = 0;
    this.nf = this.ro = this.mi = this.mo = 0;
    this.hi = this.ho = this.hr = this.cs = -1;
    this.est = false;
    this.sAt = this.cAt = this.cmdAt = this.toolAt = this.whyAt = this.tkAt = -1;
    this.hAt = this.viaAt = this.fAt = this.kAt = -1;
  }

  get s() {
    return this.sAt < 0 ? undefined : this.text(this.sAt, this.sTo);
  }
  get c() {
    return this.cAt < 0 ? undefined : this.text(this.cAt, this.cTo);
  }
  get cmd() {
    return this.cmdAt < 0 ? undefined : this.text(this.cmdAt, this.cmdTo);
  }
  get tool() {
    return this.toolAt < 0 ? undefined : this.text(this.toolAt, this.toolTo);
  }
  get why() {
    return this.whyAt < 0 ? undefined : this.text(this.whyAt, this.whyTo);
  }
  get tk() {
    return this.tkAt < 0 ? undefined : this.text(this.tkAt, this.tkTo);
  }
  get h() {
    return this.hAt < 0 ? undefined : this.text(this.hAt, this.hTo);
  }
  get via() {
    return this.viaAt < 0 ? undefined : this.text(this.viaAt, this.viaTo);
  }
  get f() {
    return this.fAt < 0 ? undefined : this.text(this.fAt, this.fTo);
  }
  get k() {
    return this.kAt < 0 ? undefined : this.text(this.kAt, this.kTo);
  }

  componentIs(name: string): boolean {
    return this.cAt >= 0 && this.is(this.cAt, this.cTo, name);
  }

  get hasHost() {
    return this.hAt >= 0;
  }

  hostIs(name: string): boolean {
    return this.hAt >= 0 && this.is(this.hAt, this.hTo, name);
  }

  cmdIs(command: string): boolean {
    return this.cmdAt >= 0 && this.is(this.cmdAt, this.cmdTo, command);
  }

  whyStartsWith(prefix: string): boolean {
    if (this.whyAt < 0) return false;
    // ASCII prefixes only: a byte-wise match at the value's start is a match of its text.
    return this.str.startsWith(prefix, this.whyAt + 1) && this.whyAt + prefix.length < this.whyTo;
  }

  /**
   * The string value between the quotes at open and close. The text is latin1 (one char per byte),
   * so positions are byte offsets: a value with escapes or non-ASCII bytes is decoded from the bytes.
   */
  text(open: number, close: number): string {
    const str = this.str;
    for (let i = open + 1; i < close; i++) {
      const c = str.charCodeAt(i);
      if (c === 92 || c > 127) {
        const raw = this.buf.toString('utf8', open, close + 1);
        return JSON.parse(raw) as string;
      }
    }
    return str.slice(open + 1, close);
  }

  /** Whether the string value at [open, close] is exactly `want`. */
  is(open: number, close: number, want: string): boolean {
    const len = close - open - 1;
    // Equal lengths: equal only if every byte is ASCII and matches (UTF-8 and escapes only lengthen).
    if (len === want.length && this.str.startsWith(want, open + 1)) return true;
    return len > want.length && this.text(open, close) === want;
  }
}

class Scanner {
  private readonly line = new Line();
  duplicates = 0;
  private str = '';
  // Dedup of settled lines (d:1): per run id, how many of its lines have been seen. A copy of a run
  // appended twice arrives in index order each time, so an index below the count is a second copy.
  private readonly seenRuns = new Map<string, number>();
  private curRun = '';
  private curCount = 0;
  private rAt = -1;
  private rTo = -1;
  private d = false;
  private idx = 0;

  constructor(private readonly filter: ReadFilter) {}

  /** Scans buf[0, length), which ends with a newline. */
  scanChunk(
    buf: Buffer,
    length: number,
    counts: ReadCounts,
    visit: (line: ScannedLine) => void,
    inFlight: boolean,
  ): void {
    const text = buf.toString('latin1', 0, length);
    this.str = text;
    this.line.str = text;
    this.line.buf = buf;
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) break;
      if (nl > start) {
        let result = this.scan(start, nl);
        if (result === BAD) {
          // A torn write followed by a whole line: the torn event is lost (and counted as bad), the
          // whole one is read.
          const retry = text.lastIndexOf('{"v":', nl);
          if (retry > start) {
            result = this.scan(retry, nl);
            if (result !== BAD) counts.bad++;
          }
        }
        if (result === BAD) {
          if (!inFlight) {
            counts.lines++;
            counts.bad++;
          }
        } else {
          counts.lines++;
          if (result === KEEP) {
            if (this.d && this.isDuplicate()) this.duplicates++;
            else {
              counts.visited++;
              visit(this.line);
            }
          }
        }
      }
      start = nl + 1;
    }
  }

  private isDuplicate(): boolean {
    const str = this.str;
    const len = this.rTo - this.rAt - 1;
    if (!(len === this.curRun.length && str.startsWith(this.curRun, this.rAt + 1))) {
      if (this.curRun) this.seenRuns.set(this.curRun, this.curCount);
      this.curRun = str.slice(this.rAt + 1, this.rTo);
      this.curCount = this.seenRuns.get(this.curRun) ?? 0;
    }
    if (this.idx < this.curCount) return true;
    this.curCount = this.idx + 1;
    return false;
  }

  /** Scans one flat JSON object in str[p, end). */
  private scan(p: number, end: number): number {
    const str = this.str;
    const l = this.line;
    l.reset();
    this.rAt = -1;
    this.d = false;
    this.idx = 0;
    if (str.charCodeAt(p) !== 123) return BAD;
    const { since, session } = this.filter;
    // The key after which this line has given all the report needs (0: read to the end).
    let stopAfter = 0;
    if (str.startsWith(PREFIX, p)) {
      // Every line this version writes starts {"v":1,"t":<ms>,…: read t in place, skip to the next key.
      let q = p + PREFIX.length;
      let t = 0;
      for (;;) {
        const d = str.charCodeAt(q);
        if (d < 48 || d > 57) break;
        t = t * 10 + d - 48;
        q++;
      }
      if (str.charCodeAt(q) !== 44) return BAD;
      if (since !== undefined && t < since) return SKIP;
      l.t = t;
      p = q + 1;
    } else p++;
    for (;;) {
      if (str.charCodeAt(p) !== 34) return BAD;
      const ks = p + 1;
      let ke = ks;
      while (ke < end && str.charCodeAt(ke) !== 34) ke++;
      if (ke >= end || str.charCodeAt(ke + 1) !== 58) return BAD;
      const len = ke - ks;
      const key = (len << 16) | (str.charCodeAt(ks) << 8) | (len > 1 ? str.charCodeAt(ks + 1) : 0);
      p = ke + 2;
      const c = str.charCodeAt(p);
      if (c === 34) {
        // A string: its closing quote is the first one not escaped by an odd run of backslashes.
        let q = p + 1;
        for (;;) {
          q = str.indexOf('"', q);
          if (q < 0 || q >= end) return BAD;
          let bs = 0;
          while (str.charCodeAt(q - 1 - bs) === 92) bs++;
          if (bs % 2 === 0) break;
          q++;
        }
        switch (key) {
          case K_E:
            l.kind = kindAt(str, p, q);
            stopAfter = l.kind === KIND_OUT ? K_TO : l.kind === KIND_EXPAND ? K_TR : 0;
            break;
          case K_A:
            l.action = actionAt(str, p, q);
            if (l.kind === KIND_EV) {
              if (l.action === ACTION_REWRITE) stopAfter = K_K;
              else if (l.action === ACTION_SKIP && l.componentIs('cmdfilter')) stopAfter = K_BI;
              else stopAfter = K_A;
            }
            break;
          case K_R:
            this.rAt = p;
            this.rTo = q;
            break;
          case K_S:
            if (session !== undefined && !l.is(p, q, session)) return SKIP;
            l.sAt = p;
            l.sTo = q;
            break;
          case K_C:
            l.cAt = p;
            l.cTo = q;
            break;
          case K_CMD:
            l.cmdAt = p;
            l.cmdTo = q;
            break;
          case K_TOOL:
            l.toolAt = p;
            l.toolTo = q;
            break;
          case K_WHY:
            l.whyAt = p;
            l.whyTo = q;
            break;
          case K_TK:
            l.tkAt = p;
            l.tkTo = q;
            break;
          case K_H:
            l.hAt = p;
            l.hTo = q;
            break;
          case K_VIA:
            l.viaAt = p;
            l.viaTo = q;
            break;
          case K_F:
            l.fAt = p;
            l.fTo = q;
            break;
          case K_K:
            l.kAt = p;
            l.kTo = q;
            break;
        }
        p = q + 1;
      } else if (c === 45 || (c >= 48 && c <= 57)) {
        let v = 0;
        let q = c === 45 ? p + 1 : p;
        for (;;) {
          const d = str.charCodeAt(q);
          if (d < 48 || d > 57) break;
          v = v * 10 + d - 48;
          q++;
        }
        const d = str.charCodeAt(q);
        if (d === 46 || d === 101 || d === 69) {
          // Not an integer as this version writes them: read it the slow, exact way.
          let r = q;
          while (r < end && str.charCodeAt(r) !== 44 && str.charCodeAt(r) !== 125) r++;
          v = Math.abs(Number(str.slice(p, r)));
          q = r;
        }
        if (c === 45) v = -v;
        switch (key) {
          case K_T:
            if (since !== undefined && v < since) return SKIP;
            l.t = v;
            break;
          case K_BI:
            l.bi = v;
            break;
          case K_BO:
            l.bo = v;
            break;
          case K_TI:
            l.ti = v;
            break;
          case K_TO:
            l.to = v;
            break;
          case K_TR:
            l.tr = v;
            break;
          case K_B:
            l.b = v;
            break;
          case K_N:
            l.n = v;
            break;
          case K_RW:
            l.rw = v;
            break;
          case K_UB:
            l.ub = v;
            break;
          case K_HIT:
            l.hit = v;
            break;
          case K_EST:
            l.est = v !== 0;
            break;
          case K_D:
            this.d = v !== 0;
            break;
          case K_I:
            this.idx = v;
            break;
          case K_HI:
            l.hi = v;
            break;
          case K_HO:
            l.ho = v;
            break;
          case K_HR:
            l.hr = v;
            break;
          case K_NF:
            l.nf = v;
            break;
          case K_RO:
            l.ro = v;
            break;
          case K_CS:
            l.cs = v;
            break;
          case K_MI:
            l.mi = v;
            break;
          case K_MO:
            l.mo = v;
            break;
        }
        p = q;
      } else if (str.startsWith('true', p)) {
        if (key === K_EST) l.est = true;
        p += 4;
      } else if (str.startsWith('false', p)) p += 5;
      else if (str.startsWith('null', p)) p += 4;
      else return BAD; // nested values are not part of this format
      const next = str.charCodeAt(p);
      if (key === stopAfter && next === 44) {
        // Enough read. The rest is skipped, but only for a line that ends whole and holds no second
        // line (a torn write followed by a whole one must go the slow way, through the retry).
        if (str.charCodeAt(end - 1) !== 125) return BAD;
        const again = str.indexOf('{"v":', p);
        if (again !== -1 && again < end) return BAD;
        break;
      }
      if (next === 44) {
        p++;
        continue;
      }
      if (next !== 125 || p + 1 !== end) return BAD;
      break;
    }
    if (l.kind === 0 || l.t === 0) return SKIP;
    if (session !== undefined && l.sAt < 0) return SKIP;
    if (this.d && this.rAt < 0) this.d = false; // nothing to deduplicate by
    return KEEP;
  }
}

/** run | out | ev | x | req, told apart by their first characters. */
function kindAt(str: string, open: number, close: number): number {
  const len = close - open - 1;
  const c = str.charCodeAt(open + 1);
  if (len === 3 && c === 114 && str.startsWith('run', open + 1)) return KIND_RUN;
  if (len === 3 && c === 114 && str.startsWith('req', open + 1)) return KIND_REQ;
  if (len === 3 && c === 111 && str.startsWith('out', open + 1)) return KIND_OUT;
  if (len === 2 && c === 101 && str.charCodeAt(open + 2) === 118) return KIND_EV;
  if (len === 1 && c === 120) return KIND_EXPAND;
  return 0;
}

function actionAt(str: string, open: number, close: number): number {
  const len = close - open - 1;
  if (len === 7 && str.startsWith('rewrite', open + 1)) return ACTION_REWRITE;
  if (len === 4 && str.startsWith('skip', open + 1)) return ACTION_SKIP;
  if (len === 6 && str.startsWith('revert', open + 1)) return ACTION_REVERT;
  if (len === 4 && str.startsWith('fail', open + 1)) return ACTION_FAIL;
  return 0;
}
