/**
 * Savings of one MCP session, as `cg_stats` reports them: read from the stats ledger filtered to the
 * session's id (the same figures as `cg stats --session ID`), pending records settled first so the
 * counts are exact. When the ledger is off (CG_STATS=0) or cannot be read, the server's own running
 * tally (bytes, not tokens) is reported instead, and says so.
 */

import { buildReport } from '../stats/build.js';
import { ledgerLocation, statsEnabled } from '../stats/paths.js';

/** What this server did, counted as it went (the fallback when there is no ledger). */
export interface Tally {
  compressed: number;
  bytesIn: number;
  bytesOut: number;
  expands: number;
  bytesReturned: number;
}

export function newTally(): Tally {
  return { compressed: 0, bytesIn: 0, bytesOut: 0, expands: 0, bytesReturned: 0 };
}

const n = (x: number) => x.toLocaleString('en-US');

export async function sessionStats(session: string, tally: Tally, env: NodeJS.ProcessEnv): Promise<string> {
  if (statsEnabled(env)) {
    try {
      const loc = ledgerLocation(env);
      const r = await buildReport(loc, { top: 5, session });
      const t = r.tokens;
      const pct = t.savedPct === null ? '' : ` (${t.savedPct}%)`;
      const lines = [
        `session ${session}: ${n(r.outputs.rewritten)} outputs compressed, ${n(t.in)} → ${n(t.out)} tokens, saved ${n(t.saved)}${pct}`,
        `expanded ${n(r.expand.hits)} of ${n(r.expand.requests)} requests, ${n(t.returned)} tokens returned; net saved ${n(t.net)}`,
      ];
      if (r.estimated.outputs > 0) lines.push(`plus ${n(r.estimated.saved)} tokens estimated from bytes`);
      return `${lines.join('\n')}\n`;
    } catch {
      // fall through to the tally
    }
  }
  const why = statsEnabled(env)
    ? 'the stats ledger could not be read'
    : 'the stats ledger is off (CG_STATS=0)';
  return (
    `session ${session} (${why}; counted in bytes): ` +
    `${n(tally.compressed)} outputs compressed, ${n(tally.bytesIn)} → ${n(tally.bytesOut)} bytes; ` +
    `${n(tally.expands)} expands returned ${n(tally.bytesReturned)} bytes\n`
  );
}
