import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { geminiReportsFailure } from '../../../src/input/gemini.js';
import { detectFormat, readTranscript } from '../../../src/input/read.js';
import { ROOT } from '../../helpers.js';

/** A body Gemini CLI 0.61.0 sent (captured from the real binary against a scripted server). */
const captured = readFileSync(join(ROOT, 'test', 'fixtures', 'gemini', 'cli-0.61.0-request.json'), 'utf8');

describe('the Gemini API reader, on a body Gemini CLI 0.61.0 really sent', () => {
  const t = readTranscript(captured, 'auto', {});

  it('is detected as gemini and reads every functionResponse output, with its call', () => {
    expect(detectFormat(captured)).toBe('gemini');
    expect(t.format).toBe('gemini');
    expect(
      t.outputs.map((o) => [o.toolName, o.command ?? o.path?.replace(/.*\//, ''), o.messageIndex]),
    ).toEqual([
      ['run_shell_command', 'cat big.txt', 2],
      ['run_shell_command', 'ls nothere', 4],
      ['read_file', 'big.txt', 6],
    ]);
    expect(t.outputs[0]!.text).toMatch(/^<untrusted_context>\nOutput: line 0 "quoted" \t tab é\n/);
    expect(t.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    expect(t.messages[2]!.boundToPrevious).toBe(true);
    expect(t.system).toContain('Gemini CLI');
  });

  it('flags a run whose trailing Exit Code is non-zero as an error, and only that one', () => {
    expect(t.outputs.map((o) => o.isError)).toEqual([false, true, false]);
  });

  it('writes back byte for byte when nothing changes, and changes only the rewritten output', () => {
    expect(t.write(new Map())).toBe(captured);
    const id = t.outputs[0]!.id;
    const out = t.write(new Map([[id, 'short "text"\n']]));
    const before = JSON.parse(captured) as { contents: unknown[] };
    const after = JSON.parse(out) as typeof before;
    const response = (after.contents[2] as { parts: { functionResponse: { response: unknown } }[] }).parts[0]!
      .functionResponse.response;
    expect(response).toEqual({ output: 'short "text"\n' });
    after.contents[2] = before.contents[2];
    expect(after).toEqual(before);
    // The rest of the body keeps its exact bytes (escapes included), not a re-serialisation.
    const start = captured.indexOf(JSON.stringify(t.outputs[0]!.text));
    expect(out.slice(0, start)).toBe(captured.slice(0, start));
  });
});

describe('the Gemini API reader, on shapes Gemini CLI sends for other tools', () => {
  const body = {
    contents: [
      { role: 'user', parts: [{ text: 'go' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'run_shell_command', args: { command: 'make' } } },
          { functionCall: { name: 'mcp_tool', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'run_shell_command', response: { error: 'command not allowed' } } },
          {
            functionResponse: {
              name: 'mcp_tool',
              response: {
                content: [{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: 'b' }],
              },
            },
          },
        ],
      },
    ],
  };
  const t = readTranscript(JSON.stringify(body), 'gemini', {});

  it('reads `error` as a failed output, pairs calls by name without ids, and reads MCP text content', () => {
    expect(t.outputs.map((o) => [o.id, o.text, o.isError, o.toolName, o.command])).toEqual([
      ['functionResponse@2', 'command not allowed', true, 'run_shell_command', 'make'],
      ['functionResponse@2~2', 'a', false, 'mcp_tool', undefined],
      ['functionResponse@2~2#1', 'b', false, 'mcp_tool', undefined],
    ]);
  });

  it('replaces a span of messages with a user message in the Gemini shape', () => {
    const out = t.write(new Map(), [{ kind: 'replace_messages', from: 1, to: 2, text: 'summary' }]);
    expect((JSON.parse(out) as { contents: unknown[] }).contents[1]).toEqual({
      role: 'user',
      parts: [{ text: 'summary' }],
    });
  });

  it('refuses a body that is not a Gemini request when gemini is asked for', () => {
    expect(() => readTranscript('{"messages":[]}', 'gemini', {})).toThrow(/no "contents" array/);
  });
});

describe('geminiReportsFailure', () => {
  it('reads the status lines Gemini CLI writes after a shell output', () => {
    expect(geminiReportsFailure('Output: x\nExit Code: 1\nProcess Group PGID: 3\n')).toBe(true);
    expect(geminiReportsFailure('Output: x\nExit Code: 0\n')).toBe(false);
    expect(geminiReportsFailure('Output: x\nSignal: 9\n')).toBe(true);
    expect(geminiReportsFailure('Output: x\nSignal: (none)\n')).toBe(false);
    expect(geminiReportsFailure('plain file text\n')).toBe(false);
  });
});
