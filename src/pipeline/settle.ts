/**
 * Settling one outcome of a component: judged (judge.ts), then kept — the original stashed first
 * for a lossy rewrite, a failed stash reverting it — or held back when it would change an output
 * already sent (flushed at the end of the run once the held rewrites are worth a batch), or
 * reported with why it was dropped. Every decision is one event.
 */
import { now } from '../clock.js';
import type { Component, Outcome } from '../component.js';
import { byteLength } from '../tokens.js';
import type { Guarded } from './component-calls.js';
import { base, type EventAction, type PipelineEvent } from './event.js';
import type { OpenGate } from './gates.js';
import { judge } from './judge.js';
import { emit, type Kept, type Run } from './run-state.js';
import type { Slot } from './slots.js';
import { stash } from './stash.js';

/** Judges one outcome, and keeps it (or holds it back, for an output already sent) or reports why not. */
export async function settle(
  run: Run,
  component: Component,
  slot: Slot,
  result: Guarded<Outcome>,
  started: number,
  gate: OpenGate,
): Promise<void> {
  const j = await judge(component, slot, result, {
    tokens: run.opts.tokens,
    template: run.template,
    keepFailureLines: gate.keepFailureLines,
  });
  if (j.kind === 'drop') {
    const { kind: _, action, reason, ...extra } = j;
    return report(run, component, slot, started, action, reason, extra);
  }
  if (slot.pinned && component.scope === 'transcript') {
    // Already sent: changing it now breaks the provider's cache from here on, so wait for a batch.
    slot.held = true;
    // Held without the original's bytes: a long session may hold many, and a flush re-encodes.
    const { bytes: _, ...light } = j;
    run.held.push({ component, slot, kept: light, started });
    return;
  }
  await commit(run, component, slot, j, started);
}

/** Stashes the original (a lossy rewrite), then puts the new text in place; a failed stash reverts. */
async function commit(
  run: Run,
  component: Component,
  slot: Slot,
  kept: Kept,
  started: number,
): Promise<void> {
  if (kept.key !== undefined) {
    const s = await stash(run.opts.store!, slot.original, kept.bytes ?? slot.output.bytes);
    if (!s.ok)
      return report(run, component, slot, started, 'revert', `could not stash the original (${s.why})`);
    run.markers.stashed(kept.key);
  }
  const before = slot.current;
  const bytesIn = byteLength(before);
  slot.current = kept.text;
  // A declarative filter is written for the usual output and cannot bound every one, so what it
  // kept may still be shortened by the later stages (fold, collapse) under the same marker — unless
  // it says its rewrite is final (cmdfilter: one within its max_tokens). What any other component
  // kept is final for this run.
  if (
    kept.tag !== undefined &&
    kept.outcome.final !== true &&
    component.scope === 'output' &&
    component.usesFilters === true
  )
    slot.tag = kept.tag;
  else delete slot.tag;
  if (component.scope === 'transcript' && kept.outcome.loss !== 'none') slot.final = true;
  report(run, component, slot, started, 'rewrite', undefined, {
    before,
    after: kept.text,
    bytesIn,
    bytesOut: byteLength(kept.text),
    loss: kept.outcome.loss,
    ...(kept.outcome.note ? { note: kept.outcome.note } : {}),
    ...(kept.key ? { key: kept.key } : {}),
  });
}

function report(
  run: Run,
  component: Component,
  slot: Slot,
  started: number,
  action: EventAction,
  reason: string | undefined,
  extra: Partial<PipelineEvent> = {},
): void {
  const bytes = byteLength(slot.current);
  emit(run, {
    ...base(component.name, slot.output.id, action, bytes, bytes, reason, slot.output),
    ms: now() - started,
    ...extra,
  });
}

/** Applies the held-back rewrites of pinned outputs when together they are worth a batch. */
export async function flushHeld(run: Run): Promise<void> {
  // Held rewrites of messages a summary replaced are moot: they are never sent.
  const held = run.held.filter((h) => !h.slot.gone);
  if (held.length === 0) return;
  const batch = run.opts.replay?.flushTokens ?? 0;
  let saved = 0;
  for (const h of held)
    saved += (await run.opts.tokens.count(h.slot.current)) - (await run.opts.tokens.count(h.kept.text));
  if (saved < batch) {
    const why = `held back until a batch is due (${saved} of ${batch} tokens pending)`;
    for (const h of held) {
      const bytes = byteLength(h.slot.current);
      emit(run, base(h.component.name, h.slot.output.id, 'skip', bytes, bytes, why, h.slot.output));
    }
    return;
  }
  for (const h of held) await commit(run, h.component, h.slot, h.kept, h.started);
}
