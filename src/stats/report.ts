/**
 * From scanned ledger lines to the report `cg stats` prints. The shape below is what `--json`
 * prints; its keys are public (DESIGN §5): add keys, never rename or remove them.
 *
 *   version                       1
 *   filter        {since, session}               ISO time or null, session id or null
 *   runs                          compaction runs recorded
 *   outputs       {rewritten, untouched, untouchedBytes}
 *   tokens        {in, out, saved, savedPct, returned, model, net, netPct}
 *                 in/out: exact tokens of the outputs cg rewrote, before and as written (marker and
 *                 hint included); returned: tokens `cg expand` gave back; model: tokens cg's own
 *                 model calls took in and gave out (model.tokens); net = saved − returned − model;
 *                 percentages are of `in` (null when in is 0). Untouched outputs are not in these
 *                 figures (they cost the same with or without cg); their bytes are under outputs.
 *   expand        {requests, hits, misses, hitRate, tokensReturned}   hitRate in % or null
 *   estimated     {outputs, tokensIn, tokensOut, saved, events, expands, tokensReturned}
 *                 figures that could not be counted exactly (bytes/4): never part of the above
 *   components    [{component, rewrites, skips, reverts, fails, tokensIn, tokensOut, saved,
 *                   savedPct, estimated, modelCalls, modelTokensIn, modelTokensOut}]
 *                 by saved, descending; model*: what the component's own model calls cost
 *   commands      [{command, outputs, tokensIn, tokensOut, saved, savedPct, estimated, cappedIn,
 *                   cappedOut, cappedSaved, cappedSavedPct}]  top N, by cappedSaved
 *   unmatched     [{command, count, bytes}]      top N commands cmdfilter found no filter for
 *   daily         [{day, runs, saved, cappedSaved}]   local days with activity, oldest first;
 *                 cappedSaved: the day's saving against what the host would have shown
 *   tokenizers    [names]                        tokenizers the counts were made with
 *   ledger        {dir, files, bytes, lines, badLines, duplicates, pendingSettled, pendingLeft,
 *                  pendingBad}
 *   capped        {in, out, saved, savedPct, returned, model, net, netPct, outputsCapped,
 *                  measuredAgainst}
 *                 the tokens figures measured against what each run's agent host would have shown
 *                 (host-tally.ts); what `cg stats` shows first. Runs with no host count raw. net
 *                 subtracts cg's model tokens too, and measuredAgainst then says so.
 *   model         {calls, tokensIn, tokensOut, tokens, cacheRead, cacheWrite, estimatedCalls}
 *                 cg's own model calls, every door (model-usage.ts); tokensIn includes cache reads
 *                 and writes; estimatedCalls: calls whose server reported no usage, counted by cg
 *                 with the run's tokenizer (included in the figures, never left out)
 *   hosts         [{host, runs, via, outputs, outputsCapped, tokensIn, tokensOut, cappedIn,
 *                   cappedOut, shows, source, saved, savedPct, cappedSaved, cappedSavedPct}]
 *   recall        [{component, filter, markers, expands, recalled, tokensReturned,
 *                   tokensReturnedEstimated, recallRate, tooAggressive}]    recall.ts
 *   discover      {commands, runs, tokens, rows: [{command, runs, bytes, tokens, estimated,
 *                   rewritten, saved}]}          top N commands no filter handled (discover.ts)
 *   requests      {count, counted, tokensIn, tokensOut, saved, savedPct, cacheKnown, cacheStable,
 *                  cacheStableRate, modelCalls, modelTokensIn, modelTokensOut, net, estimated, …}
 *                 requests.ts; its model figures are the same calls as `model`, per request
 *
 * "No filter matched" comes from the cmdfilter component: an event with component `cmdfilter`,
 * action `skip` and the reason 'no filter matches' (what cmdfilter emits today) or 'no filter
 * matched', optionally followed by more text (`no filter matches: …`) — unfiltered.ts. Commands
 * are grouped by commandLabel (program and subcommand).
 */
import type { DiscoverRow } from './discover.js';
import type { CappedTotals, HostRow } from './host-tally.js';
import type { ModelTotals } from './model-usage.js';
import type { RecallRow } from './recall.js';
import type { RequestTotals } from './requests.js';
import { UNMATCHED_REASON } from './unfiltered.js';

export { UNMATCHED_REASON };

export interface ComponentRow {
  component: string;
  rewrites: number;
  skips: number;
  reverts: number;
  fails: number;
  tokensIn: number;
  tokensOut: number;
  saved: number;
  savedPct: number | null;
  estimated: number;
  modelCalls: number;
  modelTokensIn: number;
  modelTokensOut: number;
}

export interface CommandRow {
  command: string;
  outputs: number;
  tokensIn: number;
  tokensOut: number;
  saved: number;
  savedPct: number | null;
  estimated: number;
  /** The same outputs against what their host would have shown (capped in host-tally.ts). */
  cappedIn: number;
  cappedOut: number;
  cappedSaved: number;
  cappedSavedPct: number | null;
}

export interface UnmatchedRow {
  command: string;
  count: number;
  bytes: number;
}

export interface DayRow {
  day: string;
  runs: number;
  saved: number;
  /** The same outputs against what their host would have shown (as CommandRow.cappedSaved). */
  cappedSaved: number;
}

export interface LedgerInfo {
  dir: string;
  files: number;
  bytes: number;
  lines: number;
  badLines: number;
  duplicates: number;
  pendingSettled: number;
  pendingLeft: number;
  pendingBad: number;
}

/** Tokens in and out of rewritten outputs, what came back (expand) and cg's own model calls. */
export interface TokenTotals {
  in: number;
  out: number;
  saved: number;
  savedPct: number | null;
  returned: number;
  /** cg's own model tokens, subtracted from net like what came back. */
  model: number;
  net: number;
  netPct: number | null;
}

export interface StatsReport {
  version: 1;
  filter: { since: string | null; session: string | null };
  runs: number;
  outputs: { rewritten: number; untouched: number; untouchedBytes: number };
  tokens: TokenTotals;
  expand: { requests: number; hits: number; misses: number; hitRate: number | null; tokensReturned: number };
  estimated: {
    outputs: number;
    tokensIn: number;
    tokensOut: number;
    saved: number;
    events: number;
    expands: number;
    tokensReturned: number;
  };
  components: ComponentRow[];
  commands: CommandRow[];
  unmatched: UnmatchedRow[];
  daily: DayRow[];
  tokenizers: string[];
  ledger: LedgerInfo;
  capped: CappedTotals;
  hosts: HostRow[];
  recall: RecallRow[];
  discover: { commands: number; runs: number; tokens: number; rows: DiscoverRow[] };
  requests: RequestTotals;
  model: ModelTotals;
}

export function pct(part: number, whole: number): number | null {
  return whole > 0 ? Math.round((part / whole) * 1000) / 10 : null;
}

/** The totals of tokens in and out: saved is in − out, net also pays for what came back and the model. */
export function tokenTotals(tin: number, tout: number, returned: number, model: number): TokenTotals {
  const saved = tin - tout;
  const net = saved - returned - model;
  return {
    in: tin,
    out: tout,
    saved,
    savedPct: pct(saved, tin),
    returned,
    model,
    net,
    netPct: pct(net, tin),
  };
}

/** A row with what it saved: tokensIn − tokensOut, and that as a share of tokensIn. */
export function withSaved<R extends { tokensIn: number; tokensOut: number }>(
  r: R,
): R & { saved: number; savedPct: number | null } {
  return { ...r, saved: r.tokensIn - r.tokensOut, savedPct: pct(r.tokensIn - r.tokensOut, r.tokensIn) };
}

/** withSaved, and the same against what the row's host would have shown (cappedIn − cappedOut). */
export function withCappedSaved<
  R extends { tokensIn: number; tokensOut: number; cappedIn: number; cappedOut: number },
>(r: R): R & { saved: number; savedPct: number | null; cappedSaved: number; cappedSavedPct: number | null } {
  return {
    ...withSaved(r),
    cappedSaved: r.cappedIn - r.cappedOut,
    cappedSavedPct: pct(r.cappedIn - r.cappedOut, r.cappedIn),
  };
}

export function dayLabel(d: Date): string {
  const m = String(d.getMonth() + 1).padStart(2, '0');
  const day = String(d.getDate()).padStart(2, '0');
  return `${d.getFullYear()}-${m}-${day}`;
}
