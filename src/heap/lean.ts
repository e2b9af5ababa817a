/**
 * A heap that grows conservatively, for a process over a large input (past 1 MiB) or a long-lived
 * one (cg proxy). By default V8 lets the old generation grow to several times what is alive before
 * it next collects, trading memory for speed; with the heuristic --optimize-for-size turns on (a
 * growing factor near 1.3), set at run time, a run over 16 MB of JSON peaked at 124 MB instead of
 * 173, and cg proxy at 20k tool results at +302 MB above idle instead of +414..479, at no measured
 * cost in CPU time (bench/memory.mjs, bench/hotpath.mjs, bench/proxy.mjs). node:v8 is required on
 * first use.
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
