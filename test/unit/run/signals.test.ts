import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { relaySignals } from '../../../src/run/signals.js';

const groups: ChildProcess[] = [];
afterEach(() => {
  for (const g of groups.splice(0)) if (g.exitCode === null && g.signalCode === null) g.kill('SIGKILL');
});

/** A sleep leading a process group of its own, as cg run's command does. */
function group(): ChildProcess {
  const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  groups.push(child);
  return child;
}

const ended = (c: ChildProcess) =>
  new Promise<NodeJS.Signals | null>((resolve) => c.once('exit', (_code, signal) => resolve(signal)));

describe('relaySignals', () => {
  it('holds a signal that comes before the group is known, and sends it once the group is', async () => {
    const relay = relaySignals();
    try {
      process.emit('SIGHUP');
      const g = group();
      const end = ended(g);
      expect(g.exitCode === null && g.signalCode === null).toBe(true);
      relay.to(g.pid!);
      expect(await end).toBe('SIGHUP');
    } finally {
      relay.remove();
    }
  });

  it('passes each signal on to the whole group once the group is known', async () => {
    const relay = relaySignals();
    try {
      const g = group();
      relay.to(g.pid!);
      const end = ended(g);
      process.emit('SIGINT');
      expect(await end).toBe('SIGINT');
    } finally {
      relay.remove();
    }
  });

  it('removes its handlers, so cg no longer answers a signal for the group', () => {
    const before = process.listenerCount('SIGINT');
    const relay = relaySignals();
    expect(process.listenerCount('SIGINT')).toBe(before + 1);
    relay.remove();
    expect(process.listenerCount('SIGINT')).toBe(before);
  });
});
