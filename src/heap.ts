/**
 * What cg asks of V8's heap when an input is large: to grow it conservatively, and one full
 * collection where a large buffer has just been let go. By default V8 lets the old generation
 * grow to several times what is alive before it next collects (it trades memory for speed), so a
 * run over a 16 MB input peaked at 3× what it ever held at once; grown conservatively (the heuristic
 * --optimize-for-size turns on: a growing factor near 1.3), that run's peak fell from 173 to 125 MB,
 * at no measured cost in CPU time (bench/memory.mjs, bench/hotpath.mjs). And V8 frees an
 * ArrayBuffer's memory only when the object holding it is collected, which for a buffer in the old
 * generation waits for the heap to fill; Node 20 has no ArrayBuffer.prototype.transfer to release
 * it at once, so gc is made reachable (the flag changes no heuristic) from a fresh context.
 * node:v8 and node:vm are loaded on first use: runs over small inputs never ask.
 */

let gc: (() => void) | undefined;
let lean = false;

/** From now on this process grows its heap conservatively (idempotent). */
export async function leanHeap(): Promise<void> {
  if (lean) return;
  lean = true;
  try {
    (await import('node:v8')).setFlagsFromString('--optimize-for-size');
  } catch {
    // the heap grows as it would have
  }
}

/** One full garbage collection now. */
export async function collectGarbage(): Promise<void> {
  try {
    if (!gc) {
      const [{ setFlagsFromString }, { runInNewContext }] = await Promise.all([
        import('node:v8'),
        import('node:vm'),
      ]);
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as () => void;
    }
    gc();
  } catch {
    // no gc to be had: the memory is freed later, as it would have been
  }
}
