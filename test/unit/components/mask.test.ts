import { describe, expect, it } from 'vitest';
import { MARKER_SLOT } from '../../../src/component.js';
import { mask } from '../../../src/components/mask.js';
import { candidate, context } from '../../helpers.js';

const big = (i: number) => Array.from({ length: 100 }, (_, k) => `output ${i} line ${k}`).join('\n');
const ctx = context({ format: 'anthropic' });

describe('mask', () => {
  it('masks every output older than the newest three', async () => {
    const outs = Array.from({ length: 6 }, (_, i) =>
      candidate(big(i), { id: `o${i}`, messageIndex: 2 * i + 1 }),
    );
    const r = await mask.run(outs, mask.defaults, ctx);
    expect([...r.keys()]).toEqual(['o0', 'o1', 'o2']);
    expect(r.get('o0')).toEqual({
      kind: 'rewrite',
      text: `[older tool output masked] ${MARKER_SLOT}`,
      loss: 'whole',
      note: '5 newer outputs',
    });
  });

  it('keeps every output of the newest message, however many, since the model has not read them', async () => {
    const outs = [
      candidate(big(0), { id: 'old', messageIndex: 1 }),
      ...Array.from({ length: 5 }, (_, i) => candidate(big(i + 1), { id: `new${i}`, messageIndex: 3 })),
    ];
    expect([...(await mask.run(outs, mask.defaults, ctx)).keys()]).toEqual(['old']);
  });

  it('leaves small older outputs, and outputs the gates keep, alone', async () => {
    const outs = [
      candidate('tiny', { id: 'a', messageIndex: 1 }),
      candidate(big(1), { id: 'b', messageIndex: 3, mayChange: false }),
      candidate(big(2), { id: 'c', messageIndex: 5, mayChange: false }),
      ...Array.from({ length: 3 }, (_, i) => candidate(big(i + 3), { id: `n${i}`, messageIndex: 7 + 2 * i })),
    ];
    expect((await mask.run(outs, mask.defaults, ctx)).size).toBe(0);
  });

  it('asks a replaying session for batches of batch_tokens', () => {
    expect(mask.batchTokens!(mask.parseConfig({ batch_tokens: 500 }))).toBe(500);
    expect(mask.batchTokens!(mask.defaults)).toBe(10_000);
    expect(() => mask.parseConfig({ keep_recent: 'x' })).toThrow(/keep_recent/);
  });
});
