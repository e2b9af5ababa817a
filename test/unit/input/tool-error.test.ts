import { describe, expect, it } from 'vitest';
import { readTranscript } from '../../../src/input/read.js';
import { reportsFailure } from '../../../src/input/tool-error.js';

describe('reportsFailure (formats without an error flag)', () => {
  it('reads the exit code Codex writes in the header of a shell result', () => {
    expect(reportsFailure('Exit code: 1\nWall time: 0.5 seconds\nOutput:\nFAILED x\n')).toBe(true);
    expect(reportsFailure('Exit code: 0\nWall time: 0.5 seconds\nOutput:\nok\n')).toBe(false);
    expect(
      reportsFailure('Chunk ID: 1\nWall time: 2 seconds\nProcess exited with code 2\nOutput:\nboom\n'),
    ).toBe(true);
    expect(reportsFailure('Chunk ID: 1\nProcess exited with code 0\nOutput:\n')).toBe(false);
  });

  it('reads exit_code from a JSON-wrapped result', () => {
    const wrapped = JSON.stringify({
      output: 'E   assert 2 == 3\n',
      metadata: { exit_code: 1, duration_seconds: 0.4 },
    });
    expect(reportsFailure(wrapped)).toBe(true);
    expect(reportsFailure(wrapped.replace('"exit_code":1', '"exit_code":0'))).toBe(false);
  });

  it('ignores an exit-code line that is part of the output itself, and text with no header', () => {
    expect(reportsFailure('Exit code: 0\nOutput:\nlog: Exit code: 1\n')).toBe(false);
    expect(reportsFailure('Exit code: 1\n(no output header: not a Codex result)\n')).toBe(false);
    expect(reportsFailure('all good\n')).toBe(false);
  });

  it('is what the Responses and Chat Completions readers set isError from', () => {
    const responses = {
      input: [
        { type: 'function_call', call_id: 'c', name: 'shell', arguments: '{"command":["pytest"]}' },
        {
          type: 'function_call_output',
          call_id: 'c',
          output: 'Exit code: 1\nWall time: 1 seconds\nOutput:\nx\n',
        },
      ],
    };
    expect(readTranscript(JSON.stringify(responses), 'auto', {}).outputs[0]!.isError).toBe(true);
    const chat = {
      messages: [
        {
          role: 'assistant',
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'sh', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c', content: 'Exit code: 0\nOutput:\nok\n' },
      ],
    };
    expect(readTranscript(JSON.stringify(chat), 'auto', {}).outputs[0]!.isError).toBe(false);
  });
});
