/**
 * The sandbox's program-time budget is the worker thread's own CPU time, not the wall: a machine
 * busy with other work gives a filter program fewer cycles per second, and a deadline on the wall
 * would fail a correct program for it (and make the same input give different results). Linux
 * reports a thread's CPU time in /proc (…/schedstat, nanoseconds on the CPU); where it does not,
 * the worker falls back to the wall clock and the host to a wall-clock backstop.
 *
 * This is the host's side: reading the worker thread's CPU time, and the backstop that ends a
 * worker whose program has spent its budget inside a native call QuickJS's interrupt never sees.
 * The worker reads its own time with the same file (sandbox-worker.ts cannot import this module).
 */
import { readFileSync } from 'node:fs';

/** Milliseconds on the CPU of thread `tid` of this process, or undefined (no /proc, thread gone). */
export function threadCpuMs(tid: number): number | undefined {
  try {
    const ns = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Calls `onSpent(spentMs)` once, at the first poll where `read()` (a thread's CPU ms) is more than
 * `limitMs` past `startMs`. A thread that is not running spends nothing, however long it waits; an
 * unreadable poll (the thread has just exited) spends nothing either — its exit is reported apart.
 * Returns the function that stops watching.
 */
export function watchCpuBudget(
  read: () => number | undefined,
  startMs: number,
  limitMs: number,
  onSpent: (spentMs: number) => void,
  pollMs = 50,
): () => void {
  const timer = setInterval(() => {
    const now = read();
    if (now === undefined || now - startMs <= limitMs) return;
    clearInterval(timer);
    onSpent(now - startMs);
  }, pollMs);
  return () => clearInterval(timer);
}
