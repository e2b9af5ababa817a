/**
 * Helpers for the stats tests: a private ledger location in a temp dir, and reading it back into a
 * report the way `cg stats` does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Aggregator } from '../../../src/stats/aggregate.js';
import { type LedgerLocation, ledgerLocation } from '../../../src/stats/paths.js';
import { type ReadFilter, readLedger } from '../../../src/stats/read.js';
import type { StatsReport } from '../../../src/stats/report.js';
import { tempDir } from '../../helpers.js';

export function tempLedger(extra: Record<string, string> = {}): {
  env: NodeJS.ProcessEnv;
  loc: LedgerLocation;
} {
  const env = { CG_STATE_DIR: join(tempDir('cg-stats-'), 'state'), ...extra };
  return { env, loc: ledgerLocation(env) };
}

/**
 * The ledger as written, aggregated like buildReport() but without settling pending records first:
 * the deferral tests look at what is in the ledger before `cg stats` settles it.
 */
export async function report(loc: LedgerLocation, filter: ReadFilter = {}, top = 10): Promise<StatsReport> {
  const agg = new Aggregator();
  const read = await readLedger(loc, filter, agg.add);
  return agg.finish({
    top,
    ...filter,
    ledger: {
      dir: loc.dir,
      files: read.files,
      bytes: read.bytes,
      lines: read.lines,
      badLines: read.bad,
      duplicates: read.duplicates,
      pendingSettled: 0,
      pendingLeft: 0,
      pendingBad: 0,
    },
  });
}

/** Every line of the ledger files in `dir`, parsed in full with JSON.parse. */
export function ledgerLines(dir: string): Record<string, unknown>[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.jsonl'))
    .flatMap((n) => readFileSync(join(dir, n), 'utf8').split('\n'))
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
