import { describe, expect, it } from 'vitest';
import { compactText } from '../../../src/engine.js';

const BREAKPOINT = ',"cache_control":{"type":"ephemeral"}';

function body(extra: { assistant?: unknown[]; system?: unknown; last?: unknown } = {}) {
  return {
    model: 'claude-sonnet-4',
    max_tokens: 100,
    ...(extra.system ? { system: extra.system } : {}),
    messages: [
      { role: 'user', content: 'Run the tests' },
      {
        role: 'assistant',
        content: extra.assistant ?? [
          { type: 'text', text: 'Running.' },
          { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } },
        ],
      },
      extra.last ?? { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
    ],
  };
}

async function inject(input: string, format: 'auto' | 'openai' = 'auto') {
  return compactText(input, { components: 'cacheinject', store: null, format });
}

describe('cacheinject', () => {
  it('puts a breakpoint on the last block of the message before the newest turn, and changes nothing else', async () => {
    const input = JSON.stringify(body(), null, 2);
    const r = await inject(input);
    expect(r.changed).toBe(true);
    const out = JSON.parse(r.output);
    expect(out.messages[1].content[1].cache_control).toEqual({ type: 'ephemeral' });
    expect(r.output.replace(BREAKPOINT, '')).toBe(input);
    expect(r.events.find((e) => e.action === 'rewrite')?.note).toBe('cache breakpoint on message 1');
    // Idempotent: the breakpoint is already there.
    expect((await inject(r.output)).output).toBe(r.output);
  });

  it('is inert on string content, thinking blocks, empty text and bodies that manage their own breakpoints', async () => {
    for (const b of [
      body({ assistant: 'plain string' as unknown as unknown[] }),
      body({ assistant: [{ type: 'thinking', thinking: 'hmm', signature: 's' }] }),
      body({ assistant: [{ type: 'text', text: '' }] }),
      body({
        last: { role: 'user', content: [{ type: 'text', text: 'go', cache_control: { type: 'ephemeral' } }] },
      }),
      body({
        system: [1, 2, 3, 4].map((i) => ({
          type: 'text',
          text: `s${i}`,
          cache_control: { type: 'ephemeral' },
        })),
      }),
    ]) {
      const input = JSON.stringify(b);
      const r = await inject(input);
      expect(r.output).toBe(input);
    }
  });

  it('is inert on other formats', async () => {
    const openai = JSON.stringify({
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: 'again' },
      ],
    });
    expect((await inject(openai, 'openai')).output).toBe(openai);
    expect((await compactText('plain text\n', { components: 'cacheinject', store: null })).changed).toBe(
      false,
    );
  });
});
