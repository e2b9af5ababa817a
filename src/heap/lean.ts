/**
 * A heap that grows conservatively, for a run over a large input (past 1 MiB). By default V8 lets
 * the old generation grow to several times what is alive before it next collects, and the young
 * generation double each time it fills up to 16 MB a semi-space, trading memory for speed. Set at
 * run time (both flags are read when the heap next grows): --optimize-for-size (an old-generation
 * growing factor near 1.3) took a run over 16 MB of JSON from 173 MB to 124; a young generation
 * that keeps its first size (--semi-space-growth-factor=1) took a 4 MB table through toon from
 * 101 MB to 86, 16 MB from 134 to 118 — the young generation had grown to hold the short-lived
 * rows of a chunk — at no measured cost in CPU time: such a run's live heap is mostly a few large
 * strings, cheap to mark and never copied by a scavenge (bench/memory.mjs, bench/hotpath.mjs). Not
 * for cg proxy: its live heap is each session's state, hundreds of MB of small objects, and
 * collecting that more often doubled a next turn's CPU time (20k tool results: 490 -> 1,030 ms)
 * for a third less memory (+432 -> +316 MB). node:v8 is required on first use.
 */
import { createRequire } from 'node:module';

let lean = false;

/** From now on this process grows its heap conservatively (idempotent). */
export function leanHeap(): void {
  if (lean) return;
  lean = true;
  try {
    (createRequire(import.meta.url)('node:v8') as typeof import('node:v8')).setFlagsFromString(
      '--optimize-for-size --semi-space-growth-factor=1',
    );
  } catch {
    // the heap grows as it would have
  }
}
