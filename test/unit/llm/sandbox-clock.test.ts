/**
 * The sandbox's backstop budget, driven by an injected CPU reader: it counts the thread's CPU time,
 * not the wall, so a thread that waits (descheduled on a busy machine) spends nothing. Each poll
 * reads the next value; the test waits for the event, never for an amount of time.
 */
import { describe, expect, it } from 'vitest';
import { threadCpuMs, watchCpuBudget } from '../../../src/llm/sandbox-clock.js';

/** A reader that returns `values` in turn (then the last forever), counting its calls. */
function reader(values: (number | undefined)[]): { read: () => number | undefined; calls: () => number } {
  let i = 0;
  return { read: () => values[Math.min(i++, values.length - 1)], calls: () => i };
}

describe('watchCpuBudget', () => {
  it('fires once, at the first poll past start + limit, with what was spent', async () => {
    const r = reader([100, 300, 600, 1100, 1101, 5000]);
    const spent = await new Promise<number>((resolve) => watchCpuBudget(r.read, 100, 1000, resolve, 1));
    expect(spent).toBe(1001);
    expect(r.calls()).toBe(5);
  });

  it('spends nothing while the thread does not run, nor on an unreadable poll', async () => {
    const still = [...Array(20).fill(150), undefined, undefined, ...Array(20).fill(150), 1200];
    const r = reader(still);
    const spent = await new Promise<number>((resolve) => watchCpuBudget(r.read, 100, 1000, resolve, 1));
    expect(spent).toBe(1100);
    expect(r.calls()).toBe(still.length);
  });

  it('stops polling when stopped', async () => {
    let fired = false;
    const r = reader([0, 0, 0, 99_999]);
    const stop = watchCpuBudget(r.read, 0, 10, () => (fired = true), 1);
    // Wait for two polls (both within budget), then stop before the one that would spend it.
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (r.calls() >= 2) {
          stop();
          clearInterval(check);
          resolve();
        }
      }, 0);
    });
    const calls = r.calls();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(r.calls()).toBe(calls);
    expect(fired).toBe(false);
  });
});

describe('threadCpuMs', () => {
  it('reads a thread of this process where /proc has it, and is undefined for one that is not', () => {
    expect(threadCpuMs(2 ** 30)).toBeUndefined();
    const mine = threadCpuMs(process.pid); // the main thread's id is the process id
    if (process.platform === 'linux' && mine !== undefined) expect(mine).toBeGreaterThan(0);
  });
});
