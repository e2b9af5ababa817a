/**
 * `cg discover`: from the stats ledger, the commands whose output went through with no filter
 * (cmdfilter found none, or only a generic fallback cut it), ranked by tokens with how often each
 * ran — the list of filters worth writing next. --since and --session as for `cg stats`; --top N
 * rows (20); --json prints {version, filter, commands, runs, tokens, rows} (keys only ever added).
 */
import { writeOut } from '../io.js';
import { buildReport } from '../stats/build.js';
import { ledgerLocation } from '../stats/paths.js';
import { renderDiscover } from '../stats/render.js';
import { parseSince } from '../stats/since.js';
import { paintFor, parseTop } from './stats.js';

export interface DiscoverFlags {
  since?: string;
  session?: string;
  top?: string;
  json?: boolean;
}

export const DISCOVER_TOP = 20;

export async function discoverCommand(
  flags: DiscoverFlags,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const top = parseTop(flags.top, DISCOVER_TOP);
  const since = flags.since !== undefined ? parseSince(flags.since) : undefined;
  const report = await buildReport(ledgerLocation(env), {
    top,
    ...(since !== undefined ? { since } : {}),
    ...(flags.session !== undefined ? { session: flags.session } : {}),
  });
  if (flags.json) {
    const { commands, runs, tokens, rows } = report.discover;
    await writeOut(
      `${JSON.stringify({ version: 1, filter: report.filter, commands, runs, tokens, rows }, null, 2)}\n`,
    );
    return 0;
  }
  await writeOut(renderDiscover(report, await paintFor(process.stdout, env)));
  return 0;
}
