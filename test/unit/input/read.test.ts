import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { detectFormat, readTranscript } from '../../../src/input/read.js';
import { alwaysVerbatim } from '../../../src/pipeline/verbatim.js';

const anthropicTools = JSON.stringify({
  model: 'claude',
  messages: [
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a\nb' }] },
  ],
});
const openaiTools = JSON.stringify({
  model: 'gpt',
  messages: [
    {
      role: 'assistant',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'out' },
  ],
});
const responses = JSON.stringify({
  model: 'gpt',
  input: [
    { role: 'user', content: 'hi' },
    { type: 'function_call', call_id: 'f', name: 'shell', arguments: '{}' },
    { type: 'function_call_output', call_id: 'f', output: 'x' },
  ],
});

describe('detectFormat', () => {
  it.each([
    ['a body with tool_use/tool_result blocks', anthropicTools, 'anthropic'],
    ['a body with role "tool" messages', openaiTools, 'openai'],
    ['a body with an input array of typed items', responses, 'responses'],
    [
      'a bare array of chat messages',
      '[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]',
      'openai',
    ],
    [
      'a plain chat with a system message',
      '{"messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}]}',
      'openai',
    ],
    [
      'a body with a top-level system prompt',
      '{"system":"s","messages":[{"role":"user","content":"u"}]}',
      'anthropic',
    ],
    [
      'text blocks with no OpenAI roles',
      '{"messages":[{"role":"user","content":[{"type":"text","text":"u"}]}]}',
      'anthropic',
    ],
    [
      'text parts next to an OpenAI system message',
      '{"messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"u"}]}]}',
      'openai',
    ],
    ['an empty message list in a body naming a model', '{"model":"m","messages":[]}', 'openai'],
    [
      'a body whose earlier strings mention "messages" with escaped quotes',
      String.raw`{"tools":[{"description":"not \"messages\": here","messages":1}],"messages":[{"role":"tool","tool_call_id":"a","content":"x"}]}`,
      'openai',
    ],
    [
      'indented JSON after leading whitespace',
      `\n\n  ${JSON.stringify(JSON.parse(openaiTools), null, 2)}`,
      'openai',
    ],
  ])('detects %s', (_what, raw, format) => {
    expect(detectFormat(raw)).toBe(format);
  });

  it.each([
    ['plain text', 'total 4\ndrwxr-xr-x 2 me me 4096 .\n'],
    ['an empty input', ''],
    ['a gh api response', '{"login":"octocat","id":1,"repos":[{"name":"hello","private":false}]}'],
    ['a JSON array that is not messages', '[{"name":"bob","role":"admin"},{"name":"amy","role":"owner"}]'],
    ['an array of numbers', '[1,2,3]'],
    ['a JSON string', '"just a string"'],
    ['invalid JSON that starts like a body', '{"messages":[{"role":"user","content":"unterminated'],
    ['messages that are not chat messages', '{"messages":[{"text":"hello"}]}'],
    ['an empty message list with no model', '{"messages":[]}'],
    ['an input field that is not a list of items', '{"input":[1,2]}'],
    ['JSON with a byte order mark', '\uFEFF{"messages":[{"role":"user","content":"hi"}]}'],
    ['log lines of JSON objects', '{"level":"info","msg":"a"}\n{"level":"info","msg":"b"}\n'],
  ])('treats %s as text', (_what, raw) => {
    expect(detectFormat(raw)).toBe('text');
    expect(readTranscript(raw, 'auto', {}).format).toBe('text');
  });

  it('reads a Claude Code body with "system" messages beside its top-level system prompt as Anthropic', () => {
    // Claude Code 2.1.332 sends {role: "system"} messages inside messages, next to `system`.
    const body = JSON.stringify({
      model: 'claude',
      system: [{ type: 'text', text: 'You are Claude Code.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'say hi' }] },
        { role: 'system', content: [{ type: 'text', text: '# Environment' }] },
      ],
    });
    expect(detectFormat(body)).toBe('anthropic');
    expect(readTranscript(body, 'anthropic', {}).format).toBe('anthropic');
  });

  it('treats a large JSON document with no request keys as text without reading it as a request', () => {
    const big = JSON.stringify({
      items: Array.from({ length: 20_000 }, (_, i) => ({ i, role: 'user', messages: [] })),
    });
    expect(detectFormat(big)).toBe('text');
  });
});

describe('readTranscript', () => {
  it('reads auto-detected input with the matching reader', () => {
    expect(readTranscript(anthropicTools, 'auto', {}).outputs.map((o) => o.text)).toEqual(['a\nb']);
    expect(readTranscript(openaiTools, 'auto', {}).outputs.map((o) => o.id)).toEqual(['c1']);
    expect(readTranscript(responses, 'auto', {}).outputs.map((o) => o.id)).toEqual(['f']);
  });

  it('reads anything as text when text is asked for', () => {
    const t = readTranscript(openaiTools, 'text', { command: 'cat body.json' });
    expect(t.format).toBe('text');
    expect(t.outputs[0]).toMatchObject({ id: 'stdin', text: openaiTools, command: 'cat body.json' });
  });

  it.each([
    [
      'anthropic',
      'plain text',
      /^input is not an Anthropic Messages request body \(not valid JSON: .*position 0.*\)$/,
    ],
    [
      'anthropic',
      '{"model":"m","input":[]}',
      /^input is not an Anthropic Messages request body \(no "messages" array\)$/,
    ],
    [
      'anthropic',
      openaiTools,
      /^input is not an Anthropic Messages request body \(it has "tool_calls", which is OpenAI/,
    ],
    [
      'openai',
      anthropicTools,
      /^input is not an OpenAI Chat Completions request body \(it has tool_use\/tool_result blocks/,
    ],
    [
      'openai',
      '{"messages":[1,2]}',
      /^input is not an OpenAI Chat Completions request body \("messages" holds something other/,
    ],
    ['responses', openaiTools, /^input is not an OpenAI Responses request body \(no "input" array\)$/],
    ['responses', '[1]', /^input is not an OpenAI Responses request body \(not a JSON object\)$/],
  ] as const)(
    'refuses an explicit --format %s on input that is not that format (%s)',
    (format, raw, message) => {
      expect(() => readTranscript(raw, format, {})).toThrow(UsageError);
      expect(() => readTranscript(raw, format, {})).toThrow(message);
    },
  );

  it('gives an error message of one line', () => {
    try {
      readTranscript('{\n"a":\n', 'openai', {});
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).not.toContain('\n');
    }
  });
});

describe('Transcript.write', () => {
  // Odd spacing, key order and escapes that a re-serialisation would not reproduce.
  const raw =
    '{ "messages" : [\r\n' +
    '  {"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\\"command\\":\\"ls\\"}"}}],"content":null},\r\n' +
    '  {"content":"caf\\u00e9 \\/ one","tool_call_id":"c1","role":"tool"},\r\n' +
    '  {"role":"tool","tool_call_id":"c2","content":"two\\ttabbed", "extra": 1.50e1}\r\n' +
    ' ],"model":"m"}';

  it('returns the input string itself when nothing is rewritten', () => {
    const t = readTranscript(raw, 'auto', {});
    expect(t.format).toBe('openai');
    expect(t.write(new Map())).toBe(raw);
  });

  it('keeps the original bytes of an output rewritten to its own text', () => {
    const t = readTranscript(raw, 'auto', {});
    expect(t.write(new Map([['c1', 'café / one']]))).toBe(raw);
  });

  it('changes only the rewritten string, byte for byte', () => {
    const t = readTranscript(raw, 'auto', {});
    const next = 'short "quoted"\n\u2028 line';
    const out = t.write(new Map([['c1', next]]));
    const encoded = JSON.stringify(next);
    const start = raw.indexOf('"caf\\u00e9');
    const end = raw.indexOf(',"tool_call_id":"c1"');
    expect(out).toBe(raw.slice(0, start) + encoded + raw.slice(end));
    const expected = JSON.parse(raw);
    expected.messages[1].content = next;
    expect(JSON.parse(out)).toStrictEqual(expected);
  });

  it('rewrites several outputs at once and reads back the new texts under the same ids', () => {
    const t = readTranscript(raw, 'auto', {});
    const out = t.write(
      new Map([
        ['c2', 'B'],
        ['c1', 'A'],
      ]),
    );
    const again = readTranscript(out, 'auto', {});
    expect(again.outputs.map((o) => [o.id, o.text])).toEqual([
      ['c1', 'A'],
      ['c2', 'B'],
    ]);
    expect(out.slice(out.indexOf('"extra"'))).toBe(raw.slice(raw.indexOf('"extra"')));
  });

  it('refuses a rewrite for an id the transcript does not have', () => {
    const t = readTranscript(raw, 'auto', {});
    expect(() => t.write(new Map([['nope', 'x']]))).toThrow(/no tool output with id "nope"/);
  });

  it('marks an output holding an unpaired surrogate as not rewritable', () => {
    const t = readTranscript('[{"role":"tool","tool_call_id":"b","content":"bin \\ud800 ary"}]', 'auto', {});
    expect(t.outputs[0]!.rewritable).toBe(false);
  });

  it('gives the output of a cg expand call its command, so the gates keep it verbatim', () => {
    const body = {
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'e', name: 'Bash', input: { command: 'cg expand 0123456789abcdef' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'e', content: 'original bytes' }] },
      ],
    };
    const o = readTranscript(JSON.stringify(body), 'auto', {}).outputs[0]!;
    expect(o.command).toBe('cg expand 0123456789abcdef');
    expect(alwaysVerbatim(o)).toBe('cg expand output');
  });
});
