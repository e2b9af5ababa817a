/**
 * cg's own model calls in the ledger and in `cg stats`: the fields an ev line gets from an event's
 * modelUsage (record.ts), their sum over one run's events (what recordRequest records for a proxy
 * request), and the tally behind the report's `model` key. Those tokens are spent to save, so every
 * net figure subtracts them — input and output alike (a token is counted as a token, whatever the
 * model's price; cg's model is usually a cheaper one, so this errs against cg). Calls whose server
 * reported no usage were counted by cg with the run's tokenizer: they are in the totals too (better
 * to understate a saving than to overstate it), and estimatedCalls says how many.
 */
import { addUsage, type ModelUsage, NO_USAGE } from '../llm/usage.js';
import type { PipelineEvent } from '../pipeline/event.js';
import type { EvLine } from './line.js';
import type { ScannedLine } from './scanned-line.js';

export interface ModelTotals {
  calls: number;
  tokensIn: number;
  tokensOut: number;
  /** tokensIn + tokensOut: what the net figures subtract. */
  tokens: number;
  /** Of tokensIn: read from the provider's prompt cache, and written to it. */
  cacheRead: number;
  cacheWrite: number;
  /** Calls whose server reported no usage, counted by cg with the run's tokenizer. */
  estimatedCalls: number;
}

type ModelFields = Pick<EvLine, 'mc' | 'mi' | 'mo' | 'mr' | 'mw' | 'me'>;

/** An event's model cost as ledger fields (zeros left out, except the call count and tokens). */
export function modelFields(u: ModelUsage): ModelFields {
  return {
    mc: u.calls,
    mi: u.in,
    mo: u.out,
    ...(u.cacheRead > 0 ? { mr: u.cacheRead } : {}),
    ...(u.cacheWrite > 0 ? { mw: u.cacheWrite } : {}),
    ...(u.estimated > 0 ? { me: u.estimated } : {}),
  };
}

/** What a run's model calls cost in all, or undefined when it made none that cost anything. */
export function modelUsageOf(events: readonly PipelineEvent[]): ModelUsage | undefined {
  let total: ModelUsage | undefined;
  for (const e of events) if (e.modelUsage) total = addUsage(total ?? NO_USAGE, e.modelUsage);
  return total;
}

export class ModelTally {
  private calls = 0;
  private tokensIn = 0;
  private tokensOut = 0;
  private cacheRead = 0;
  private cacheWrite = 0;
  private estimatedCalls = 0;

  /** An ev line that carries model calls (mc > 0). */
  add(l: ScannedLine): void {
    this.calls += l.mc;
    this.tokensIn += l.mi;
    this.tokensOut += l.mo;
    this.cacheRead += l.mr;
    this.cacheWrite += l.mw;
    this.estimatedCalls += l.me;
  }

  finish(): ModelTotals {
    return {
      calls: this.calls,
      tokensIn: this.tokensIn,
      tokensOut: this.tokensOut,
      tokens: this.tokensIn + this.tokensOut,
      cacheRead: this.cacheRead,
      cacheWrite: this.cacheWrite,
      estimatedCalls: this.estimatedCalls,
    };
  }
}
