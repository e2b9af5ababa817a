/**
 * One pipeline run's state, shared by its steps (run.ts opens it and runs the stages; settle.ts
 * judges and keeps what they return), and the one way an event leaves a run: emit, which puts the
 * model cost of the call that made it on it (model-meter.ts) and hands it to the caller.
 */
import type { Component, RunContext } from '../component.js';
import type { StructuralEdit, Transcript } from '../input/transcript.js';
import type { PipelineEvent } from './event.js';
import type { Gates } from './gates.js';
import type { Judgement } from './judge.js';
import type { Charges, Meter } from './model-meter.js';
import type { PipelineOptions } from './options.js';
import type { RealMarkers } from './real-markers.js';
import type { Partition } from './settled.js';
import type { Slot } from './slots.js';

export type Kept = Extract<Judgement, { kind: 'keep' }>;

/** A rewrite of a pinned output, waiting until the held-back rewrites are worth a batch. */
export interface Held {
  component: Component;
  slot: Slot;
  kept: Kept;
  started: number;
}

/** One run's state, shared by its steps. */
export interface Run {
  opts: PipelineOptions;
  t: Transcript;
  slots: Slot[];
  gates: Gates;
  held: Held[];
  edits: StructuralEdit[];
  events: PipelineEvent[];
  ctx: RunContext;
  /** ctx for a large tool error: only the filters proven to keep every failure line. */
  errorCtx: RunContext;
  template: string;
  canStash(): Promise<boolean>;
  /** Puts each component call's model cost on an event (model-meter.ts). */
  charges: Charges;
  /** The settled and live slots (settled.ts); dropped when a structural edit retires messages. */
  partition?: Partition | undefined;
  /** Output id → slot, made once per run (null: two outputs share an id, see slotsById). */
  byId?: Map<string, Slot> | null;
  /** Which marker keys are real: in the store or stashed by this run (the marker gate). */
  markers: RealMarkers;
}

export function emit(run: Run, e: PipelineEvent): void {
  run.charges.attach(e);
  run.events.push(e);
  run.opts.onEvent?.(e);
}

/** Runs fn, which emits the events of one component call, with that call's model cost charged. */
export function charged(run: Run, component: string, m: Meter, fn: () => Promise<void>): Promise<void> {
  return run.charges.around(component, m, fn, (e) => emit(run, e));
}
