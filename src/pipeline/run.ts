/**
 * The pipeline: runs components in order over a transcript's tool outputs and owns every shared
 * gate of DESIGN §1, so no component re-implements them:
 *   - the gates (gates.ts): what may change at all, and how — verbatim content, tool errors, markers,
 *     replayed outputs; components only ever act on what they allow;
 *   - reversible: a lossy rewrite is kept only once the original is in the store (stash before the
 *     marker reaches any output); without a usable store lossy components are skipped;
 *   - lossless claims checked (lossless.ts): a rewrite reported as loss 'none' is proven or reverted;
 *   - never-worse: a rewrite is kept only when its tokens, marker and hint included, are strictly
 *     fewer than its input's (byte bounds first, the tokenizer only when they cannot decide);
 *   - fail-open: a component that throws, times out or breaks its contract is reverted alone.
 * Processing is sequential and ordered, so the same input and config give the same bytes.
 *
 * A run is a few named steps over one state (Run, run-state.ts): open the slots, then per stage:
 * the store gate, structural edits, the gates per output, the component's runs, and judging and
 * keeping each outcome (settle.ts, judge.ts); at the end, the held-back rewrites of a replayed
 * session are flushed when they are worth a batch. (A session's pins are backed by the store before
 * a run: replay.ts.)
 *
 * Replay (a session, src/session): an output already sent in an earlier turn is pinned to the text
 * sent then, so a provider's prompt cache keeps matching. Only a transcript-scope lossy component
 * (mask, dedup, failed_run, phi_evict) may still move it forward to a placeholder, and those moves
 * are held back until together they save a batch of tokens: old messages change rarely, all at once.
 * Transcript components may also ask for structural edits (a cache breakpoint, messages replaced by
 * a summary), which structural-edits.ts judges and stashes and the writer applies.
 *
 * Every component call is metered (model-meter.ts): what its model calls cost goes on the first
 * event that call produced, or on a '*' skip of its own when it produced none.
 */

import { now } from '../clock.js';
import type {
  Candidate,
  Component,
  Outcome,
  OutputComponent,
  OutputView,
  RunContext,
  TranscriptComponent,
} from '../component.js';
import type { ToolOutput, Transcript } from '../input/transcript.js';
import { DEFAULT_HINT } from '../store/marker.js';
import { byteLength } from '../tokens.js';
import {
  deadlineFor,
  type Guarded,
  guarded,
  limiter,
  safeApplies,
  safeConcurrency,
} from './component-calls.js';
import { base } from './event.js';
import { failureKeepingFilters, type Gate, gatesFor, type OpenGate, storeGate } from './gates.js';
import { capToHost } from './host-cap.js';
import { Charges, type Meter, meter } from './model-meter.js';
import type { PipelineOptions, PipelineResult, Stage } from './options.js';
import { RealMarkers } from './real-markers.js';
import { charged, emit, type Run } from './run-state.js';
import { flushHeld, settle } from './settle.js';
import { moverFloor, type Partition, partition, settleUnderFloor } from './settled.js';
import { contentOf, openSlots, type Slot } from './slots.js';
import { structuralEdits } from './structural-edits.js';

export type { EventAction, PipelineEvent } from './event.js';
export type { PipelineOptions, PipelineResult, Replay, Stage } from './options.js';
export type { Pin } from './slots.js';

const DEFAULT_TIMEOUT_MS = 30_000;

export async function runPipeline(t: Transcript, opts: PipelineOptions): Promise<PipelineResult> {
  try {
    const run = startRun(t, opts);
    await settleUnderFloor(run.slots, moverFloor(opts.stages), opts.tokens);
    for (const stage of opts.stages) await runStage(run, stage);
    await flushHeld(run);
    if (opts.host) await capToHost(run, opts.host);
    return resultOf(run);
  } finally {
    opts.tokens.endRun?.();
  }
}

function startRun(t: Transcript, opts: PipelineOptions): Run {
  const ctx: RunContext = {
    tokens: opts.tokens,
    format: t.format,
    messages: t.messages,
    ...(t.cacheBreakpoints !== undefined ? { cacheBreakpoints: t.cacheBreakpoints } : {}),
    ...(t.system !== undefined ? { system: t.system } : {}),
    ...(opts.query !== undefined ? { query: opts.query } : {}),
    ...(opts.lang !== undefined ? { lang: opts.lang } : {}),
    ...(opts.filters !== undefined ? { filters: opts.filters } : {}),
    ...(opts.model !== undefined ? { model: opts.model } : {}),
    ...(opts.memo !== undefined ? { memo: opts.memo } : {}),
  };
  const { filters } = opts;
  const errorCtx: RunContext = filters ? { ...ctx, filters: failureKeepingFilters(filters) } : ctx;
  let storeUsable: boolean | undefined;
  return {
    opts,
    t,
    slots: openSlots(t.outputs, opts.replay?.pins, opts.replay?.keyAt),
    gates: gatesFor(t.outputs),
    held: [],
    edits: [],
    events: [],
    ctx,
    errorCtx,
    template: opts.hintTemplate ?? DEFAULT_HINT,
    charges: new Charges(),
    markers: new RealMarkers(opts.store ?? undefined),
    async canStash() {
      storeUsable ??= opts.store ? await opts.store.writable() : false;
      return storeUsable;
    },
  };
}

async function runStage(run: Run, { component, config }: Stage): Promise<void> {
  const offline = storeGate(component, run.opts.store ? 'usable' : 'none');
  if (offline) return emit(run, base(component.name, '*', 'skip', 0, 0, offline));
  const timeoutMs = deadlineFor(component, config, run.ctx, run.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  // A lossy component's edits (a summary) are not even asked for when nothing could be stashed.
  if (component.scope === 'transcript' && component.edits && (!component.lossy || (await run.canStash()))) {
    const m = meter(run.ctx, run.opts.tokens);
    await charged(run, component.name, m, () =>
      structuralEdits(component, config, {
        t: run.t,
        ctx: m.ctx,
        slots: run.slots,
        edits: run.edits,
        retired: () => {
          run.partition = undefined;
        },
        emit: (e) => emit(run, e),
        canStash: run.canStash,
        store: run.opts.store,
        tokens: run.opts.tokens,
        template: run.template,
        timeoutMs,
      }),
    );
  }
  const open = await gateStage(run, component);
  if (open.size === 0) return;
  const unwritable = component.lossy && !(await run.canStash()) && storeGate(component, 'unwritable');
  if (unwritable) return emit(run, base(component.name, '*', 'skip', 0, 0, unwritable));
  if (component.scope === 'output') await runOutputStage(run, component, config, open, timeoutMs);
  else await runTranscriptStage(run, component, config, open, timeoutMs);
}

/** The gates for every output: the open ones, each with how it may change; the closed ones reported. */
async function gateStage(run: Run, component: Component): Promise<Map<Slot, OpenGate>> {
  // The settled slots are replayed as sent for every component (settled.ts): counted, not visited.
  const { live, settled } = partitionOf(run);
  let replayed = settled;
  // Each visited slot's gate in slot order; one closed only for marker-shaped text is decided once
  // the store has said whether any of its markers is real (one batch for the stage).
  const gates: [Slot, Gate][] = [];
  const marked: Extract<Gate, { open: false }>[] = [];
  // What the gates answer for an output sent in an earlier turn, without asking them output by
  // output (a long session has thousands): it stays as sent, unless a lossy transcript component
  // may still move it forward (not yet final, nothing held for it).
  const movers = component.scope === 'transcript' && component.lossy;
  for (const slot of live) {
    if (slot.pinned && !slot.gone && (!movers || slot.final || slot.held)) {
      replayed++;
      continue;
    }
    const g = run.gates.gate(component, slot);
    if (!g.open && g.report === 'count') replayed++;
    else gates.push([slot, g]);
    if (!g.open && g.markerKeys) marked.push(g);
  }
  const real = marked.length > 0 ? await run.markers.anyReal(marked.map((g) => g.markerKeys ?? [])) : [];
  const unreal = new Set(marked.filter((_, i) => !real[i]));
  const open = new Map<Slot, OpenGate>();
  for (const [slot, g] of gates) {
    if (g.open) open.set(slot, g);
    else if (g.unless && unreal.has(g)) open.set(slot, g.unless);
    else if (g.report === 'each')
      emit(
        run,
        base(component.name, slot.output.id, 'skip', byteLength(slot.current), 0, g.why, slot.output),
      );
  }
  // One event for all replayed outputs: a long session would otherwise log hundreds per stage.
  if (replayed > 0)
    emit(run, base(component.name, '*', 'skip', 0, 0, `${replayed} outputs replayed as sent`));
  return open;
}

/** What a component sees of an output: the gates' inputs (isError, rewritable) are not its business. */
function viewOf(o: ToolOutput, text: string): OutputView {
  const v: OutputView = { id: o.id, text, messageIndex: o.messageIndex };
  if (o.toolName !== undefined) v.toolName = o.toolName;
  if (o.command !== undefined) v.command = o.command;
  if (o.path !== undefined) v.path = o.path;
  if (o.bytes !== undefined) v.bytes = o.bytes;
  return v;
}

/**
 * viewOf for a transcript stage, made whole at once: a field added to an object after it is made
 * goes to a property array of its own, one more heap object per candidate (they are kept from turn
 * to turn: 20,000 in a 20 k session). A fact the output lacks reads undefined, as before.
 */
function candidateView(o: ToolOutput, text: string): Candidate {
  return {
    id: o.id,
    text,
    messageIndex: o.messageIndex,
    toolName: o.toolName,
    command: o.command,
    path: o.path,
    bytes: o.bytes,
    mayChange: false,
    settled: undefined,
  };
}

/**
 * Candidates made once per output and text, and re-used by every transcript stage and later turns
 * (a long session's outputs are the same objects from turn to turn, src/proxy/turn/carried.ts): a
 * component never changes what it is given.
 */
const candidates = new WeakMap<ToolOutput, Candidate>();

function candidateOf(s: Slot, text: string, mayChange: boolean): Candidate {
  // The slot remembers it for the run's later stages: one WeakMap look-up per output and run.
  let c = s.candidate ?? candidates.get(s.output);
  if (c?.text !== text) {
    c = candidateView(s.output, text);
    candidates.set(s.output, c);
  }
  s.candidate = c;
  c.mayChange = mayChange;
  c.settled = s.pinned && s.final ? true : undefined;
  return c;
}

async function runOutputStage(
  run: Run,
  component: OutputComponent,
  config: unknown,
  open: ReadonlyMap<Slot, OpenGate>,
  timeoutMs: number,
): Promise<void> {
  const runs: {
    slot: Slot;
    gate: OpenGate;
    started: number;
    meter: Meter;
    call: () => Promise<Guarded<Outcome>>;
  }[] = [];
  for (const [slot, gate] of open) {
    // A lossy component sees the text without this run's own marker (slots.ts: contentOf).
    const view = viewOf(slot.output, component.lossy ? contentOf(slot) : slot.current);
    if (component.applies && !safeApplies(component, view, config)) {
      const bytes = byteLength(slot.current);
      emit(run, base(component.name, slot.output.id, 'skip', bytes, 0, 'does not apply', slot.output));
      continue;
    }
    const m = meter(gate.keepFailureLines ? run.errorCtx : run.ctx, run.opts.tokens);
    runs.push({
      slot,
      gate,
      started: 0,
      meter: m,
      call: () => guarded(() => component.run(view, config, m.ctx), timeoutMs),
    });
  }
  // Each run reads only its own output, so runs may overlap (a component waiting on a model says
  // how many); outcomes are still settled one by one in document order. One at a time, each is
  // settled before the next starts, so at most one rewritten text waits in memory.
  const width = safeConcurrency(component, config);
  const limit = limiter(width);
  const start = (r: (typeof runs)[number]) =>
    limit(() => {
      r.started = now();
      return r.call();
    });
  const outcomes = width > 1 ? runs.map(start) : [];
  for (const [i, r] of runs.entries()) {
    const result = await (outcomes[i] ?? start(r));
    await charged(run, component.name, r.meter, () =>
      settle(run, component, r.slot, result, r.started, r.gate),
    );
  }
}

async function runTranscriptStage(
  run: Run,
  component: TranscriptComponent,
  config: unknown,
  open: ReadonlyMap<Slot, OpenGate>,
  timeoutMs: number,
): Promise<void> {
  const started = now();
  // Every slot still in the body, in order: the settled ones' candidates as the partition holds
  // them, the live ones' made for this stage.
  const part = partitionOf(run);
  const candidates = part.candidates.slice();
  for (let i = 0; i < part.live.length; i++) {
    const s = part.live[i]!;
    candidates[part.at[i]!] = candidateOf(s, component.lossy ? contentOf(s) : s.current, open.has(s));
  }
  const m = meter(run.ctx, run.opts.tokens);
  const result = await guarded(() => component.run(candidates, config, m.ctx), timeoutMs);
  await charged(run, component.name, m, () => settleTranscript(run, component, result, open, started));
}

/** Every outcome of a transcript component's run, each judged and kept or reported. */
async function settleTranscript(
  run: Run,
  component: TranscriptComponent,
  result: Guarded<Map<string, Outcome>>,
  open: ReadonlyMap<Slot, OpenGate>,
  started: number,
): Promise<void> {
  if (result.kind === 'error') return emit(run, base(component.name, '*', 'fail', 0, 0, result.message));
  if (!(result.value instanceof Map))
    return emit(
      run,
      base(component.name, '*', 'fail', 0, 0, 'returned something other than a Map of outcomes'),
    );
  const target = targetsOf(open);
  for (const [id, outcome] of result.value) {
    const t = target(id);
    if (!t) {
      // An outcome for an output the gates closed changes nothing: it was reported with its gate.
      if (!slotsById(run).has(id))
        emit(run, base(component.name, id, 'revert', 0, 0, 'outcome for an unknown output'));
      continue;
    }
    await settle(run, component, t.slot, { kind: 'ok', value: outcome }, started, t.gate);
  }
}

/** The run's settled and live slots (settled.ts), made once and again after messages are retired. */
function partitionOf(run: Run): Partition {
  run.partition ??= partition(run.slots, (s) => candidateOf(s, s.current, false));
  return run.partition;
}

/** Every slot by its output's id, made once per run (a long session has thousands, every stage asks). */
function slotsById(run: Run): Map<string, Slot> {
  if (run.byId === undefined) {
    const byId = new Map<string, Slot>();
    for (const s of run.slots) byId.set(s.output.id, s);
    run.byId = byId.size === run.slots.length ? byId : null;
  }
  return run.byId ?? new Map(run.slots.map((s) => [s.output.id, s]));
}

/**
 * The open slot an outcome's id names, with its gate (of two slots with one id, the last open one).
 * Made from the open slots alone: a long session's stage opens a few of its thousands.
 */
function targetsOf(
  open: ReadonlyMap<Slot, OpenGate>,
): (id: string) => { slot: Slot; gate: OpenGate } | undefined {
  const byId = new Map<string, { slot: Slot; gate: OpenGate }>();
  for (const [slot, gate] of open) byId.set(slot.output.id, { slot, gate });
  return (id) => byId.get(id);
}

function resultOf(run: Run): PipelineResult {
  const rewrites = new Map<string, string>();
  const rewrittenAt: (string | undefined)[] = new Array(run.slots.length);
  const finals = new Set<string>();
  const gone = new Set<string>();
  for (let i = 0; i < run.slots.length; i++) {
    const s = run.slots[i]!;
    if (s.final) finals.add(s.output.id);
    if (s.gone) {
      gone.add(s.output.id);
      continue;
    }
    // Still as its pin says, where the session knows whether that was a rewrite: no need to read
    // the original to compare.
    const asPinned = s.pin?.rewritten !== undefined && s.current === s.pin.text;
    if (asPinned ? s.pin!.rewritten : s.current !== s.original) {
      rewrites.set(s.output.id, s.current);
      rewrittenAt[i] = s.current;
    }
  }
  return { rewrites, rewrittenAt, events: run.events, edits: run.edits, finals, gone };
}
