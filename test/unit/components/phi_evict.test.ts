import { describe, expect, it } from 'vitest';
import { MARKER_SLOT, type ToolOutput } from '../../../src/component.js';
import { phi_evict, WEIGHTS } from '../../../src/components/phi_evict.js';
import { context, output } from '../../helpers.js';

const filler = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${topic} entry ${i} alpha beta gamma`).join('\n');

function transcript(texts: string[], lastUser: string) {
  const outputs: ToolOutput[] = texts.map((t, i) => output(t, { id: `o${i}`, messageIndex: 2 * i + 2 }));
  const messages = [{ role: 'user', text: 'start' }];
  for (const t of texts)
    messages.push({ role: 'assistant', text: '[tool_use Bash]' }, { role: 'user', text: t });
  messages.push({ role: 'user', text: lastUser });
  return { outputs, ctx: context({ format: 'anthropic', messages }) };
}

describe('phi_evict', () => {
  it('does nothing under the budget', async () => {
    const { outputs, ctx } = transcript([filler('a', 50), filler('b', 50)], 'x');
    expect((await phi_evict.run(outputs, phi_evict.defaults, ctx)).size).toBe(0);
  });

  it('over the budget evicts lowest Φ first: irrelevant, old, large and duplicated outputs go before relevant ones', async () => {
    const { outputs, ctx } = transcript(
      [
        filler('kafka', 300),
        filler('postgres', 300),
        filler('kafka', 300),
        filler('redis', 100),
        filler('zzz', 50),
      ],
      'why is postgres slow?',
    );
    const cfg = phi_evict.parseConfig({ budget_tokens: 5000 });
    const r = await phi_evict.run(outputs, cfg, ctx);
    // The duplicate kafka output and the old kafka one go; postgres (relevant) and the newest stay.
    expect([...r.keys()].sort()).toEqual(['o0', 'o2']);
    expect(r.get('o0')).toMatchObject({
      kind: 'rewrite',
      text: `[tool output evicted to fit the context budget] ${MARKER_SLOT}`,
      loss: 'whole',
    });
  });

  it('never evicts the newest output, errors or verbatim content', async () => {
    const { outputs, ctx } = transcript([filler('a', 10), filler('b', 400)], 'x');
    outputs[0]!.isError = true;
    const r = await phi_evict.run(outputs, phi_evict.parseConfig({ budget_tokens: 10 }), ctx);
    expect(r.size).toBe(0);
  });

  it('weighs by profile', () => {
    expect(WEIGHTS.balanced).toEqual([0.4, 0.2, 0.3, 0.1]);
    expect(WEIGHTS.aggressive).toEqual([0.3, 0.1, 0.45, 0.15]);
    expect(WEIGHTS.conservative).toEqual([0.45, 0.2, 0.05, 0.05]);
    expect(phi_evict.parseConfig({ profile: 'aggressive' }).profile).toBe('aggressive');
    expect(() => phi_evict.parseConfig({ profile: 'wild' })).toThrow(/profile: expected one of/);
  });
});
