/**
 * A full garbage collection every so much work, for a loop that streams through a large document a
 * chunk at a time. Each chunk's values die with it, yet V8 promotes part of them to the old space
 * (the TOON decoder's generators keep ~10% of what they allocate alive across two scavenges) and
 * lets the old space grow to two to four times the live heap before it collects: streaming a 56 MB
 * table through the decoder peaked 250 MB above the live heap. Collecting every few megabytes of
 * input keeps that garbage to a few megabytes, for a few milliseconds per collection (and less CPU
 * overall: the heap stays small).
 * The collector is src/heap/gc.ts's: where the runtime refuses it, collecting is a no-op and only
 * memory, never the result, differs.
 */
import { exposedGc } from './gc.js';

/** Work between collections: characters of JSON read. */
export const COLLECT_EVERY_CHARS = 4 << 20;

/** A counter of work done (e.g. characters read) that collects garbage each time it passes `every`. */
export function collectEvery(every = COLLECT_EVERY_CHARS): (work: number) => void {
  let since = 0;
  return (work) => {
    since += work;
    if (since < every) return;
    since = 0;
    exposedGc()?.();
  };
}
