import { describe, expect, it } from 'vitest';
import type { MessageView, ToolOutput } from '../../../src/component.js';
import { summaryPrompt } from '../../../src/llm/summary-prompt.js';

const messages: MessageView[] = [
  { role: 'user', text: 'Fix the parser' },
  { role: 'assistant', text: '[tool_use Bash: pytest]' },
  { role: 'user', text: 'SECRET-LOOKING TOOL OUTPUT 1', boundToPrevious: true },
  { role: 'assistant', text: '[tool_use Read: a.py]' },
  { role: 'user', text: 'ORIGINAL OUTPUT 2', boundToPrevious: true },
  { role: 'assistant', text: 'Done.' },
  { role: 'user', text: 'Thanks' },
];
const out = (messageIndex: number, text: string): ToolOutput => ({
  id: `o${messageIndex}`,
  text,
  rewritable: true,
  isError: false,
  messageIndex,
  toolName: 'Bash',
});
const base = { messages, task: 0, from: 1, to: 5, recent: 5, level: 'concise' as const, maxChars: 10_000 };

describe('the summary prompt', () => {
  it('masks tool outputs, also those an earlier stage already rewrote', () => {
    const outputs = [
      out(2, 'SECRET-LOOKING TOOL OUTPUT 1'),
      out(4, '[older tool output masked] <<cg:0123456789abcdef>>'),
    ];
    const { prompt } = summaryPrompt({ ...base, outputs, includeToolOutputs: false });
    expect(prompt).not.toContain('SECRET-LOOKING');
    expect(prompt).not.toContain('ORIGINAL OUTPUT 2');
    expect(prompt).toContain('[2] user: [tool output of Bash: 28 chars, not shown]');
    expect(prompt).toContain('[3] assistant: [tool_use Read: a.py]');
  });

  it('always shows tool errors, which a summary must not lose', () => {
    const outputs = [{ ...out(2, 'SECRET-LOOKING TOOL OUTPUT 1'), isError: true }];
    const { prompt } = summaryPrompt({ ...base, outputs, includeToolOutputs: false });
    expect(prompt).toContain('[2] user: SECRET-LOOKING TOOL OUTPUT 1');
  });

  it('shows them with include_tool_calls, and asks for a summary of the length the level sets', () => {
    const r = summaryPrompt({
      ...base,
      outputs: [out(2, 'SECRET-LOOKING TOOL OUTPUT 1')],
      includeToolOutputs: true,
    });
    expect(r.prompt).toContain('SECRET-LOOKING TOOL OUTPUT 1');
    expect(r.system).toContain('at most about 150 words');
    expect(r.maxTokens).toBe(400);
    expect(r.prompt).toMatch(/<task>\n\[0\] user: Fix the parser\n<\/task>/);
    expect(r.prompt).toMatch(/<recent>\n\[5\] assistant: Done\.\n\[6\] user: Thanks\n<\/recent>/);
  });

  it('rolls forward from a previous summary', () => {
    const r = summaryPrompt({ ...base, outputs: [], includeToolOutputs: false, previous: 'Earlier: X.' });
    expect(r.prompt).toContain('<previous_summary>\nEarlier: X.\n</previous_summary>');
    expect(r.prompt).toContain('replaces <previous_summary> and <history> together');
  });

  it('cuts long messages in the middle to stay within max_input_chars', () => {
    const long: MessageView[] = [...messages];
    long[3] = { role: 'assistant', text: `${'a'.repeat(50_000)}MIDDLE${'z'.repeat(50_000)}` };
    const r = summaryPrompt({
      ...base,
      messages: long,
      outputs: [],
      includeToolOutputs: true,
      maxChars: 4000,
    });
    expect(r.prompt.length).toBeLessThan(8000);
    expect(r.prompt).toMatch(/\[… \d+ chars not shown …\]/);
    expect(r.prompt).not.toContain('MIDDLE');
  });
});
