/**
 * The slots a run cannot change, apart from the rest. A slot pinned to a final placeholder sent in
 * an earlier turn (masked, deduped, superseded) is settled for good: every gate answers "replayed as
 * sent" for it, whatever the component, and every transcript component sees it as settled with
 * mayChange false. A long session's settled slots are most of its outputs (tens of thousands, 85 %
 * of the bench's 20 k session), so the stages visit only the live ones: what the settled ones give
 * a stage — one replayed count, and their candidates in their places — is made once per run.
 *
 * Only a structural edit that retires messages (a summary) changes a settled slot (it is gone
 * then); the run then drops the partition (retire) and the next stage makes it again.
 */
import type { Candidate } from '../component.js';
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

/** Pinned to a final placeholder and still in the body: no stage of this run can change it. */
export function isSettled(s: Slot): boolean {
  return s.pinned && s.final && !s.gone;
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
