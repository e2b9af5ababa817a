import { describe, expect, it } from 'vitest';
import { type Candidate, MARKER_SLOT } from '../../../src/component.js';
import { phi_evict, WEIGHTS } from '../../../src/components/phi_evict.js';
import type { ToolOutput, Transcript } from '../../../src/input/transcript.js';
import { runPipeline } from '../../../src/pipeline/run.js';
import { createTokens } from '../../../src/tokens.js';
import { candidate, context } from '../../helpers.js';
import { MemoryStore } from '../../memory-store.js';

const filler = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${topic} entry ${i} alpha beta gamma`).join('\n');

function transcript(texts: string[], lastUser: string) {
  const outputs: Candidate[] = texts.map((t, i) => candidate(t, { id: `o${i}`, messageIndex: 2 * i + 2 }));
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

  it('never evicts the newest output, or one the gates keep', async () => {
    const { outputs, ctx } = transcript([filler('a', 10), filler('b', 400)], 'x');
    outputs[0]!.mayChange = false;
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

describe('phi_evict in the pipeline', () => {
  it('evicts down to the budget when the oldest output already carries a marker (the gates keep it)', async () => {
    const tokens = createTokens();
    // Four outputs of about 1,280 tokens each; the oldest went through `cg run` and carries a marker.
    const texts = ['oldest', 'second', 'third', 'newest'].map((topic, i) => {
      const body = filler(`${topic} ${i}`, 180);
      return i === 0 ? `${body}\n<<cg:0123456789abcdef>> [full output: cg expand 0123456789abcdef]` : body;
    });
    const outputs: ToolOutput[] = texts.map((text, i) => ({
      id: `o${i}`,
      text,
      rewritable: true,
      isError: false,
      messageIndex: 2 * i + 2,
    }));
    const messages = [{ role: 'user', text: 'start' }];
    for (const t of texts)
      messages.push({ role: 'assistant', text: '[tool_use Bash]' }, { role: 'user', text: t });
    const t: Transcript = { format: 'anthropic', outputs, messages, write: () => '' };
    let before = 0;
    for (const o of outputs) before += await tokens.count(o.text);
    const budget = Math.round(before * 0.6);
    // The marker is real: its key is in the store.
    const marked = new MemoryStore();
    marked.entries.set('0123456789abcdef', Buffer.from('what cg run kept'));
    const r = await runPipeline(t, {
      stages: [{ component: phi_evict, config: phi_evict.parseConfig({ budget_tokens: budget }) }],
      store: marked,
      tokens,
    });
    let after = 0;
    for (const o of outputs) after += await tokens.count(r.rewrites.get(o.id) ?? o.text);
    expect(r.rewrites.has('o0')).toBe(false);
    expect(after).toBeLessThanOrEqual(budget);
  });
});
