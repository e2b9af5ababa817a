/**
 * The slots a run cannot change, apart from the rest. A slot pinned to a final placeholder sent in
 * an earlier turn (masked, deduped, superseded) is settled for good: every gate answers "replayed as
 * sent" for it, whatever the component, and every transcript component sees it as settled with
 * mayChange false. A long session's settled slots are most of its outputs (tens of thousands, 85 %
 * of the bench's 20 k session), so the stages visit only the live ones: what the settled ones give
 * a stage — one replayed count, and their candidates in their places — is made once per run.
 *
 * A pinned slot that is not final is settled too when no stage of the run can move it: every lossy
 * transcript stage (the only ones that move a pinned output forward) declares a floor — outputs
 * under so many tokens it never rewrites, whatever the transcript holds — and the output is under
 * the least of them (the small outputs a session keeps sending as they came: 2,898 of the bench's
 * 20 k session's live ones). It is shown to transcript components as before (mayChange false, not
 * `settled`: a small later run still supersedes an earlier one), only no stage visits it.
 *
 * Only a structural edit that retires messages (a summary) changes a settled slot (it is gone
 * then); the run then drops the partition (retire) and the next stage makes it again.
 */
import type { Candidate } from '../component.js';
import type { ToolOutput } from '../input/transcript.js';
import type { Tokens } from '../tokens.js';
import type { Stage } from './options.js';
import type { Slot } from './slots.js';

export interface Partition {
  /** The slots that are neither settled nor gone, in order. */
  live: Slot[];
  /** How many slots are settled (and not gone). */
  settled: number;
  /**
   * What a transcript component is shown, in slot order (gone slots left out): each settled slot's
   * candidate in its place; the places of live ones (at[i] for live[i]) are filled per stage.
   */
  candidates: Candidate[];
  at: number[];
}

/** Pinned to a final placeholder, or under every mover's floor, and still in the body: no stage of this run can change it. */
export function isSettled(s: Slot): boolean {
  return s.pinned && !s.gone && (s.final || s.underFloor === true);
}

/**
 * The fewest tokens a pinned output needs for some stage of these to move it: the least floor of
 * the lossy transcript stages (0 when one declares none: nothing is settled by size); Infinity when
 * no stage can move a pinned output at all.
 */
export function moverFloor(stages: readonly Stage[]): number {
  let floor = Number.POSITIVE_INFINITY;
  for (const { component, config } of stages) {
    if (component.scope !== 'transcript' || !component.lossy) continue;
    const f = component.floorTokens?.(config) ?? 0;
    if (!(f > 0)) return 0;
    floor = Math.min(floor, f);
  }
  return floor;
}

/**
 * Whether an output is under a floor, by counter and output: an output's text never changes, and a
 * replayed session's outputs are the same objects from turn to turn (src/proxy/turn/carried.ts), so a
 * later turn does not count it again.
 */
const under = new WeakMap<Tokens, WeakMap<ToolOutput, { floor: number; under: boolean }>>();

/**
 * Marks the pinned slots no stage can move (see the header): with floor Infinity every pinned slot;
 * else those sent as they came (the count is of the original) with fewer tokens than floor.
 */
export async function settleUnderFloor(slots: readonly Slot[], floor: number, tokens: Tokens): Promise<void> {
  if (floor <= 0) return;
  let known = under.get(tokens);
  if (!known) {
    known = new WeakMap();
    under.set(tokens, known);
  }
  for (const s of slots) {
    if (!s.pinned || s.final || s.gone || s.held) continue;
    if (floor === Number.POSITIVE_INFINITY) {
      s.underFloor = true;
      continue;
    }
    // Only an output the record knows was sent as it came: its text is then its original's
    // (src/session/replay.ts), so the count is of what every turn would send.
    if (s.pin?.rewritten !== false) continue;
    let seen = known.get(s.output);
    if (seen?.floor !== floor) {
      seen = { floor, under: !(await tokens.exceeds(s.current, floor - 1)) };
      known.set(s.output, seen);
    }
    if (seen.under) s.underFloor = true;
  }
}

/**
 * The partition of slots; `settledCandidate` gives a settled slot's candidate (its text is the
 * same for every stage: a pinned slot carries no tag of this run, slots.ts contentOf).
 */
export function partition(slots: readonly Slot[], settledCandidate: (s: Slot) => Candidate): Partition {
  const live: Slot[] = [];
  const candidates: Candidate[] = [];
  const at: number[] = [];
  let settled = 0;
  for (const s of slots) {
    if (s.gone) continue;
    if (isSettled(s)) {
      settled++;
      candidates.push(settledCandidate(s));
      continue;
    }
    at.push(candidates.length);
    candidates.push(undefined as unknown as Candidate);
    live.push(s);
  }
  return { live, settled, candidates, at };
}
