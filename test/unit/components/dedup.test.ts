import { describe, expect, it } from 'vitest';
import { MARKER_SLOT } from '../../../src/component.js';
import { dedup } from '../../../src/components/dedup.js';
import { candidate, context } from '../../helpers.js';

const big = Array.from({ length: 200 }, (_, i) => `line ${i}: some output`).join('\n');
const ctx = context({ format: 'anthropic' });

describe('dedup', () => {
  it('replaces a later copy of an earlier output and keeps the first', async () => {
    const outs = [
      candidate(big, { id: 'a', messageIndex: 1 }),
      candidate('other', { id: 'b', messageIndex: 3 }),
      candidate(big, { id: 'c', messageIndex: 5 }),
      candidate(big, { id: 'd', messageIndex: 7 }),
    ];
    const r = await dedup.run(outs, dedup.defaults, ctx);
    expect([...r.keys()]).toEqual(['c', 'd']);
    expect(r.get('c')).toEqual({
      kind: 'rewrite',
      text: `[identical to an earlier tool output] ${MARKER_SLOT}`,
      loss: 'whole',
      note: 'same as a',
    });
  });

  it('leaves copies under min_tokens, and outputs the gates keep, alone', async () => {
    const small = 'ok\n';
    const outs = [
      candidate(small, { id: 'a' }),
      candidate(small, { id: 'b' }),
      candidate(big, { id: 'c' }),
      candidate(big, { id: 'd', mayChange: false }),
      candidate(big, { id: 'e', mayChange: false }),
    ];
    expect((await dedup.run(outs, dedup.defaults, ctx)).size).toBe(0);
    expect([...(await dedup.run(outs, { min_tokens: 0 }, ctx)).keys()]).toEqual(['b']);
  });

  it('treats texts that differ by one byte as different', async () => {
    const outs = [candidate(big, { id: 'a' }), candidate(`${big} `, { id: 'b' })];
    expect((await dedup.run(outs, dedup.defaults, ctx)).size).toBe(0);
  });

  it('has a strict config', () => {
    expect(dedup.parseConfig({ min_tokens: 5 })).toEqual({ min_tokens: 5 });
    expect(() => dedup.parseConfig({ min_tokens: -1 })).toThrow(/min_tokens/);
  });
});
