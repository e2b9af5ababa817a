import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compactText } from '../../../src/engine.js';
import { readTranscript } from '../../../src/input/read.js';
import { createTokens } from '../../../src/tokens.js';
import { tempDir } from '../../helpers.js';
import { MemoryStore } from '../../memory-store.js';

const tokens = createTokens('o200k');
const bigOutput = (i: number) =>
  Array.from({ length: 120 }, (_, k) => `file${i}.ts line ${k}: const value${k} = compute(${k});`).join('\n');

/** A Claude Code-like conversation: one Read per turn, each a distinct large file. */
function conversation(turns: number, first = 'Refactor the compute module') {
  const messages: unknown[] = [{ role: 'user', content: first }];
  for (let i = 0; i < turns; i++) {
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Reading file${i}.ts for value${i}` },
        { type: 'tool_use', id: `t${i}`, name: 'Read', input: { file_path: `/src/file${i}.ts` } },
      ],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: bigOutput(i) }],
    });
  }
  return { model: 'claude-sonnet-4', max_tokens: 100, system: 'agent', messages };
}

const request = (turns: number) => JSON.stringify(conversation(turns));

function setup(config?: Record<string, unknown>) {
  const dir = join(tempDir(), 'sessions');
  const store = new MemoryStore();
  const run = async (input: string, extra: Record<string, unknown> = {}) =>
    compactText(input, {
      preset: 'agent',
      store,
      tokens,
      session: { dir },
      ...(config ? { config } : {}),
      ...extra,
    });
  const sent = (output: string) => readTranscript(output, 'anthropic', {}).outputs.map((o) => o.text);
  return { dir, store, run, sent };
}

describe('cache-stable replay', () => {
  it('sends every earlier output again exactly as before, though the query that chose it has moved on', async () => {
    const { run, sent } = setup();
    const a = sent((await run(request(3))).output);
    const b = sent((await run(request(4))).output);
    expect(b.slice(0, 3)).toEqual(a);
    // Without the record, extract would decide the old outputs with the new query.
    const fresh = sent(
      (await compactText(request(4), { preset: 'agent', store: new MemoryStore(), tokens })).output,
    );
    expect(fresh.slice(0, 3)).not.toEqual(a);
  });

  it('holds masks of sent outputs back until a batch is worth a cache break, then applies them together', async () => {
    const { run, sent } = setup({ components: { mask: { batch_tokens: 4000 } } });
    let previous: string[] = [];
    const changedAt: number[] = [];
    for (let k = 1; k <= 14; k++) {
      const now = sent((await run(request(k), { components: 'mask' })).output);
      if (previous.some((text, i) => now[i] !== text)) changedAt.push(k);
      previous = now;
    }
    // Each output is ~1.7k tokens: a batch of 4000 tokens needs three of them.
    expect(changedAt.length).toBeGreaterThan(1);
    expect(changedAt.length).toBeLessThanOrEqual(5);
    const masked = previous.filter((t) => t.startsWith('[older tool output masked]')).length;
    expect(masked).toBeGreaterThanOrEqual(6);
  });

  it('keeps a placeholder for good, and decides an output whose original changed afresh', async () => {
    const { run, sent } = setup({ components: { mask: { batch_tokens: 0 } } });
    await run(request(5));
    const before = sent((await run(request(6))).output);
    expect(before[0]).toMatch(/^\[older tool output masked\]/);
    const edited = conversation(6);
    (edited.messages[2] as { content: { content: string }[] }).content[0]!.content = 'short now';
    const after = sent((await run(JSON.stringify(edited))).output);
    expect(after[0]).toBe('short now');
    expect(after.slice(1)).toEqual(before.slice(1));
  });

  it("replays cg's own output unchanged and leaves the record as it was", async () => {
    const { dir, run } = setup();
    const out = (await run(request(5))).output;
    const [file] = readdirSync(dir).filter((f) => f.endsWith('.json'));
    const record = readFileSync(join(dir, file!), 'utf8');
    expect((await run(out)).output).toBe(out);
    expect(readFileSync(join(dir, file!), 'utf8')).toBe(record);
  });

  it('records nothing with session: false, without a store, or for raw text', async () => {
    const { dir, run } = setup();
    await run(request(2), { session: false });
    await run(request(2), { store: null });
    await run(bigOutput(1));
    expect(() => readdirSync(dir)).toThrow();
  });
});
