/**
 * One stats report from the ledger: settle pending records (so counts are exact), read every ledger
 * file through the filters (going on from the last report's checkpoint, read-cache.ts), aggregate.
 * Shared by `cg stats` and the MCP server's `cg_stats`.
 */

import type { LedgerLocation } from './paths.js';
import { countBad, settlePending } from './pending.js';
import { readWithCheckpoint } from './read-cache.js';
import type { StatsReport } from './report.js';

export interface ReportOptions {
  top: number;
  since?: number;
  session?: string;
}

export async function buildReport(loc: LedgerLocation, opts: ReportOptions): Promise<StatsReport> {
  const { since, session } = opts;
  const settled = await settlePending(loc);
  const { agg, counts: read } = await readWithCheckpoint(loc, {
    ...(since !== undefined ? { since } : {}),
    ...(session !== undefined ? { session } : {}),
  });
  return agg.finish({
    top: opts.top,
    ...(since !== undefined ? { since } : {}),
    ...(session !== undefined ? { session } : {}),
    ledger: {
      dir: loc.dir,
      files: read.files,
      bytes: read.bytes,
      lines: read.lines,
      badLines: read.bad,
      duplicates: read.duplicates,
      pendingSettled: settled.settled,
      pendingLeft: settled.left,
      pendingBad: await countBad(loc),
    },
  });
}
