/**
 * The text fallback on real logs (../shared/corpus/logs/loghub): the default preset for raw text,
 * through the engine with a memory store. No filter claims a log, so fold decides what the agent
 * sees: every error line of OpenStack_2k.log is visible (verbatim or as its folded template), every
 * log keeps at least 95 % of its distinct error/warning templates visible with at least 75 % of its
 * tokens saved, no log is longer than collapse would make it but for its error templates, and the
 * marker gives back the exact log.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { signalTemplates, visibility } from '../../bench/visible.mjs';
import { compactText } from '../../src/engine.js';
import { markerKeys } from '../../src/store/marker.js';
import { FOLD_SIGNALS } from '../../src/text/signals.js';
import { createTokens } from '../../src/tokens.js';
import { corpusPath, HAS_CORPUS } from '../helpers.js';
import { MemoryStore } from '../memory-store.js';

const tokens = createTokens('o200k');
const LOGS = HAS_CORPUS
  ? readdirSync(corpusPath('logs', 'loghub'))
      .filter((f) => f.endsWith('.log'))
      .sort()
  : [];
const read = (name: string) => readFileSync(corpusPath('logs', 'loghub', name), 'utf8');

async function shell(text: string, components?: string) {
  const store = new MemoryStore();
  const r = await compactText(text, { store, tokens, format: 'text', ...(components ? { components } : {}) });
  return { output: r.output, store, events: r.events };
}

describe.skipIf(!HAS_CORPUS)('fold on loghub logs', () => {
  it('shows every error line of OpenStack_2k.log, verbatim or as its folded template', async () => {
    const input = read('OpenStack_2k.log');
    const { output } = await shell(input);
    const visible = visibility(output);
    const errors = input.split('\n').filter((l) => /\b(?:ERROR|WARNING)\b/.test(l));
    expect(errors.length).toBeGreaterThan(20);
    expect(errors.filter((l) => !visible(l))).toEqual([]);
  });

  it.each(LOGS)(
    '%s: at least 95 in 100 error/warning templates visible, at least 75 in 100 tokens saved, an exact marker',
    async (name) => {
      const input = read(name);
      const { output, store, events } = await shell(input);
      expect(events.some((e) => e.component === 'fold' && e.action === 'rewrite')).toBe(true);
      const { total, shown } = signalTemplates(input, output);
      if (total > 0) expect(shown / total).toBeGreaterThanOrEqual(0.95);
      expect(await tokens.count(output)).toBeLessThanOrEqual(0.25 * (await tokens.count(input)));
      const [key] = markerKeys(output);
      expect(store.entries.get(key!)?.toString('utf8')).toBe(input);
    },
  );

  it.each(LOGS)('%s: without its error lines, no longer than collapse makes it', async (name) => {
    const input = read(name)
      .split('\n')
      .filter((l) => !FOLD_SIGNALS.has(l))
      .join('\n');
    const folded = (await shell(input)).output;
    const collapsed = (await shell(input, 'collapse')).output;
    expect(await tokens.count(folded)).toBeLessThanOrEqual(await tokens.count(collapsed));
  });
});
