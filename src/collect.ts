/**
 * One full garbage collection, on request, for the moments a large buffer has just been let go.
 * V8 frees an ArrayBuffer's memory only when the object holding it is collected, and the holder of
 * a 60 MB input lives in the old generation, which is collected only when the heap next fills: so
 * letting go of the bytes alone frees nothing in time to lower the run's peak. Node 20 has no
 * ArrayBuffer.prototype.transfer to release it directly, so gc is exposed for this process (the
 * flag only makes the function reachable; it changes no heuristics) and taken from a fresh context.
 * Costs a few milliseconds on what is then mostly one large string; callers use it above MBs only.
 */

let gc: (() => void) | undefined;

/** node:v8 and node:vm are loaded on first use: most runs never need this. */
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
