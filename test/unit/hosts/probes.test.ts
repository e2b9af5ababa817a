// The doctor probes of the host table: their 3,000-line payloads are made when read (a getter), not
// when the table loads, which every pipe and hook call does.
import { describe, expect, it } from 'vitest';
import { HOSTS } from '../../../src/hosts/index.js';

const SEQ = Array.from({ length: 3000 }, (_, i) => String(i + 1)).join('\n');

describe('host doctor probes', () => {
  it('are made on each read, not held by the loaded table', () => {
    for (const host of ['claude', 'gemini', 'opencode']) {
      const probe = HOSTS.find((h) => h.name === host)?.probe;
      expect(Object.getOwnPropertyDescriptor(probe, 'payload')?.get, host).toBeTypeOf('function');
      expect(probe?.payload).toEqual(probe?.payload);
      expect(JSON.stringify(probe?.payload)).toContain(JSON.stringify(SEQ).slice(1, -1));
    }
  });
});
