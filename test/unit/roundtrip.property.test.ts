import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactText } from '../../src/engine.js';
import { readTranscript } from '../../src/input/read.js';
import { markerKeys } from '../../src/store/marker.js';
import { createTokens } from '../../src/tokens.js';
import { MemoryStore } from '../memory-store.js';

const tokens = createTokens('o200k');
const config = {
  components: { collapse: { max_tokens: 50, head_lines: 3, tail_lines: 2, max_line_chars: 60 } },
};

/** Text with enough lines, long lines and JSON to make every component fire sometimes. */
const textArb = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc
    .array(fc.string({ unit: 'grapheme', maxLength: 120 }), { minLength: 0, maxLength: 120 })
    .map((l) => l.join('\n')),
  fc.array(fc.string({ unit: 'binary', maxLength: 40 }), { maxLength: 80 }).map((l) => l.join('\r\n')),
  fc.json().map((j) => JSON.stringify(JSON.parse(j), null, 2)),
  // Uniform tables, pretty or compact: what toon rewrites.
  fc
    .tuple(
      fc.array(fc.record({ id: fc.integer(), name: fc.string({ maxLength: 12 }), ok: fc.boolean() }), {
        minLength: 3,
        maxLength: 40,
      }),
      fc.constantFrom(0, 2),
    )
    .map(([rows, indent]) => JSON.stringify(rows, null, indent)),
);

/** The lossless pair in the presets' order (toon first) and in the other. */
const ORDERS = ['toon,format,collapse', 'format,toon,collapse'];

async function check(input: string, format: 'text' | 'openai', originals: string[]) {
  for (const components of ORDERS) await checkWith(components, input, format, originals);
}

async function checkWith(components: string, input: string, format: 'text' | 'openai', originals: string[]) {
  const store = new MemoryStore();
  const r = await compactText(input, { components, config, store, format, tokens });
  for (const key of markerKeys(r.output)) {
    const back = store.entries.get(key)?.toString('utf8');
    expect(originals).toContain(back);
  }
  if (!r.changed) expect(r.output).toBe(input);
  const again = await compactText(r.output, {
    components,
    config,
    store,
    format,
    tokens,
  });
  expect(again.output).toBe(r.output);
}

describe('expand(compress(x)) == x', () => {
  it('holds for every marker in the output of any raw text, and compress is idempotent', async () => {
    await fc.assert(
      fc.asyncProperty(textArb, (text) => check(text, 'text', [text])),
      { numRuns: 150 },
    );
  });

  it('stays idempotent when a borderline collapse follows a lossless compaction (regression)', async () => {
    const text =
      '{\n  "": false,\n  "$": "`i",\n  "^*\'QY": false,\n  "aP/ z": "oF*;M@9",\n  "k}tk=": null,\n  "#": null,\n  "!\\"Gele": -2.5e-323\n}';
    await check(text, 'text', [text]);
  });

  it('holds for every tool output of any OpenAI request body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(textArb, { minLength: 1, maxLength: 4 }), async (texts) => {
        const messages: unknown[] = [{ role: 'user', content: 'task' }];
        texts.forEach((t, i) => {
          messages.push({
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: `c${i}`, type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } },
            ],
          });
          messages.push({ role: 'tool', tool_call_id: `c${i}`, content: t });
        });
        const body = JSON.stringify({ model: 'gpt-4o', messages });
        await check(body, 'openai', texts);
        const out = await compactText(body, {
          components: ORDERS[0]!,
          config,
          store: new MemoryStore(),
          format: 'openai',
          tokens,
        });
        expect(readTranscript(out.output, 'openai', {}).outputs).toHaveLength(texts.length);
      }),
      { numRuns: 60 },
    );
  });
});
