/**
 * The pipeline: runs components in order over a transcript's tool outputs and owns every shared
 * gate of DESIGN §1, so no component re-implements them:
 *   - verbatim: non-rewritable outputs, tool errors and `cg expand` output are never touched;
 *   - marker-skip: a lossy component never sees an output that already carries a marker;
 *   - reversible: a lossy rewrite is kept only once the original is in the store (stash before the
 *     marker reaches any output); without a usable store lossy components are skipped;
 *   - never-worse: a rewrite is kept only when its tokens, marker and hint included, are strictly
 *     fewer than its input's (byte bounds first, the tokenizer only when they cannot decide);
 *   - fail-open: a component that throws, times out or breaks its contract is reverted alone.
 * Processing is sequential and ordered, so the same input and config give the same bytes.
 *
 * Replay (a session, src/session): an output already sent in an earlier turn is pinned to the text
 * sent then, so a provider's prompt cache keeps matching. Only a transcript-scope lossy component
 * (mask, dedup, failed_run, phi_evict) may still move it forward to a placeholder, and those moves
 * are held back until together they save a batch of tokens: old messages change rarely, all at once.
 * Transcript components may also ask for structural edits (a cache breakpoint, messages replaced by
 * a summary), which structural-edits.ts judges and stashes and the writer applies.
 */
import { type Component, MARKER_SLOT, type Outcome, type RunContext } from '../component.js';
import type { FilterSource } from '../dsl/types.js';
import { isCgExpand } from '../input/builder.js';
import type { StructuralEdit, ToolOutput, Transcript } from '../input/transcript.js';
import type { ModelAccess } from '../llm/access.js';
import type { SessionMemo } from '../session/memo.js';
import { keyOf } from '../store/keys.js';
import { DEFAULT_HINT, hasMarker, hint, marker } from '../store/marker.js';
import type { Store } from '../store/store.js';
import { byteLength, type Tokens } from '../tokens.js';
import {
  contractProblem,
  deadlineFor,
  type Guarded,
  guarded,
  limiter,
  safeApplies,
  safeConcurrency,
} from './component-calls.js';
import { base, type EventAction, type PipelineEvent } from './event.js';
import { fewerWithTag, tagBound } from './never-worse.js';
import { structuralEdits } from './structural-edits.js';

export interface Stage {
  component: Component;
  config: unknown;
}

export interface PipelineOptions {
  stages: readonly Stage[];
  /** null: lossless components only (--no-store, or a store that cannot be opened). */
  store: Store | null;
  tokens: Tokens;
  /** Hint template after the marker; {key} and {args} are filled in. */
  hintTemplate?: string;
  query?: string;
  lang?: string;
  filters?: FilterSource;
  /** Per-component deadline for asynchronous work. */
  timeoutMs?: number;
  /** Called once per decision, for --verbose. */
  onEvent?: (e: PipelineEvent) => void;
  /** What earlier runs of the same session sent, to be replayed byte for byte. */
  replay?: Replay;
  /** The model for model-assisted strategies, or why there is none. */
  model?: ModelAccess;
  /** Per-session state for components (a model's result, a summary checkpoint). */
  memo?: SessionMemo;
}

/** What an earlier run of the same session sent for one output. */
export interface Pin {
  text: string;
  /** A placeholder from a transcript-scope component (masked, deduped, superseded): frozen for good. */
  final: boolean;
}

export interface Replay {
  /** Output id → what was sent for it (only outputs whose original is unchanged). */
  pins: ReadonlyMap<string, Pin>;
  /** Held-back rewrites of pinned outputs apply once they save this many tokens together. */
  flushTokens: number;
}

export type { EventAction, PipelineEvent } from './event.js';

export interface PipelineResult {
  /** Output id → final text, only for outputs that changed. */
  rewrites: Map<string, string>;
  events: PipelineEvent[];
  /** Validated structural edits for the writer (e.g. a cache breakpoint). */
  edits: StructuralEdit[];
  /** Ids whose text is now a placeholder from a transcript-scope component (pinned finals included). */
  finals: Set<string>;
  /** Ids of outputs whose messages were replaced (by a summary): not sent at all. */
  gone: Set<string>;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** Whether an output must pass through untouched whatever the component (invariant 5). */
export function verbatimReason(o: ToolOutput): string | undefined {
  if (!o.rewritable) return 'verbatim content';
  if (o.isError) return 'tool error';
  if (isCgExpand(o.command)) return 'cg expand output';
  if (o.toolName === 'cg_expand') return 'cg expand output';
  return undefined;
}

interface Slot {
  output: ToolOutput;
  original: string;
  current: string;
  /** Sent in an earlier turn of a replayed session: current is what was sent. */
  pinned: boolean;
  final: boolean;
  /** A held-back rewrite is waiting for this slot: later stages leave it alone. */
  held: boolean;
  /** Its message was replaced by a summary: nothing more to decide. */
  gone: boolean;
}

interface Held {
  component: Component;
  slot: Slot;
  text: string;
  key: string | undefined;
  outcome: Extract<Outcome, { kind: 'rewrite' }>;
  started: number;
}

export async function runPipeline(t: Transcript, opts: PipelineOptions): Promise<PipelineResult> {
  const events: PipelineEvent[] = [];
  const emit = (e: PipelineEvent) => {
    events.push(e);
    opts.onEvent?.(e);
  };
  const slots = t.outputs.map((o): Slot => {
    const pin = opts.replay?.pins.get(o.id);
    // A verbatim output was sent verbatim; its pin can say nothing else.
    const current = pin && verbatimReason(o) === undefined ? pin.text : o.text;
    return {
      output: o,
      original: o.text,
      current,
      pinned: !!pin,
      final: !!pin?.final,
      held: false,
      gone: false,
    };
  });
  const held: Held[] = [];
  const edits: StructuralEdit[] = [];
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
  const template = opts.hintTemplate ?? DEFAULT_HINT;
  const defaultTimeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let storeUsable: boolean | undefined;
  const canStash = async () => {
    if (storeUsable === undefined) storeUsable = opts.store ? await opts.store.writable() : false;
    return storeUsable;
  };

  for (const { component, config } of opts.stages) {
    const timeoutMs = deadlineFor(component, config, ctx, defaultTimeoutMs);
    if (component.lossy && !opts.store) {
      emit(base(component.name, '*', 'skip', 0, 0, 'no store: lossy components are off'));
      continue;
    }
    // A lossy component's edits (a summary) are not even asked for when nothing could be stashed.
    if (component.scope === 'transcript' && component.edits && (!component.lossy || (await canStash())))
      await structuralEdits(component, config, {
        t,
        ctx,
        slots,
        edits,
        emit,
        canStash,
        store: opts.store,
        tokens: opts.tokens,
        template,
        timeoutMs: deadlineFor(component, config, ctx, defaultTimeoutMs),
      });
    let replayed = 0;
    const eligible = slots.filter((s) => {
      // A pinned output stays as sent, except that a transcript-scope lossy component may still move
      // it forward; its marker gate then looks at the original (cg's own marker is no reason to stop).
      const mayMove = s.pinned && !s.final && component.scope === 'transcript' && component.lossy;
      if (s.gone) return false;
      if (s.held || (s.pinned && !mayMove)) {
        if (s.pinned) replayed++;
        return false;
      }
      const why =
        verbatimReason(s.output) ??
        (component.lossy && hasMarker(mayMove ? s.original : s.current) ? 'already has a marker' : undefined);
      if (why) emit(base(component.name, s.output.id, 'skip', byteLength(s.current), 0, why, s.output));
      return !why;
    });
    // One event for all replayed outputs: a long session would otherwise log hundreds per stage.
    if (replayed > 0) emit(base(component.name, '*', 'skip', 0, 0, `${replayed} outputs replayed as sent`));
    if (eligible.length === 0) continue;
    if (component.lossy && !(await canStash())) {
      emit(base(component.name, '*', 'skip', 0, 0, 'store not writable: lossy components are off'));
      continue;
    }

    if (component.scope === 'output') {
      const runs: { slot: Slot; started: number; run: () => Promise<Guarded<Outcome>> }[] = [];
      for (const slot of eligible) {
        const view = { ...slot.output, text: slot.current };
        if (component.applies && !safeApplies(component, view, config)) {
          const bytes = byteLength(slot.current);
          emit(base(component.name, slot.output.id, 'skip', bytes, 0, 'does not apply', slot.output));
          continue;
        }
        runs.push({
          slot,
          started: 0,
          run: () => guarded(() => component.run(view, config, ctx), timeoutMs),
        });
      }
      // Each run reads only its own output, so runs may overlap (a component waiting on a model says
      // how many); outcomes are still settled one by one in document order. One at a time, each is
      // settled before the next starts, so at most one rewritten text waits in memory.
      const width = safeConcurrency(component, config);
      const limit = limiter(width);
      const start = (r: (typeof runs)[number]) =>
        limit(() => {
          r.started = performance.now();
          return r.run();
        });
      const outcomes = width > 1 ? runs.map(start) : [];
      for (const [i, r] of runs.entries())
        await settle(component, r.slot, await (outcomes[i] ?? start(r)), r.started);
    } else {
      const started = performance.now();
      const views = slots.filter((s) => !s.gone).map((s) => ({ ...s.output, text: s.current }));
      const result = await guarded(() => component.run(views, config, ctx), timeoutMs);
      if (result.kind === 'error') {
        emit(base(component.name, '*', 'fail', 0, 0, result.message));
        continue;
      }
      if (!(result.value instanceof Map)) {
        emit(base(component.name, '*', 'fail', 0, 0, 'returned something other than a Map of outcomes'));
        continue;
      }
      const byId = new Map(eligible.map((s) => [s.output.id, s]));
      const known = new Set(slots.map((s) => s.output.id));
      for (const [id, outcome] of result.value) {
        const slot = byId.get(id);
        if (!slot) {
          // Components propose for any output; an ineligible one was already reported with its gate.
          if (!known.has(id)) emit(base(component.name, id, 'revert', 0, 0, 'outcome for an unknown output'));
          continue;
        }
        await settle(component, slot, { kind: 'ok', value: outcome }, started);
      }
    }
  }
  await flushHeld();

  const rewrites = new Map<string, string>();
  const finals = new Set<string>();
  const gone = new Set<string>();
  for (const s of slots) {
    if (s.gone) gone.add(s.output.id);
    else if (s.current !== s.original) rewrites.set(s.output.id, s.current);
    if (s.final) finals.add(s.output.id);
  }
  return { rewrites, events, edits, finals, gone };

  /** Applies the held-back rewrites of pinned outputs when together they are worth a batch. */
  async function flushHeld() {
    // Held rewrites of messages a summary replaced are moot: they are never sent.
    for (let i = held.length - 1; i >= 0; i--) if (held[i]!.slot.gone) held.splice(i, 1);
    if (held.length === 0) return;
    const batch = opts.replay?.flushTokens ?? 0;
    let saved = 0;
    for (const h of held)
      saved += (await opts.tokens.count(h.slot.current)) - (await opts.tokens.count(h.text));
    if (saved < batch) {
      const why = `held back until a batch is due (${saved} of ${batch} tokens pending)`;
      for (const h of held) {
        const bytes = byteLength(h.slot.current);
        emit(base(h.component.name, h.slot.output.id, 'skip', bytes, bytes, why, h.slot.output));
      }
      return;
    }
    for (const h of held) await commit(h.component, h.slot, h.text, h.key, h.outcome, h.started);
  }

  async function settle(component: Component, slot: Slot, result: Guarded<Outcome>, started: number) {
    const id = slot.output.id;
    const bytesIn = byteLength(slot.current);
    const elapsed = () => performance.now() - started;
    const report = (action: EventAction, reason: string | undefined, extra: Partial<PipelineEvent> = {}) =>
      emit({
        ...base(component.name, id, action, bytesIn, bytesIn, reason, slot.output),
        ms: elapsed(),
        ...extra,
      });

    if (result.kind === 'error') return report('fail', result.message);
    const outcome = result.value;
    const problem = contractProblem(component, outcome, slot.current);
    if (problem) return report('fail', problem);
    if (outcome.kind === 'skip') return report('skip', outcome.gate);

    let text = outcome.text;
    let key: string | undefined;
    if (outcome.loss === 'none') {
      if (text === slot.current) return report('skip', 'no change');
      if (!(await opts.tokens.fewer(text, slot.current))) {
        return report('revert', 'not fewer tokens than its input', {
          bytesOut: byteLength(text),
          note: outcome.note,
        });
      }
    } else {
      // Decided before the key is known, with the marker's worst case: the same component input then
      // gets the same decision whatever original it came from, which keeps cg(cg(x)) == cg(x).
      const bare = text.includes(MARKER_SLOT) ? text.replace(MARKER_SLOT, '') : appendLine(text, '');
      const bound = tagBound(template, outcome.expandArgs);
      if (!(await fewerWithTag(opts.tokens, bare, bound, slot.current))) {
        return report('revert', 'not fewer tokens than its input', {
          bytesOut: byteLength(bare),
          note: outcome.note,
        });
      }
      key = keyOf(slot.output.bytes ?? slot.original);
      const tag = marker(key) + hint(template, key, outcome.expandArgs);
      text = text.includes(MARKER_SLOT) ? text.replace(MARKER_SLOT, () => tag) : appendLine(text, tag);
    }
    if (slot.pinned && component.scope === 'transcript') {
      // Already sent: changing it now breaks the provider's cache from here on, so wait for a batch.
      slot.held = true;
      held.push({ component, slot, text, key, outcome, started });
      return;
    }
    await commit(component, slot, text, key, outcome, started);
  }

  async function commit(
    component: Component,
    slot: Slot,
    text: string,
    key: string | undefined,
    outcome: Extract<Outcome, { kind: 'rewrite' }>,
    started: number,
  ) {
    const bytesIn = byteLength(slot.current);
    const report = (action: EventAction, reason: string | undefined, extra: Partial<PipelineEvent> = {}) =>
      emit({
        ...base(component.name, slot.output.id, action, bytesIn, bytesIn, reason, slot.output),
        ms: performance.now() - started,
        ...extra,
      });
    if (key !== undefined) {
      // Stash before the marker can reach any output; a failed stash reverts this rewrite only.
      const put = await opts.store!.put(slot.original, slot.output.bytes);
      if (!put.ok) {
        return report(
          'revert',
          `could not stash the original (${put.reason}${put.detail ? `: ${put.detail}` : ''})`,
        );
      }
    }
    const before = slot.current;
    slot.current = text;
    if (component.scope === 'transcript' && outcome.loss !== 'none') slot.final = true;
    report('rewrite', undefined, {
      before,
      after: text,
      bytesOut: byteLength(text),
      loss: outcome.loss,
      ...(outcome.note ? { note: outcome.note } : {}),
      ...(key ? { key } : {}),
    });
  }
}

/** Appends the marker on a line of its own, keeping a trailing newline where there was one. */
function appendLine(text: string, tag: string): string {
  if (text.length === 0) return tag;
  return text.endsWith('\n') ? `${text}${tag}\n` : `${text}\n${tag}`;
}
