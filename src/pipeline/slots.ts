/**
 * The pipeline's state for each tool output (a slot): the original as it arrived, the text it has
 * now, and where it stands in a replayed session. An output already sent in an earlier turn starts
 * from the text sent then (a pin), so the provider's prompt cache keeps matching; an output that
 * never changes (src/pipeline/verbatim.ts) was sent as it is, whatever its pin says.
 */
import type { Candidate } from '../component.js';
import type { ToolOutput } from '../input/transcript.js';
import { alwaysVerbatim } from './verbatim.js';

/** What an earlier run of the same session sent for one output. */
export interface Pin {
  text: string;
  /** A placeholder from a transcript-scope component (masked, deduped, superseded): frozen for good. */
  final: boolean;
  /**
   * Whether text differs from the output's original, when the session knows it (its record keeps a
   * sent text only then): the run then need not read the original to tell.
   */
  rewritten?: boolean;
}

export interface Slot {
  output: ToolOutput;
  /** The output as it arrived: what a marker stands for (read from the output when first asked). */
  readonly original: string;
  /** Its text after the stages so far (or as sent in an earlier turn). */
  current: string;
  /** Sent in an earlier turn of a replayed session: current is what was sent. */
  pinned: boolean;
  final: boolean;
  /** A held-back rewrite is waiting for this slot: later stages leave it alone. */
  held: boolean;
  /** Its message was replaced by a summary: nothing more to decide. */
  gone: boolean;
  /** Pinned and under every mover's floor: no stage of this run can change it (settled.ts). */
  underFloor?: boolean;
  /** keyOf of its original, when the session had it (Replay.keyAt). */
  readonly key?: string;
  /**
   * The marker and hint a declarative filter's rewrite of this run put in `current`, for this
   * output's original: a later lossy stage of the same run sees the text without it and may shorten
   * it further under the same marker (a filter that kept too much is still folded), since the
   * original is stashed.
   */
  tag?: string;
  /** The pin it opened with, if any. */
  pin?: Pin;
  /** What transcript stages last showed a component of it (run.ts: candidateOf), for the next. */
  candidate?: Candidate;
}

/** What a component sees of a slot's text: without this run's own marker for its original. */
export function contentOf(slot: Slot): string {
  return slot.tag === undefined ? slot.current : slot.current.replace(slot.tag, '');
}

/**
 * A slot as a class: its original is read from the output only when first asked (a replayed
 * turn's outputs read theirs from the body, src/proxy/turn/read.ts), and every slot of a long
 * session (thousands, visited by every stage) has one shape.
 */
class OpenSlot implements Slot {
  held = false;
  gone = false;
  underFloor = false;
  tag?: string;
  candidate?: Candidate = undefined;
  constructor(
    readonly output: ToolOutput,
    public current: string,
    readonly pinned: boolean,
    public final: boolean,
    readonly pin: Pin | undefined,
    readonly key: string | undefined,
  ) {}
  get original(): string {
    return this.output.text;
  }
}

export function openSlots(
  outputs: readonly ToolOutput[],
  pins: ReadonlyMap<string, Pin> | undefined,
  keyAt?: readonly (string | undefined)[],
): Slot[] {
  // Keys by index only where they are the outputs' own (one per output).
  const keys = keyAt?.length === outputs.length ? keyAt : undefined;
  return outputs.map((o, i): Slot => {
    const pin = pins?.get(o.id);
    const current = pin && alwaysVerbatim(o) === undefined ? pin.text : o.text;
    return new OpenSlot(o, current, !!pin, !!pin?.final, pin, keys?.[i]);
  });
}
