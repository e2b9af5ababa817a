/**
 * Judging one outcome (DESIGN §1): what a component handed back for an output it was allowed to
 * change becomes either the text to keep or a reason it is not kept. In order: the call failed or
 * broke the contract (fail); it skipped or changed nothing (skip); a lossless rewrite its proof
 * cannot back, a rewrite of a large tool error that lost a failure line, or a rewrite that is not
 * strictly fewer tokens than its input, marker and hint included (revert). A kept lossy rewrite gets
 * its marker here, keyed on the output as it arrived; stashing that original is the caller's last
 * step before the text may reach any output.
 */
import { type Component, MARKER_SLOT, type Outcome } from '../component.js';
import { missingFailureLines } from '../dsl/failure-lines.js';
import { collectGarbage } from '../heap/gc.js';
import { keyOf, knownKey, SLICED_MIN } from '../store/keys.js';
import { hint, marker } from '../store/marker.js';
import { byteLength, type Tokens } from '../tokens.js';
import { contractProblem, type Guarded } from './component-calls.js';
import { unproven } from './lossless.js';
import { type BareText, fewerWithTag, tagBound } from './never-worse.js';
import type { Slot } from './slots.js';

export type Rewrite = Extract<Outcome, { kind: 'rewrite' }>;

export type Judgement =
  /**
   * `key`: the marker's key, for a lossy rewrite whose original must be stashed first; `bytes`: that
   * original's UTF-8, encoded once for the key so the stash neither encodes nor hashes it again.
   */
  | {
      kind: 'keep';
      text: string;
      key: string | undefined;
      tag?: string;
      outcome: Rewrite;
      bytes?: Uint8Array;
    }
  | { kind: 'drop'; action: 'skip' | 'revert' | 'fail'; reason: string; bytesOut?: number; note?: string };

/**
 * A rewrite of an output this large (UTF-16 units) is judged after one garbage collection (once its
 * contract is checked, which flattens it): the component's work leaves its garbage (chunks, tables) for the heap's next full collection, and
 * judging adds a copy the size of the output (a proof flattens the rewrite, a key encodes the
 * original), so collected first the run's peak stays near what is alive (DESIGN §7: ≤ 2.5× the
 * input + 80 MB). Measured on 50 MB of pretty JSON through format: 219 → 183 MiB, and on 4 MB
 * through the default preset 98 → 91 MiB (bench/memory.mjs), for a collection of a few
 * milliseconds (tens at 50 MB) in a run that takes hundreds.
 */
const COLLECT_ABOVE = 1 << 20;

export interface JudgeOptions {
  tokens: Tokens;
  /** Hint template after the marker. */
  template: string;
  /** The gates opened this output on condition that every failure line stays (a large tool error). */
  keepFailureLines: boolean;
}

export async function judge(
  component: Component,
  slot: Slot,
  result: Guarded<Outcome>,
  opts: JudgeOptions,
): Promise<Judgement> {
  const drop = (
    action: 'skip' | 'revert' | 'fail',
    reason: string,
    extra: { bytesOut?: number; note?: string } = {},
  ) => ({ kind: 'drop', action, reason, ...extra }) as const;
  if (result.kind === 'error') return drop('fail', result.message);
  const outcome = result.value;
  const problem = contractProblem(component, outcome, slot.current);
  if (problem) return drop('fail', problem);
  if (outcome.kind === 'skip') return drop('skip', outcome.gate);
  if (slot.current.length > COLLECT_ABOVE) collectGarbage();
  const notFewer = (bytesOut: number) =>
    drop('revert', 'not fewer tokens than its input', {
      bytesOut,
      ...(outcome.note !== undefined ? { note: outcome.note } : {}),
    });

  if (outcome.loss === 'none') {
    if (outcome.text === slot.current) return drop('skip', 'no change');
    const why = await unproven(outcome.proof, slot.current, outcome.text);
    if (why) return drop('revert', `not proven lossless: ${why}`);
    if (!(await opts.tokens.fewer(outcome.text, slot.current))) return notFewer(byteLength(outcome.text));
    return { kind: 'keep', text: outcome.text, key: undefined, outcome };
  }

  // Shortening what an earlier stage of this run already shortened (slot.tag): the marker stays the
  // original's, and its lines are no longer the original's, so no `--lines` hint and no tail claim.
  const chained = slot.tag !== undefined;
  const expandArgs = chained ? undefined : outcome.expandArgs;
  const kept: Rewrite =
    chained && (outcome.loss === 'tail' || outcome.expandArgs !== undefined)
      ? {
          kind: 'rewrite',
          text: outcome.text,
          loss: 'whole',
          ...(outcome.note ? { note: outcome.note } : {}),
        }
      : outcome;
  // Decided before the key is known, with the marker's worst case: the same component input then
  // gets the same decision whatever original it came from, which keeps cg(cg(x)) == cg(x).
  const slotted = outcome.text.includes(MARKER_SLOT);
  const bare = bareOf(outcome.text, slotted);
  if (opts.keepFailureLines) {
    const lost = missingFailureLines(slot.current, bare.text());
    if (lost.length > 0)
      return drop(
        'revert',
        `drops ${lost.length} failure line(s) of a tool error, e.g. ${JSON.stringify(clip(lost[0]!))}`,
      );
  }
  if (!(await fewerWithTag(opts.tokens, bare, tagBound(opts.template, expandArgs), slot.current)))
    return notFewer(bare.bytes);
  // A large original nobody holds the bytes of is hashed (and stashed) a slice at a time.
  const bytes =
    slot.output.bytes ?? (slot.original.length < SLICED_MIN ? Buffer.from(slot.original, 'utf8') : undefined);
  // The session hashed this original already (to key its record): the same bytes, the same key.
  const key = slot.key ?? keyOf(bytes ?? slot.original);
  if (slot.key !== undefined && bytes && !slot.output.bytes) knownKey(bytes, slot.key);
  const tag = marker(key) + hint(opts.template, key, expandArgs);
  const text = slotted ? outcome.text.replace(MARKER_SLOT, () => tag) : appendLine(outcome.text, tag);
  return { kind: 'keep', text, key, tag, outcome: kept, bytes };
}

/** The rewrite with its marker slot empty (or no marker line), measured now and made on demand. */
function bareOf(text: string, slotted: boolean): BareText {
  let made: string | undefined;
  const make = () => (slotted ? text.replace(MARKER_SLOT, '') : appendLine(text, ''));
  const bytes = slotted ? byteLength(text) - MARKER_SLOT_BYTES : byteLength(text) + (text.length > 0 ? 1 : 0);
  return {
    bytes,
    text: () => {
      made ??= make();
      return made;
    },
  };
}

const MARKER_SLOT_BYTES = byteLength(MARKER_SLOT);

/** Appends the marker on a line of its own, keeping a trailing newline where there was one. */
function appendLine(text: string, tag: string): string {
  if (text.length === 0) return tag;
  return text.endsWith('\n') ? `${text}${tag}\n` : `${text}\n${tag}`;
}

function clip(line: string): string {
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}
