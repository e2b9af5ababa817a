/**
 * A heap that grows conservatively, for a run over a large input (past 1 MiB). By default V8 lets
 * the old generation grow to several times what is alive before it next collects, trading memory
 * for speed; with the heuristic --optimize-for-size turns on (a growing factor near 1.3), set at
 * run time, a run over 16 MB of JSON peaked at 124 MB instead of 173, at no measured cost in CPU
 * time: such a run's live heap is mostly one large string, cheap to mark (bench/memory.mjs,
 * bench/hotpath.mjs). Not for cg proxy: its live heap is each session's state, hundreds of MB of
 * small objects, and collecting that more often doubled a next turn's CPU time (20k tool results:
 * 490 -> 1,030 ms) for a third less memory (+432 -> +316 MB). node:v8 is required on first use.
 */
import { createRequire } from 'node:module';

let lean = false;

/** From now on this process grows its heap conservatively (idempotent). */
export function leanHeap(): void {
  if (lean) return;
  lean = true;
  try {
    (createRequire(import.meta.url)('node:v8') as typeof import('node:v8')).setFlagsFromString(
      '--optimize-for-size',
    );
  } catch {
    // the heap grows as it would have
  }
}
