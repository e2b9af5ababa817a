import { describe, expect, it } from 'vitest';
import { readTranscript } from '../../../src/input/read.js';

const body = {
  model: 'gpt-4.1',
  messages: [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: [{ type: 'text', text: 'List files.' }] },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls -la"}' } },
        {
          id: 'call_2',
          type: 'function',
          function: { name: 'shell', arguments: '{"cmd":["git","status"]}' },
        },
        { id: 'call_3', type: 'function', function: { name: 'view', arguments: '{"path": "src/a.ts"' } },
        { id: 'call_4', type: 'function', function: { name: 'open', arguments: '{"filename":"b.py"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'a\nb\n' },
    {
      role: 'tool',
      tool_call_id: 'call_2',
      content: [
        { type: 'text', text: 'On branch main' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        { type: 'text', text: 'nothing to commit' },
      ],
    },
    { role: 'tool', tool_call_id: 'call_3', content: 'file text' },
    { role: 'tool', tool_call_id: 'call_4', content: 'print(1)' },
  ],
};
const raw = JSON.stringify(body);

describe('the OpenAI Chat Completions reader', () => {
  const t = readTranscript(raw, 'openai', {});

  it('reads role "tool" messages as outputs, one per text part', () => {
    expect(t.format).toBe('openai');
    expect(t.model).toBe('gpt-4.1');
    expect(t.outputs.map((o) => [o.id, o.text, o.messageIndex])).toEqual([
      ['call_1', 'a\nb\n', 3],
      ['call_2', 'On branch main', 4],
      ['call_2#1', 'nothing to commit', 4],
      ['call_3', 'file text', 5],
      ['call_4', 'print(1)', 6],
    ]);
    expect(t.outputs.every((o) => !o.isError && o.rewritable)).toBe(true);
  });

  it('takes the tool name, command and path from the matching tool call arguments', () => {
    expect(t.outputs[0]).toMatchObject({ toolName: 'bash', command: 'ls -la' });
    expect(t.outputs[1]).toMatchObject({ toolName: 'shell', command: 'git status' });
    expect(t.outputs[4]).toMatchObject({ toolName: 'open', path: 'b.py' });
  });

  it('tolerates arguments that are not valid JSON', () => {
    expect(t.outputs[3]).toMatchObject({ toolName: 'view' });
    expect(t.outputs[3]).not.toHaveProperty('path');
    expect(t.outputs[3]).not.toHaveProperty('command');
  });

  it('leaves non-text parts untouched when a text part is rewritten', () => {
    const out = JSON.parse(t.write(new Map([['call_2#1', 'clean']])));
    expect(out.messages[4].content).toEqual([
      body.messages[4]!.content![0],
      body.messages[4]!.content![1],
      { type: 'text', text: 'clean' },
    ]);
  });

  it('gives one message view per message, with tool calls rendered briefly', () => {
    expect(t.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'tool',
      'tool',
    ]);
    expect(t.messages[1]!.text).toBe('List files.');
    expect(t.messages[2]!.text).toBe(
      '[tool_call bash: ls -la]\n[tool_call shell: git status]\n[tool_call view]\n[tool_call open: b.py]',
    );
    expect(t.messages[4]!.text).toBe('On branch main\nnothing to commit');
  });

  it('pairs a repeated tool_call_id with its most recent call and suffixes the output id', () => {
    const dup = {
      messages: [
        {
          role: 'assistant',
          tool_calls: [
            { id: 'c', type: 'function', function: { name: 'bash', arguments: '{"command":"a"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c', content: 'one' },
        {
          role: 'assistant',
          tool_calls: [
            { id: 'c', type: 'function', function: { name: 'bash', arguments: '{"command":"b"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c', content: 'two' },
        {
          role: 'assistant',
          tool_calls: [
            { id: 'c', type: 'function', function: { name: 'bash', arguments: '{"command":"c"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c', content: 'three' },
      ],
    };
    const d = readTranscript(JSON.stringify(dup), 'openai', {});
    expect(d.outputs.map((o) => [o.id, o.command])).toEqual([
      ['c', 'a'],
      ['c~2', 'b'],
      ['c~3', 'c'],
    ]);
  });

  it('reads legacy role "function" messages with the preceding function_call', () => {
    const legacy = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, function_call: { name: 'run', arguments: '{"command":"date"}' } },
      { role: 'function', name: 'run', content: 'Mon Jan 1' },
    ];
    const d = readTranscript(JSON.stringify(legacy), 'openai', {});
    expect(d.outputs).toEqual([
      {
        id: 'function@2',
        text: 'Mon Jan 1',
        rewritable: true,
        isError: false,
        toolName: 'run',
        command: 'date',
        messageIndex: 2,
      },
    ]);
    expect(d.model).toBeUndefined();
  });

  it('reads a bare messages array and writes it back in place', () => {
    const bare = `[ {"role":"user","content":"x"},\n {"role":"tool","tool_call_id":"t","content":"long output"} ]`;
    const d = readTranscript(bare, 'openai', {});
    expect(d.outputs.map((o) => o.id)).toEqual(['t']);
    expect(d.write(new Map([['t', 'short']]))).toBe(
      `[ {"role":"user","content":"x"},\n {"role":"tool","tool_call_id":"t","content":"short"} ]`,
    );
  });
});
