/**
 * summarize on every request body of the corpus, with a stand-in model: whatever it replaces, the
 * body it sends must still be one a provider accepts (every tool result follows its call, every call
 * is answered, a thinking turn opens with thinking), the kept messages must be byte-identical, and
 * the marker must give back the replaced messages exactly.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ModelAccess } from '../../src/component.js';
import { SUMMARY_HEADER } from '../../src/components/summarize.js';
import { compactText } from '../../src/engine.js';
import { markerKeys } from '../../src/store/marker.js';
import { createTokens } from '../../src/tokens.js';
import { corpusPath, HAS_CORPUS } from '../helpers.js';
import { MemoryStore } from '../memory-store.js';

const tokens = createTokens('o200k');
const model: ModelAccess = {
  available: true,
  label: 'stand-in',
  budgetMs: 1000,
  complete: async () => ({ ok: true, text: 'The agent worked on the task; details are in the marker.' }),
};

type Block = { type: string; id?: string; tool_use_id?: string };
type Message = { role: string; content: unknown; tool_calls?: { id: string }[]; tool_call_id?: string };

/** Problems a provider would refuse: results without their call, calls without their result. */
function pairingProblems(messages: Message[]): string[] {
  const problems: string[] = [];
  let open = new Set<string>();
  const blocks = (m: Message) => (Array.isArray(m.content) ? (m.content as Block[]) : []);
  messages.forEach((m, i) => {
    const results =
      m.role === 'tool'
        ? [m.tool_call_id!]
        : blocks(m)
            .filter((b) => b.type === 'tool_result')
            .map((b) => b.tool_use_id!);
    if (m.role === 'assistant') {
      if (open.size > 0) problems.push(`message ${i}: calls ${[...open].join(',')} never answered`);
      open = new Set([
        ...(m.tool_calls ?? []).map((c) => c.id),
        ...blocks(m)
          .filter((b) => b.type === 'tool_use')
          .map((b) => b.id!),
      ]);
      return;
    }
    for (const id of results) {
      if (!open.delete(id)) problems.push(`message ${i}: result ${id} without its call`);
    }
  });
  return problems;
}

const bodies = HAS_CORPUS
  ? [
      ...readdirSync(corpusPath('transcripts', 'anthropic'))
        .filter((f) => f.endsWith('.anthropic.json'))
        .map((f) => ['anthropic', f]),
      ...readdirSync(corpusPath('transcripts', 'openai'))
        .filter((f) => f.endsWith('.openai.json'))
        .map((f) => ['openai', f]),
    ]
  : [];

let summarised = 0;

describe.skipIf(!HAS_CORPUS)('summarize on the corpus bodies', () => {
  it.each(bodies)(
    '%s/%s stays a valid request, keeps its tail byte-identical, and expands exactly',
    async (dir, file) => {
      const input = readFileSync(corpusPath('transcripts', dir, file), 'utf8');
      const store = new MemoryStore();
      const config = {
        components: { summarize: { trigger: { min_request_tokens: 2000, min_messages: 6 } } },
      };
      const r = await compactText(input, { components: 'summarize', store, tokens, model, config });
      const before = JSON.parse(input) as { messages: Message[] };
      const after = JSON.parse(r.output) as { messages: Message[] };
      expect(pairingProblems(after.messages)).toEqual(pairingProblems(before.messages));
      const at = after.messages.findIndex(
        (m) => typeof m.content === 'string' && m.content.startsWith(SUMMARY_HEADER),
      );
      if (at < 0) return;
      summarised++;
      const dropped = before.messages.length - after.messages.length + 1;
      const kept = after.messages.slice(at + 1);
      expect(JSON.stringify(kept)).toBe(JSON.stringify(before.messages.slice(at + dropped)));
      const [key] = markerKeys(after.messages[at]!.content as string);
      const span = store.entries.get(key!)?.toString('utf8');
      expect(JSON.parse(`[${span}]`)).toEqual(before.messages.slice(at, at + dropped));
      expect(input).toContain(span);
      // A turn that used extended thinking opens the kept part with thinking (or a real user turn).
      const first = kept[0]!;
      const thinking = before.messages.some(
        (m) => Array.isArray(m.content) && (m.content as Block[])[0]?.type === 'thinking',
      );
      if (thinking && first.role === 'assistant')
        expect((first.content as Block[])[0]?.type).toMatch(/thinking/);
    },
  );

  it('summarised most of the large bodies (the checks above were not vacuous)', () => {
    expect(summarised).toBeGreaterThanOrEqual(10);
  });
});
