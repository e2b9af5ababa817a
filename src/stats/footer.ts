/**
 * The one-line footer `cg run` (and a piped run whose output is a terminal) prints after the output:
 *
 *   cg: 12,345 → 1,234 tokens (−90%) · cg expand 0123456789abcdef
 *
 * countRun makes the exact counts the footer shows, with the run's own token counter (its cache
 * already holds what the pipeline counted), within a byte budget so a terminal never waits seconds:
 * texts past the budget are estimated and the footer says so (≈ … estimated). Pass the result to
 * recordCompaction as `counts` and the ledger gets the very same numbers without deferring them.
 */
import type { PipelineEvent } from '../pipeline/run.js';
import type { Tokens } from '../tokens.js';
import { estimateTokens } from './pending.js';
import { summarizeRun } from './runs.js';

export interface RunCounts {
  /** Tokens of the rewritten outputs before cg touched them, and as cg wrote them. */
  tokensIn: number;
  tokensOut: number;
  /** Whether any figure above is an estimate (bytes/4) rather than a count. */
  estimate: boolean;
  /** Marker keys of the run, in output order. */
  keys: string[];
  /** Exact counts made, by text: recordCompaction uses them instead of deferring. */
  counted: ReadonlyMap<string, number>;
}

/** Default budget: ~0.25 s of counting at the tokenizer's ~8 MB/s. */
export const FOOTER_COUNT_BYTES = 2 * 1024 * 1024;

/** Exact counts for the run's rewritten outputs, or undefined when nothing was rewritten. */
export async function countRun(
  events: readonly PipelineEvent[],
  tokens: Tokens,
  opts: { maxBytes?: number } = {},
): Promise<RunCounts | undefined> {
  try {
    const run = summarizeRun(events);
    if (run.rewritten.length === 0) return undefined;
    let budget = opts.maxBytes ?? FOOTER_COUNT_BYTES;
    const counted = new Map<string, number>();
    const count = async (text: string | undefined, bytes: number): Promise<number | undefined> => {
      if (text === undefined) return undefined;
      const known = counted.get(text);
      if (known !== undefined) return known;
      if (bytes > budget) return undefined;
      budget -= bytes;
      const n = await tokens.count(text);
      counted.set(text, n);
      return n;
    };
    let tokensIn = 0;
    let tokensOut = 0;
    let estimate = false;
    const keys: string[] = [];
    for (const o of run.rewritten) {
      const tin = await count(o.original, o.bytesIn);
      const tout = await count(o.final, o.bytesOut);
      if (tin === undefined || tout === undefined) estimate = true;
      tokensIn += tin ?? estimateTokens(o.bytesIn);
      tokensOut += tout ?? estimateTokens(o.bytesOut);
      if (o.key) keys.push(o.key);
    }
    // Intermediate texts (one component's output feeding the next) too, while the budget lasts, so
    // the per-component figures need no deferred count either.
    for (const o of run.rewritten) {
      for (const e of o.rewrites) {
        await count(e.before, e.bytesIn);
        await count(e.after, e.bytesOut);
      }
    }
    return { tokensIn, tokensOut, estimate, keys, counted };
  } catch {
    return undefined;
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export function footerLine(counts: RunCounts): string {
  const { tokensIn, tokensOut, estimate, keys } = counts;
  const pct = tokensIn > 0 ? Math.round(((tokensIn - tokensOut) / tokensIn) * 100) : 0;
  const sign = pct >= 0 ? '−' : '+';
  const approx = estimate ? '≈' : '';
  const more = keys.length > 1 ? ` (+${keys.length - 1} more)` : '';
  const expand = keys.length > 0 ? ` · cg expand ${keys[0]}${more}` : '';
  return `cg: ${approx}${fmt(tokensIn)} → ${approx}${fmt(tokensOut)} tokens (${sign}${Math.abs(pct)}%${estimate ? ', estimated' : ''})${expand}`;
}
