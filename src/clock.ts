/**
 * A monotonic clock in milliseconds for the pipeline's timings (an event's `ms`), as
 * performance.now() measures them but from another origin: only differences mean anything. The
 * global `performance` is built on first use from node:perf_hooks and its eight internal modules
 * (≈ 4 ms of a start-up); process.hrtime is there from the start.
 */
export function now(): number {
  const [s, ns] = process.hrtime();
  return s * 1e3 + ns / 1e6;
}
