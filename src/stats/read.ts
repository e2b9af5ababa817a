/**
 * Reading the ledger fast: `cg stats` on a 200,000-event ledger must answer well under a second, and
 * JSON.parse on every line (an object per line, every string materialised) takes most of a second on
 * its own. So:
 *   - files are streamed in 4 MiB chunks and scanned as bytes, never decoded as a whole (newlines,
 *     quotes and line starts are found with Buffer.indexOf); a string value is made only when a
 *     visitor reads it, as latin1 when it is ASCII, else decoded as UTF-8 from the chunk itself;
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
import {
  F_C,
  F_CMD,
  F_F,
  F_H,
  F_K,
  F_S,
  F_TK,
  F_TOOL,
  F_VIA,
  F_WHY,
  Line,
  type ScannedLine,
} from './scanned-line.js';

export type { ScannedLine };

export const KIND_RUN = 1;
export const KIND_OUT = 2;
export const KIND_EV = 3;
export const KIND_EXPAND = 4;
export const KIND_REQ = 5;

export const ACTION_REWRITE = 1;
export const ACTION_SKIP = 2;
export const ACTION_REVERT = 3;
export const ACTION_FAIL = 4;

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

// Keys are told apart by a table indexed by length and first two characters, so the scanner's
// switch runs on small dense codes (a jump table) instead of comparing strings or sparse numbers.
const KEY_NAMES = [
  't',
  'e',
  'r',
  's',
  'c',
  'a',
  'b',
  'd',
  'i',
  'n',
  'cmd',
  'tool',
  'why',
  'tk',
  'bi',
  'bo',
  'ti',
  'to',
  'tr',
  'rw',
  'ub',
  'hit',
  'est',
  'h',
  'via',
  'f',
  'k',
  'hi',
  'ho',
  'hr',
  'nf',
  'ro',
  'cs',
  'mi',
  'mo',
] as const;
const KEY_CODE = new Uint8Array(5 << 14);
KEY_NAMES.forEach((k, i) => {
  KEY_CODE[(k.length << 14) | (k.charCodeAt(0) << 7) | (k.length > 1 ? k.charCodeAt(1) : 0)] = i + 1;
});
const K_T = 1;
const K_E = 2;
const K_R = 3;
const K_S = 4;
const K_C = 5;
const K_A = 6;
const K_B = 7;
const K_D = 8;
const K_I = 9;
const K_N = 10;
const K_CMD = 11;
const K_TOOL = 12;
const K_WHY = 13;
const K_TK = 14;
const K_BI = 15;
const K_BO = 16;
const K_TI = 17;
const K_TO = 18;
const K_TR = 19;
const K_RW = 20;
const K_UB = 21;
const K_HIT = 22;
const K_EST = 23;
const K_H = 24;
const K_VIA = 25;
const K_F = 26;
const K_K = 27;
const K_HI = 28;
const K_HO = 29;
const K_HR = 30;
const K_NF = 31;
const K_RO = 32;
const K_CS = 33;
const K_MI = 34;
const K_MO = 35;

const KEEP = 0;
const SKIP = 1;
const BAD = 2;
const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const PREFIX = ascii('{"v":1,"t":');
/** How every line of this format starts: a torn line followed by a whole one holds it twice. */
const LINE_START = Buffer.from('{"v":');
const [TRUE, FALSE, NULL] = [ascii('true'), ascii('false'), ascii('null')];
const [RUN, REQ, OUT] = [ascii('run'), ascii('req'), ascii('out')];
const [REWRITE, SKIP_, REVERT, FAIL] = [ascii('rewrite'), ascii('skip'), ascii('revert'), ascii('fail')];

class Scanner {
  private readonly line = new Line();
  duplicates = 0;
  private buf: Buffer = Buffer.alloc(0);
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
    this.buf = buf;
    this.line.buf = buf;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl < 0 || nl >= length) break;
      if (nl > start) {
        let result = this.scan(start, nl);
        if (result === BAD) {
          // A torn write followed by a whole line: the torn event is lost (and counted as bad), the
          // whole one is read.
          const retry = buf.lastIndexOf(LINE_START, nl);
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
    // Lines of one run come together: compare with the current run's id before anything else.
    if (!this.line.is(this.rAt, this.rTo, this.curRun)) {
      if (this.curRun) this.seenRuns.set(this.curRun, this.curCount);
      this.curRun = this.line.text(this.rAt, this.rTo);
      this.curCount = this.seenRuns.get(this.curRun) ?? 0;
    }
    if (this.idx < this.curCount) return true;
    this.curCount = this.idx + 1;
    return false;
  }

  /** Scans one flat JSON object in buf[p, end). */
  private scan(p: number, end: number): number {
    const buf = this.buf;
    const l = this.line;
    l.reset();
    this.rAt = -1;
    this.d = false;
    this.idx = 0;
    if (buf[p] !== 123) return BAD;
    const { since, session } = this.filter;
    // The key after which this line has given all the report needs (-1: read to the end; unknown
    // keys are 0).
    let stopAfter = -1;
    if (bytesAt(buf, p, PREFIX)) {
      // Every line this version writes starts {"v":1,"t":<ms>,…: read t in place, skip to the next key.
      let q = p + PREFIX.length;
      let t = 0;
      for (;;) {
        const d = buf[q]!;
        if (d < 48 || d > 57) break;
        t = t * 10 + d - 48;
        q++;
      }
      if (buf[q]! !== 44) return BAD;
      if (since !== undefined && t < since) return SKIP;
      l.t = t;
      p = q + 1;
    } else p++;
    for (;;) {
      if (buf[p]! !== 34) return BAD;
      const ks = p + 1;
      let ke = ks;
      while (ke < end && buf[ke]! !== 34) ke++;
      if (ke >= end || buf[ke + 1]! !== 58) return BAD;
      const len = ke - ks;
      const c0 = buf[ks]!;
      const c1 = len > 1 ? buf[ks + 1]! : 0;
      const key = len < 5 && c0 < 128 && c1 < 128 ? KEY_CODE[(len << 14) | (c0 << 7) | c1]! : 0;
      p = ke + 2;
      const c = buf[p]!;
      if (c === 34) {
        // A string: its closing quote is the first one not escaped by an odd run of backslashes.
        // (A loop, not Buffer.indexOf: values are short, and a native call per value costs more.)
        let q = p + 1;
        for (;;) {
          while (q < end && buf[q] !== 34) q++;
          if (q >= end) return BAD;
          let bs = 0;
          while (buf[q - 1 - bs]! === 92) bs++;
          if (bs % 2 === 0) break;
          q++;
        }
        switch (key) {
          case K_E:
            l.kind = kindAt(buf, p, q);
            stopAfter = l.kind === KIND_OUT ? K_TO : l.kind === KIND_EXPAND ? K_TR : -1;
            break;
          case K_A:
            l.action = actionAt(buf, p, q);
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
            l.set(F_S, p, q);
            break;
          case K_C:
            l.set(F_C, p, q);
            break;
          case K_CMD:
            l.set(F_CMD, p, q);
            break;
          case K_TOOL:
            l.set(F_TOOL, p, q);
            break;
          case K_WHY:
            l.set(F_WHY, p, q);
            break;
          case K_TK:
            l.set(F_TK, p, q);
            break;
          case K_H:
            l.set(F_H, p, q);
            break;
          case K_VIA:
            l.set(F_VIA, p, q);
            break;
          case K_F:
            l.set(F_F, p, q);
            break;
          case K_K:
            l.set(F_K, p, q);
            break;
        }
        p = q + 1;
      } else if (c === 45 || (c >= 48 && c <= 57)) {
        let v = 0;
        let q = c === 45 ? p + 1 : p;
        for (;;) {
          const d = buf[q]!;
          if (d < 48 || d > 57) break;
          v = v * 10 + d - 48;
          q++;
        }
        const d = buf[q]!;
        if (d === 46 || d === 101 || d === 69) {
          // Not an integer as this version writes them: read it the slow, exact way.
          let r = q;
          while (r < end && buf[r]! !== 44 && buf[r]! !== 125) r++;
          v = Math.abs(Number(buf.toString('latin1', p, r)));
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
      } else if (bytesAt(buf, p, TRUE)) {
        if (key === K_EST) l.est = true;
        p += 4;
      } else if (bytesAt(buf, p, FALSE)) p += 5;
      else if (bytesAt(buf, p, NULL)) p += 4;
      else return BAD; // nested values are not part of this format
      const next = buf[p]!;
      if (key === stopAfter && next === 44) {
        // Enough read. The rest is skipped, but only for a line that ends whole and holds no second
        // line (a torn write followed by a whole one must go the slow way, through the retry).
        if (buf[end - 1]! !== 125) return BAD;
        for (let i = p; i < end; i++) if (buf[i] === 123 && bytesAt(buf, i, LINE_START)) return BAD;
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
    if (session !== undefined && !l.has(F_S)) return SKIP;
    if (this.d && this.rAt < 0) this.d = false; // nothing to deduplicate by
    return KEEP;
  }
}

/** run | out | ev | x | req, told apart by their first characters. */
function kindAt(buf: Buffer, open: number, close: number): number {
  const len = close - open - 1;
  const c = buf[open + 1];
  if (len === 3 && c === 114 && bytesAt(buf, open + 1, RUN)) return KIND_RUN;
  if (len === 3 && c === 114 && bytesAt(buf, open + 1, REQ)) return KIND_REQ;
  if (len === 3 && c === 111 && bytesAt(buf, open + 1, OUT)) return KIND_OUT;
  if (len === 2 && c === 101 && buf[open + 2] === 118) return KIND_EV;
  if (len === 1 && c === 120) return KIND_EXPAND;
  return 0;
}

function actionAt(buf: Buffer, open: number, close: number): number {
  const len = close - open - 1;
  if (len === 7 && bytesAt(buf, open + 1, REWRITE)) return ACTION_REWRITE;
  if (len === 4 && bytesAt(buf, open + 1, SKIP_)) return ACTION_SKIP;
  if (len === 6 && bytesAt(buf, open + 1, REVERT)) return ACTION_REVERT;
  if (len === 4 && bytesAt(buf, open + 1, FAIL)) return ACTION_FAIL;
  return 0;
}

/** Whether buf holds the ASCII bytes of `word` at `at`. */
function bytesAt(buf: Buffer, at: number, word: Uint8Array): boolean {
  if (at + word.length > buf.length) return false;
  for (let i = 0; i < word.length; i++) if (buf[at + i] !== word[i]) return false;
  return true;
}
