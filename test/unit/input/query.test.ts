import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { transcriptQuery } from '../../../src/input/query.js';
import type { MessageView, ToolOutput } from '../../../src/input/transcript.js';

/** The query as first written: every message read, front to back. */
function everyMessageRead(messages: MessageView[], outputs: Pick<ToolOutput, 'messageIndex'>[]) {
  const carriers = new Set(outputs.map((o) => o.messageIndex));
  const userTurns: number[] = [];
  let assistant: number | undefined;
  messages.forEach((m, i) => {
    if (m.role === 'user' && !carriers.has(i) && m.text.trim() !== '') userTurns.push(i);
    if (m.role === 'assistant' && m.text.trim() !== '') assistant = i;
  });
  const picked = new Set<number>();
  if (userTurns.length > 0) {
    picked.add(userTurns[0]!);
    picked.add(userTurns[userTurns.length - 1]!);
  }
  if (assistant !== undefined) picked.add(assistant);
  const q = [...picked]
    .sort((a, b) => a - b)
    .map((i) => messages[i]!.text.slice(0, 4000))
    .join('\n')
    .trim();
  return q === '' ? undefined : q;
}

const message = fc.record({
  role: fc.constantFrom('user', 'assistant', 'system'),
  text: fc.oneof(fc.constant(''), fc.constant('  \n'), fc.string({ maxLength: 12 })),
});

describe('transcriptQuery', () => {
  it('gives what reading every message gives, on random transcripts', () => {
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 30 }),
        fc.array(fc.integer({ min: -2, max: 32 }), { maxLength: 10 }),
        (messages, at) => {
          const outputs = at.map((messageIndex) => ({ messageIndex }) as ToolOutput);
          expect(transcriptQuery({ format: 'anthropic', messages, outputs })).toBe(
            everyMessageRead(messages, outputs),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it("reads a few messages' text in a long session, not every message's", () => {
    let reads = 0;
    const messages: MessageView[] = [];
    const outputs: ToolOutput[] = [];
    const counted = (role: string, text: string): MessageView => ({
      role,
      get text() {
        reads++;
        return text;
      },
    });
    messages.push(counted('user', 'fix the failing test'));
    for (let i = 0; i < 1000; i++) {
      messages.push(counted('assistant', `[tool_use Bash: pytest -k t${i}]`));
      outputs.push({ messageIndex: messages.length } as ToolOutput);
      messages.push(counted('user', `result ${i}`));
    }
    expect(transcriptQuery({ format: 'anthropic', messages, outputs })).toBe(
      'fix the failing test\n[tool_use Bash: pytest -k t999]',
    );
    expect(reads).toBeLessThan(10);
  });
});
