/**
 * A full garbage collection every so much work, for a loop that streams through a large document a
 * chunk at a time. Each chunk's values die with it, yet V8 promotes part of them to the old space
 * (the TOON decoder's generators keep ~10% of what they allocate alive across two scavenges) and
 * lets the old space grow to two to four times the live heap before it collects: streaming a 56 MB
 * table through the decoder peaked 250 MB above the live heap. Collecting every few megabytes of
 * input keeps that garbage to a few megabytes, for a few milliseconds per collection (and less CPU
 * overall: the heap stays small).
 *
 * The collector is exposed on first use (v8.setFlagsFromString('--expose-gc'), then `gc` from a
 * fresh vm context, as Node's maintainers suggest: nodejs/node#16595); where the runtime refuses
 * that, collecting is a no-op and only memory, never the result, differs.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collector: (() => void) | null | undefined;

function exposedGc(): (() => void) | null {
  if (collector !== undefined) return collector;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('typeof gc === "function" ? gc : null');
    collector = typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    collector = null;
  }
  return collector;
}

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
