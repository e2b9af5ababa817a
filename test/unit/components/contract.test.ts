/**
 * The contract every registered component keeps, run through the real pipeline: deterministic,
 * idempotent, quiet on empty and non-rewritable input, never worse, strict config, and every
 * marker expanding to the exact original.
 */
import { describe, expect, it } from 'vitest';
import type { ToolOutput } from '../../../src/component.js';
import { COMPONENTS } from '../../../src/components/index.js';
import type { Transcript } from '../../../src/input/transcript.js';
import { runPipeline } from '../../../src/pipeline.js';
import { markerKeys } from '../../../src/store/marker.js';
import { createTokens } from '../../../src/tokens.js';
import { MemoryStore } from '../../memory-store.js';

const tokens = createTokens('o200k');
const rows = Array.from({ length: 60 }, (_, i) => ({
  id: i,
  name: `item-${i}`,
  ok: i % 7 !== 0,
  score: i * 1.5,
}));
const SAMPLES: Record<string, string> = {
  empty: '',
  small: 'hello world\n',
  seq: Array.from({ length: 20_000 }, (_, i) => `${i + 1}`).join('\n'),
  prettyJson: JSON.stringify({ rows, meta: { total: 60, next: null } }, null, 2),
  uniformArray: JSON.stringify(rows, null, 2),
  logWithJson: `starting\n${JSON.stringify({ config: { a: 1, b: [1, 2, 3] } }, null, 4)}\ndone\n`,
  longLine: `${'x'.repeat(30_000)}\n`,
  unicode: Array.from({ length: 3000 }, (_, i) => `ligne ${i} — café ☕ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ${i}`).join('\n'),
};

function transcriptOf(text: string, extra: Partial<ToolOutput> = {}): Transcript {
  const output: ToolOutput = { id: 'o', text, rewritable: true, isError: false, messageIndex: 0, ...extra };
  return { format: 'text', outputs: [output], messages: [], write: (rw) => rw.get('o') ?? text };
}

async function once(
  component: (typeof COMPONENTS)[number],
  text: string,
  store = new MemoryStore(),
  extra: Partial<ToolOutput> = {},
) {
  const t = transcriptOf(text, extra);
  const r = await runPipeline(t, { stages: [{ component, config: component.defaults }], store, tokens });
  return { out: t.write(r.rewrites), changed: r.rewrites.size > 0, events: r.events, store };
}

describe.each(COMPONENTS.map((c) => [c.name, c] as const))('component %s', (_name, component) => {
  it('has a strict config: defaults parse to themselves and unknown keys are refused', () => {
    expect(component.parseConfig({})).toEqual(component.defaults);
    expect(() => component.parseConfig({ surely_not_a_key: 1 })).toThrow(/surely_not_a_key: unknown key/);
  });

  for (const [sample, text] of Object.entries(SAMPLES)) {
    it(`is deterministic, idempotent, never worse and reversible on ${sample}`, async () => {
      const a = await once(component, text);
      const b = await once(component, text);
      expect(b.out).toBe(a.out);
      for (const e of a.events) expect(e.action).not.toBe('fail');
      if (a.changed) {
        expect(await tokens.fewer(a.out, text)).toBe(true);
        const again = await once(component, a.out, a.store);
        expect(again.out).toBe(a.out);
      } else {
        expect(a.out).toBe(text);
      }
      const keys = markerKeys(a.out);
      if (!component.lossy) expect(keys).toEqual([]);
      for (const key of keys) expect(a.store.entries.get(key)?.toString('utf8')).toBe(text);
    });
  }

  it('leaves empty, error and non-rewritable outputs alone', async () => {
    expect((await once(component, '')).changed).toBe(false);
    expect((await once(component, SAMPLES.prettyJson!, new MemoryStore(), { isError: true })).changed).toBe(
      false,
    );
    expect((await once(component, SAMPLES.seq!, new MemoryStore(), { rewritable: false })).changed).toBe(
      false,
    );
  });
});
