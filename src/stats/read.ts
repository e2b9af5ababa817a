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
import { type ReadCounts, type ReadFilter, Scanner } from './read-scanner.js';
import type { ScannedLine } from './scanned-line.js';

export type { ReadCounts, ReadFilter } from './read-scanner.js';
export type { ScannedLine };

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
