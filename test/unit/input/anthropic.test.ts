import { describe, expect, it } from 'vitest';
import { readTranscript } from '../../../src/input/read.js';

const body = {
  model: 'claude-sonnet-4',
  max_tokens: 1024,
  system: 'You are helpful.',
  messages: [
    { role: 'user', content: 'Run the tests.' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Running them.' },
        {
          type: 'tool_use',
          id: 'toolu_1',
          name: 'Bash',
          input: { command: 'npm test', description: 'tests' },
        },
        { type: 'tool_use', id: 'toolu_2', name: 'Read', input: { file_path: '/repo/a.ts' } },
        { type: 'tool_use', id: 'toolu_3', name: 'Shot', input: {} },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'FAIL 1 test', is_error: true },
        { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'const a = 1;' }] },
        {
          type: 'tool_result',
          tool_use_id: 'toolu_3',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'text', text: 'caption one' },
            { type: 'text', text: 'caption two' },
          ],
        },
      ],
    },
  ],
};
const raw = JSON.stringify(body, null, 2);

describe('the Anthropic Messages reader', () => {
  const t = readTranscript(raw, 'anthropic', {});

  it('reads each tool_result as an output, with string or text-block content', () => {
    expect(t.format).toBe('anthropic');
    expect(t.model).toBe('claude-sonnet-4');
    expect(t.outputs.map((o) => [o.id, o.text])).toEqual([
      ['toolu_1', 'FAIL 1 test'],
      ['toolu_2', 'const a = 1;'],
      ['toolu_3', 'caption one'],
      ['toolu_3#1', 'caption two'],
    ]);
  });

  it('takes isError from is_error and the tool name, command and path from the matching tool_use', () => {
    expect(t.outputs[0]).toEqual({
      id: 'toolu_1',
      text: 'FAIL 1 test',
      rewritable: true,
      isError: true,
      toolName: 'Bash',
      command: 'npm test',
      messageIndex: 2,
    });
    expect(t.outputs[1]).toMatchObject({ isError: false, toolName: 'Read', path: '/repo/a.ts' });
    expect(t.outputs[1]).not.toHaveProperty('command');
    expect(t.outputs[2]).toMatchObject({ toolName: 'Shot', messageIndex: 2 });
  });

  it('leaves image blocks untouched when a text block next to them is rewritten', () => {
    const out = t.write(new Map([['toolu_3#1', 'short']]));
    const expected = JSON.parse(raw);
    expected.messages[2].content[2].content[2].text = 'short';
    expect(JSON.parse(out)).toStrictEqual(expected);
    expect(out.replace('"short"', '"caption two"')).toBe(raw);
  });

  it('gives one message view per message, with tool calls rendered briefly', () => {
    const lastBlock = (type: string) => ({ type, cacheControl: false, empty: false });
    expect(t.messages).toEqual([
      { role: 'user', text: 'Run the tests.' },
      {
        role: 'assistant',
        text: 'Running them.\n[tool_use Bash: npm test]\n[tool_use Read: /repo/a.ts]\n[tool_use Shot]',
        lastBlock: lastBlock('tool_use'),
      },
      {
        role: 'user',
        text: 'FAIL 1 test\nconst a = 1;\ncaption one\ncaption two',
        lastBlock: lastBlock('tool_result'),
        boundToPrevious: true,
      },
    ]);
  });

  it('suffixes a repeated tool_use_id so that every output id is unique', () => {
    const dup = {
      messages: [
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'x', name: 'Bash', input: { command: 'ls' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'a' }] },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'x', name: 'Bash', input: { command: 'pwd' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'b' }] },
      ],
    };
    const d = readTranscript(JSON.stringify(dup), 'anthropic', {});
    expect(d.outputs.map((o) => [o.id, o.command])).toEqual([
      ['x', 'ls'],
      ['x~2', 'pwd'],
    ]);
    const out = JSON.parse(d.write(new Map([['x~2', 'B']])));
    expect(out.messages[3].content[0].content).toBe('B');
    expect(out.messages[1].content[0].content).toBe('a');
  });

  it('falls back to the command line command only for an output with no matching call', () => {
    const lone = {
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'q', content: 'x' }] }],
    };
    const [o] = readTranscript(JSON.stringify(lone), 'anthropic', { command: 'make' }).outputs;
    expect(o).toMatchObject({ id: 'q', command: 'make' });
    expect(o).not.toHaveProperty('toolName');
    expect(t.outputs[2]).not.toHaveProperty('command');
  });

  it('reads a tool_result with no content as no output', () => {
    const empty = { messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'q' }] }] };
    expect(readTranscript(JSON.stringify(empty), 'anthropic', {}).outputs).toEqual([]);
  });

  it('gives the system prompt and counts the cache breakpoints already in the body', () => {
    expect(t.system).toBe('You are helpful.');
    expect(t.cacheBreakpoints).toBe(0);
    const cached = {
      system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] },
      ],
    };
    const c = readTranscript(JSON.stringify(cached), 'anthropic', {});
    expect(c.system).toBe('sys');
    expect(c.cacheBreakpoints).toBe(2);
    expect(c.messages[0]!.lastBlock).toEqual({ type: 'text', cacheControl: true, empty: false });
  });

  it("inserts a cache breakpoint after the last member of a message's last block, every other byte kept", () => {
    const out = t.write(new Map([['toolu_3#1', 'short']]), [{ kind: 'cache_breakpoint', messageIndex: 1 }]);
    const expected = JSON.parse(raw);
    expected.messages[1].content[3].cache_control = { type: 'ephemeral' };
    expected.messages[2].content[2].content[2].text = 'short';
    expect(JSON.parse(out)).toStrictEqual(expected);
    const back = out.replace('"short"', '"caption two"').replace(',"cache_control":{"type":"ephemeral"}', '');
    expect(back).toBe(raw);
    // Next to a rewrite of the same block's text, both edits land.
    const both = JSON.parse(
      t.write(new Map([['toolu_3#1', 'x']]), [{ kind: 'cache_breakpoint', messageIndex: 2 }]),
    );
    expect(both.messages[2].content[2]).toMatchObject({ cache_control: { type: 'ephemeral' } });
    expect(() => t.write(new Map(), [{ kind: 'cache_breakpoint', messageIndex: 0 }])).toThrow(RangeError);
  });
});
