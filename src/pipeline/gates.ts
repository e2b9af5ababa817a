/**
 * The gates: the one place that answers "may this output change, and how?" (DESIGN §1). The
 * pipeline asks before any component runs, and a component only ever acts on what the answer
 * allows — an output component is never called on a closed output, a transcript component's outcome
 * for one is dropped — so no component checks an error flag, a marker or a replay state itself.
 *
 * For a component and an output, in this order:
 *   gone      its messages were replaced by a summary: nothing more to decide (not reported);
 *   replayed  sent in an earlier turn of a session, or waiting on a held-back rewrite: it stays as
 *             sent, except that a transcript-scope lossy component may still move an output that is
 *             not yet a final placeholder forward (reported as one count per stage);
 *   verbatim  not well-formed text, or `cg expand` output (what a marker stood for; verbatim.ts);
 *   errors    a tool error (the host's flag, or a non-zero exit code in the text) stays verbatim
 *             where it matters: a short error and the newest run of a command are never folded.
 *             A large superseded failing run (the same command ran again later) may be folded by a
 *             transcript-scope lossy component; any large error may be shortened by a component that
 *             works through declarative filters, given only the filters proven to keep every
 *             failure line, and its rewrite must keep them all;
 *   marker    a lossy component never offloads text that already carries a real marker — one whose
 *             key is in the store or was stashed by this run (for an output moving forward from
 *             what was sent: the original's markers, not cg's own; for an output an earlier stage
 *             of this run shortened: any marker but that stage's own). Marker-shaped text that
 *             resolves nowhere (a diff of cg's own tests, a log quoting a marker) is ordinary text:
 *             the gate closes with the keys it saw (`markerKeys`), and the pipeline, which can ask
 *             the store, opens it again with `unless` when none of them is there (run.ts).
 * And for a component as a whole: lossy components are off without a store that can persist.
 */
import type { Component } from '../component.js';
import { provenToKeepFailures } from '../dsl/failure-lines.js';
import type { FilterSource } from '../dsl/types.js';
import type { ToolOutput } from '../input/transcript.js';
import { commandKey } from '../shell/program.js';
import { hasMarker, markerKeys } from '../store/marker.js';
import { contentOf, type Slot } from './slots.js';
import { alwaysVerbatim } from './verbatim.js';

export type Gate =
  | OpenGate
  /**
   * `report`: one event per output, one count for the stage (replayed), or nothing (gone).
   * `markerKeys`: closed only for marker-shaped text with these keys; `unless`: the gate to open
   * when none of them is a real marker.
   */
  | {
      open: false;
      why: string;
      report: 'each' | 'count' | 'none';
      markerKeys?: string[];
      unless?: OpenGate;
    };

/** `keepFailureLines`: a large tool error, which the rewrite must not lose a failure line of. */
export type OpenGate = { open: true; keepFailureLines: boolean };

/** An error under this many UTF-8 bytes (about 500 tokens) is short: nothing may change it. */
export const SHORT_ERROR_BYTES = 2000;

const OPEN: OpenGate = { open: true, keepFailureLines: false };
const MARKED = 'already has a marker';

export interface Gates {
  gate(component: Component, slot: Slot): Gate;
}

/**
 * The gates for one transcript: which outputs a later run of the same command supersedes, found the
 * first time a gate asks (only for a large tool error a transcript stage may fold: most runs of a
 * long session never ask, and every command of it would be normalised for nothing).
 */
export function gatesFor(outputs: readonly ToolOutput[]): Gates {
  let superseded: Set<string> | undefined;
  const isSuperseded = (id: string) => {
    if (!superseded) {
      superseded = new Set<string>();
      const later = new Set<string>();
      for (let i = outputs.length - 1; i >= 0; i--) {
        const o = outputs[i]!;
        if (o.command === undefined) continue;
        const key = commandKey(o.command);
        if (later.has(key)) superseded.add(o.id);
        later.add(key);
      }
    }
    return superseded.has(id);
  };
  return { gate: (component, slot) => gate(component, slot, isSuperseded) };
}

function gate(component: Component, slot: Slot, superseded: (id: string) => boolean): Gate {
  if (slot.gone) return { open: false, why: 'replaced by a summary', report: 'none' };
  const transcriptLossy = component.scope === 'transcript' && component.lossy;
  const moving = slot.pinned && !slot.final && transcriptLossy;
  if (slot.held || (slot.pinned && !moving)) return { open: false, why: 'replayed as sent', report: 'count' };
  const o = slot.output;
  const verbatim = alwaysVerbatim(o);
  if (verbatim) return { open: false, why: verbatim, report: 'each' };
  let open: OpenGate = OPEN;
  if (o.isError) {
    const short = Buffer.byteLength(slot.current, 'utf8') < SHORT_ERROR_BYTES;
    const folds = transcriptLossy && !short && superseded(o.id);
    const filters = component.scope === 'output' && component.usesFilters === true;
    if (short || (!folds && !filters)) return { open: false, why: 'tool error', report: 'each' };
    if (filters) open = { open: true, keepFailureLines: true };
  }
  if (component.lossy) {
    const text = moving ? slot.original : contentOf(slot);
    if (hasMarker(text))
      return { open: false, why: MARKED, report: 'each', markerKeys: markerKeys(text), unless: open };
  }
  return open;
}

/**
 * The filters a large tool error may be shortened with: the one that matches, when its inline tests
 * prove it keeps every failure line (a filter that does not is no reason to try a lesser match).
 */
export function failureKeepingFilters(filters: FilterSource): FilterSource {
  return {
    async select(command, text, options) {
      const f = await filters.select(command, text, options);
      return f && provenToKeepFailures(f) ? f : undefined;
    },
  };
}

/** Why a component may not run at all: a lossy one needs a store that can persist its originals. */
export function storeGate(component: Component, store: 'none' | 'unwritable' | 'usable'): string | undefined {
  if (!component.lossy || store === 'usable') return undefined;
  return store === 'none'
    ? 'no store: lossy components are off'
    : 'store not writable: lossy components are off';
}
