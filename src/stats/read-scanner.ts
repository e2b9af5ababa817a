/**
 * The ledger line scanner behind readLedger (read.ts): one pass over each line of a chunk, as bytes,
 * for the flat objects line.ts writes (see read.ts for the why and the rules).
 */
import {
  ACTION_REWRITE,
  ACTION_SKIP,
  actionAt,
  BAD,
  bytesAt,
  FALSE,
  K_A,
  K_B,
  K_BI,
  K_BO,
  K_C,
  K_CMD,
  K_CS,
  K_D,
  K_E,
  K_EST,
  K_F,
  K_H,
  K_HI,
  K_HIT,
  K_HO,
  K_HR,
  K_I,
  K_K,
  K_MC,
  K_ME,
  K_MI,
  K_MO,
  K_MR,
  K_MW,
  K_N,
  K_NF,
  K_R,
  K_RO,
  K_RW,
  K_S,
  K_T,
  K_TI,
  K_TK,
  K_TO,
  K_TOOL,
  K_TR,
  K_UB,
  K_VIA,
  K_WHY,
  KEEP,
  KEY_CODE,
  KIND_EV,
  KIND_EXPAND,
  KIND_OUT,
  kindAt,
  LINE_START,
  NULL,
  PREFIX,
  SKIP,
  TRUE,
} from './read-codes.js';
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

/**
 * What a scanner carries from line to line: the dedup of settled lines, for a checkpoint. The runs
 * seen are one JSON text ([[run, count], …]): a checkpoint restores it as one string, and it is
 * parsed only when a settled line comes (most reports that go on from a checkpoint see none).
 */
export interface ScannerState {
  seenRuns: string;
  curRun: string;
  curCount: number;
  duplicates: number;
}

export class Scanner {
  private readonly line = new Line();
  duplicates = 0;
  private buf: Buffer = Buffer.alloc(0);
  // Dedup of settled lines (d:1): per run id, how many of its lines have been seen. A copy of a run
  // appended twice arrives in index order each time, so an index below the count is a second copy.
  private seenRuns = new Map<string, number>();
  /** seenRuns as a checkpoint kept them, not parsed yet (seenRuns is empty until then). */
  private seenText: string | undefined;
  private curRun = '';
  private curCount = 0;
  private rAt = -1;
  private rTo = -1;
  private d = false;
  private idx = 0;

  constructor(private readonly filter: ReadFilter) {}

  /** The state to go on from (restore). */
  state(): ScannerState {
    return {
      seenRuns: this.seenText ?? JSON.stringify([...this.seenRuns]),
      curRun: this.curRun,
      curCount: this.curCount,
      duplicates: this.duplicates,
    };
  }

  restore(s: ScannerState): void {
    this.seenRuns.clear();
    this.seenText = s.seenRuns;
    this.curRun = s.curRun;
    this.curCount = s.curCount;
    this.duplicates = s.duplicates;
  }

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
    if (this.seenText !== undefined) {
      this.seenRuns = new Map(JSON.parse(this.seenText) as [string, number][]);
      this.seenText = undefined;
    }
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
          case K_MC:
            l.mc = v;
            break;
          case K_MR:
            l.mr = v;
            break;
          case K_MW:
            l.mw = v;
            break;
          case K_ME:
            l.me = v;
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
