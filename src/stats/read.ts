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
 *
 * Resuming (read-cache.ts): every file is opened before any is read (so a rotation while reading
 * moves nothing out from under the reader), and a checkpoint the caller saved is used only when its
 * files are still there, first and in order, holding the bytes it read (file-mark.ts): the counts
 * and the scanner's state are restored, the caller restores its visitor's, and reading goes on
 * where the checkpoint stopped. The reader offers a new checkpoint once, at the last point where
 * every file so far was read to a newline: before the first line still in flight, else at the end.
 */
import type { Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { type FileMark, fileMark, stillMarked } from './file-mark.js';
import { ledgerFiles } from './ledger.js';
import type { LedgerLocation } from './paths.js';
import { type ReadCounts, type ReadFilter, Scanner, type ScannerState } from './read-scanner.js';
import type { ScannedLine } from './scanned-line.js';

export type { ReadCounts, ReadFilter, ScannerState } from './read-scanner.js';
export type { ScannedLine };

const CHUNK = 4 * 1024 * 1024;

/** Where a read stood: the files read (the last possibly in part), its counts, the scanner's state. */
export interface ReadState {
  marks: FileMark[];
  counts: ReadCounts;
  scanner: ScannerState;
}

/** A read that may go on from a checkpoint and offers one (read-cache.ts). */
export interface Resume {
  from: ReadState | undefined;
  /** `from` holds: the visitor's state must now be the checkpoint's. */
  accepted(): void;
  /**
   * The read's state at its checkpoint, called at most once, before the visit of any line after it:
   * the visitor's state must be taken then too.
   */
  checkpoint(state: ReadState): void;
}

interface OpenFile {
  fh: FileHandle;
  st: Stats;
}

export async function readLedger(
  loc: LedgerLocation,
  filter: ReadFilter,
  visit: (line: ScannedLine) => void,
  resume?: Resume,
): Promise<ReadCounts> {
  const counts: ReadCounts = { files: 0, bytes: 0, lines: 0, visited: 0, bad: 0, duplicates: 0 };
  const scanner = new Scanner(filter);
  const files = await openAll(await ledgerFiles(loc));
  try {
    const marks: FileMark[] = [];
    let first = 0;
    let offset = 0;
    let resumed = false;
    const from = resume?.from;
    if (from && (await holds(from.marks, files))) {
      Object.assign(counts, from.counts);
      scanner.restore(from.scanner);
      resume!.accepted();
      marks.push(...from.marks.slice(0, -1));
      first = from.marks.length - 1;
      offset = from.marks[first]!.size;
      resumed = true;
    }
    let offered = !resume;
    for (let i = first; i < files.length; i++) {
      const { fh, st } = files[i]!;
      if (!(resumed && i === first)) counts.files++; // the checkpoint counted the file it stopped in
      const buf = Buffer.allocUnsafe(CHUNK);
      let position = offset;
      offset = 0;
      let carried = 0;
      for (;;) {
        if (carried === buf.length) {
          // One line longer than a chunk is not something this format writes: drop it as bad (and
          // offer no checkpoint past it, which might not end on a line of its own).
          counts.bad++;
          carried = 0;
          offered = true;
        }
        const { bytesRead } = await fh.read(buf, carried, buf.length - carried, position);
        if (bytesRead === 0) break;
        position += bytesRead;
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
      if (!offered) marks.push(await fileMark(fh, st, position - carried));
      // A last line without its newline may be a write still in flight: read it if it is whole.
      if (carried) {
        if (!offered) {
          offered = true;
          resume!.checkpoint(stateOf(marks, counts, scanner, carried));
        }
        const last = Buffer.concat([buf.subarray(0, carried), Buffer.from('\n')]);
        scanner.scanChunk(last, last.length, counts, visit, true);
      }
    }
    if (!offered && marks.length) resume!.checkpoint(stateOf(marks, counts, scanner, 0));
  } finally {
    await Promise.all(files.map((f) => f.fh.close()));
  }
  counts.duplicates = scanner.duplicates;
  return counts;
}

/** The files, opened; one rotated away and pruned since it was listed is left out. */
async function openAll(paths: string[]): Promise<OpenFile[]> {
  const files: OpenFile[] = [];
  try {
    for (const path of paths) {
      let fh: FileHandle;
      try {
        fh = await open(path, 'r');
      } catch {
        continue;
      }
      try {
        files.push({ fh, st: await fh.stat() });
      } catch (err) {
        await fh.close();
        throw err;
      }
    }
  } catch (err) {
    await Promise.all(files.map((f) => f.fh.close()));
    throw err;
  }
  return files;
}

/** Whether the marked files are the first ones, in order, unchanged but for the last one's growth. */
async function holds(marks: FileMark[], files: OpenFile[]): Promise<boolean> {
  if (marks.length === 0 || marks.length > files.length) return false;
  for (let i = 0; i < marks.length; i++) {
    const { fh, st } = files[i]!;
    if (!(await stillMarked(fh, st, marks[i]!, i === marks.length - 1))) return false;
  }
  return true;
}

/** The state before the `unread` bytes of a line in flight (read again when the read goes on). */
function stateOf(marks: FileMark[], counts: ReadCounts, scanner: Scanner, unread: number): ReadState {
  return {
    marks: [...marks],
    counts: { ...counts, bytes: counts.bytes - unread, duplicates: scanner.duplicates },
    scanner: scanner.state(),
  };
}
