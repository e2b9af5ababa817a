/**
 * Per-request figures of `cg proxy`: one `req` ledger line per request it forwarded (line.ts), and
 * their totals in `cg stats --json` under `requests`. A request body is the whole conversation, so
 * its own figures say what a turn cost, which the per-output lines (one per tool output cg
 * rewrote) cannot:
 *
 *   recordRequest({ format, bytesIn, bytesOut, tokensIn?, tokensOut?, cacheStable?, modelTokensIn?,
 *                   modelTokensOut?, host?, session? })
 *
 * tokensIn/tokensOut are the body's tokens as received and as forwarded, counted by the caller (the
 * proxy keeps a counter per session); left out, they are estimated from bytes and the line says so.
 * cacheStable: the forwarded body kept every earlier turn byte-identical to the previous request of
 * the session, so the provider's prompt cache could hold. modelTokens*: what cg's own model calls
 * (summarize, model-written filters) took in and gave out for this request — spent to save, and
 * netted out of the saving. Never throws; one O_APPEND write, nothing pending.
 */
import { appendLines } from './ledger.js';
import { formatLine, type RequestLine } from './line.js';
import { ledgerLocation, statsEnabled } from './paths.js';
import { estimateTokens } from './pending.js';
import type { ScannedLine } from './scanned-line.js';

export interface RequestRecord {
  /** The body's format: anthropic, openai, responses. */
  format: string;
  bytesIn: number;
  bytesOut: number;
  tokensIn?: number;
  tokensOut?: number;
  cacheStable?: boolean;
  modelTokensIn?: number;
  modelTokensOut?: number;
  host?: string;
  session?: string;
  env?: NodeJS.ProcessEnv;
  now?: number;
}

let counter = 0;

export async function recordRequest(rec: RequestRecord): Promise<void> {
  try {
    const env = rec.env ?? process.env;
    if (!statsEnabled(env)) return;
    const t = rec.now ?? Date.now();
    const s = rec.session ?? (env.CG_SESSION || undefined);
    const estimated = rec.tokensIn === undefined || rec.tokensOut === undefined;
    const line: RequestLine = {
      t,
      r: `q${t.toString(36)}${process.pid.toString(36)}${(counter++).toString(36)}`,
      ...(estimated ? { est: 1 as const } : {}),
      ...(s ? { s } : {}),
      e: 'req',
      fmt: rec.format,
      ...(rec.host ? { h: rec.host } : {}),
      bi: rec.bytesIn,
      bo: rec.bytesOut,
      ti: rec.tokensIn ?? estimateTokens(rec.bytesIn),
      to: rec.tokensOut ?? estimateTokens(rec.bytesOut),
      ...(rec.cacheStable !== undefined ? { cs: rec.cacheStable ? 1 : 0 } : {}),
      ...(rec.modelTokensIn ? { mi: rec.modelTokensIn } : {}),
      ...(rec.modelTokensOut ? { mo: rec.modelTokensOut } : {}),
    };
    await appendLines(ledgerLocation(env), [formatLine(line)]);
  } catch {
    // Stats never break a request: a ledger that cannot be written loses this request's figures.
  }
}

export interface RequestTotals {
  count: number;
  /** Requests whose token figures are exact, and their tokens as received and as forwarded. */
  counted: number;
  tokensIn: number;
  tokensOut: number;
  saved: number;
  savedPct: number | null;
  /** Requests that said whether their earlier turns stayed byte-identical, and how many did. */
  cacheKnown: number;
  cacheStable: number;
  cacheStableRate: number | null;
  /** Tokens cg's own model calls took in and gave out, and the saving net of them. */
  modelTokensIn: number;
  modelTokensOut: number;
  net: number;
  /** Requests with estimated figures (bytes/4), not in the totals above. */
  estimated: number;
  estimatedTokensIn: number;
  estimatedTokensOut: number;
}

const pct = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1000) / 10 : null);

export class RequestTally {
  private readonly t = {
    count: 0,
    counted: 0,
    tokensIn: 0,
    tokensOut: 0,
    cacheKnown: 0,
    cacheStable: 0,
    modelTokensIn: 0,
    modelTokensOut: 0,
    estimated: 0,
    estimatedTokensIn: 0,
    estimatedTokensOut: 0,
  };
  add(l: ScannedLine): void {
    const t = this.t;
    t.count++;
    t.modelTokensIn += l.mi;
    t.modelTokensOut += l.mo;
    if (l.cs >= 0) {
      t.cacheKnown++;
      if (l.cs > 0) t.cacheStable++;
    }
    if (l.est) {
      t.estimated++;
      t.estimatedTokensIn += l.ti;
      t.estimatedTokensOut += l.to;
      return;
    }
    t.counted++;
    t.tokensIn += l.ti;
    t.tokensOut += l.to;
  }

  finish(): RequestTotals {
    const t = this.t;
    const saved = t.tokensIn - t.tokensOut;
    return {
      ...t,
      saved,
      savedPct: pct(saved, t.tokensIn),
      cacheStableRate: pct(t.cacheStable, t.cacheKnown),
      net: saved - t.modelTokensIn - t.modelTokensOut,
    };
  }
}
