/**
 * Metering cg's own model calls, for the pipeline: one Meter per component call hands the
 * component a ModelAccess that forwards every complete() and adds what it cost to that call's
 * total. The component stays pure and does no bookkeeping; Charges puts the total on the first
 * event the call produced (or on a '*' skip of its own when it produced none), so it is counted
 * once, and every door that records events records the cost.
 *
 * What a request cost is what its server reported (llm/usage.ts); when it reported nothing, the
 * request and the reply are counted with the run's tokenizer and marked estimated. A request the
 * server refused or never answered costs nothing; one it answered with nothing usable
 * (`answered`) cost its input. Any ModelAccess is metered alike, a library caller's own included.
 */
import type { RunContext } from '../component.js';
import type { ModelAccess, ModelReply, ModelRequest } from '../llm/access.js';
import { addUsage, estimatedUsage, type ModelUsage, NO_USAGE } from '../llm/usage.js';
import type { Tokens } from '../tokens.js';
import { base, type PipelineEvent } from './event.js';

export interface Meter {
  /** The context to give the component: its model metered (the same ctx when it has none). */
  ctx: RunContext;
  /** What the calls made so far cost, or undefined while none cost anything. */
  usage(): ModelUsage | undefined;
}

const UNMETERED = (): undefined => undefined;

export function meter(ctx: RunContext, tokens: Tokens): Meter {
  const model = ctx.model;
  if (!model?.available) return { ctx, usage: UNMETERED };
  let total: ModelUsage | undefined;
  const metered: ModelAccess = {
    available: true,
    label: model.label,
    budgetMs: model.budgetMs,
    async complete(req) {
      const reply = await model.complete(req);
      const cost = await costOf(tokens, req, reply);
      if (cost) total = addUsage(total ?? NO_USAGE, cost);
      return reply;
    },
  };
  return { ctx: { ...ctx, model: metered }, usage: () => total };
}

/** One request's cost: as reported, else counted (estimated), else nothing (never answered). */
async function costOf(tokens: Tokens, req: ModelRequest, reply: ModelReply): Promise<ModelUsage | undefined> {
  if (reply.usage) return oneCall(reply.usage);
  if (reply.ok) return estimatedUsage(tokens, req, reply.text);
  if (reply.answered) return estimatedUsage(tokens, req, undefined);
  return undefined;
}

/** A reported usage as one call's, its numbers made whole and non-negative (a caller's may not be). */
function oneCall(u: ModelUsage): ModelUsage {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.round(v) : 0);
  return {
    calls: 1,
    in: n(u.in),
    out: n(u.out),
    cacheRead: n(u.cacheRead),
    cacheWrite: n(u.cacheWrite),
    estimated: n(u.estimated) > 0 ? 1 : 0,
  };
}

/** One component call's cost at a time, put on the first event of that component after it is known. */
export class Charges {
  private pending: { component: string; meter: Meter } | undefined;

  /** Gives e the pending cost when e is the charged component's and the cost is known. */
  attach(e: PipelineEvent): void {
    const c = this.pending;
    if (!c || c.component !== e.component) return;
    const usage = c.meter.usage();
    if (!usage) return;
    e.modelUsage = usage;
    this.pending = undefined;
  }

  /** Runs fn (which emits the call's events) with m's cost charged; emits a '*' skip for it if none took it. */
  async around(
    component: string,
    m: Meter,
    fn: () => Promise<void>,
    emit: (e: PipelineEvent) => void,
  ): Promise<void> {
    const mine = { component, meter: m };
    this.pending = mine;
    try {
      await fn();
    } finally {
      const usage = this.pending === mine ? m.usage() : undefined;
      this.pending = undefined;
      if (usage)
        emit({
          ...base(component, '*', 'skip', 0, 0, 'asked the model; no decision to report'),
          modelUsage: usage,
        });
    }
  }
}
