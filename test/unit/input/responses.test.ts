import { describe, expect, it } from 'vitest';
import { readTranscript } from '../../../src/input/read.js';

const body = {
  model: 'gpt-5-codex',
  instructions: 'Be brief.',
  input: [
    { role: 'user', content: 'Fix the build.' },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Looking.' }] },
    { type: 'reasoning', id: 'rs_1', summary: [] },
    { type: 'function_call', call_id: 'fc_1', name: 'shell', arguments: '{"command":["bash","-lc","make"]}' },
    { type: 'function_call_output', call_id: 'fc_1', output: 'make: *** [all] Error 2' },
    { type: 'custom_tool_call', call_id: 'ct_1', name: 'apply_patch', input: '*** Begin Patch' },
    {
      type: 'custom_tool_call_output',
      call_id: 'ct_1',
      output: [
        { type: 'input_text', text: 'Done!' },
        { type: 'input_image', image_url: 'data:image/png;base64,AAAA' },
        { type: 'output_text', text: 'M a.c' },
      ],
    },
    { type: 'function_call', call_id: 'fc_2', name: 'read_file', arguments: '{"path":"a.c"}' },
    { type: 'function_call_output', call_id: 'fc_2', output: 'int main() {}' },
  ],
};
const raw = JSON.stringify(body, null, 1);

describe('the OpenAI Responses reader', () => {
  const t = readTranscript(raw, 'responses', {});

  it('reads function_call_output and custom_tool_call_output items as outputs', () => {
    expect(t.format).toBe('responses');
    expect(t.model).toBe('gpt-5-codex');
    expect(t.outputs.map((o) => [o.id, o.text, o.messageIndex])).toEqual([
      ['fc_1', 'make: *** [all] Error 2', 4],
      ['ct_1', 'Done!', 6],
      ['ct_1#1', 'M a.c', 6],
      ['fc_2', 'int main() {}', 8],
    ]);
  });

  it('takes the tool name, command and path from the call with the same call_id', () => {
    expect(t.outputs[0]).toMatchObject({ toolName: 'shell', command: 'make', isError: false });
    expect(t.outputs[1]).toMatchObject({ toolName: 'apply_patch' });
    expect(t.outputs[1]).not.toHaveProperty('command');
    expect(t.outputs[3]).toMatchObject({ toolName: 'read_file', path: 'a.c' });
  });

  it('gives one message view per input item', () => {
    expect(t.messages).toEqual([
      { role: 'user', text: 'Fix the build.' },
      { role: 'assistant', text: 'Looking.' },
      { role: 'assistant', text: '' },
      // A call after a reasoning item, and every output, cannot open a kept run of messages.
      { role: 'assistant', text: '[function_call shell: make]', boundToPrevious: true },
      { role: 'tool', text: 'make: *** [all] Error 2', boundToPrevious: true },
      { role: 'assistant', text: '[custom_tool_call apply_patch]' },
      { role: 'tool', text: 'Done!\nM a.c', boundToPrevious: true },
      { role: 'assistant', text: '[function_call read_file: a.c]' },
      { role: 'tool', text: 'int main() {}', boundToPrevious: true },
    ]);
  });

  it('rewrites one output part and leaves the image part and everything else as it was', () => {
    const out = t.write(new Map([['ct_1#1', 'M  a.c (1 file)']]));
    const expected = structuredClone(body);
    (expected.input[6]!.output as { text?: string }[])[2]!.text = 'M  a.c (1 file)';
    expect(JSON.parse(out)).toStrictEqual(expected);
  });

  it('reads a string input as one user message with no outputs', () => {
    const s = readTranscript('{"model":"m","input":"hello"}', 'responses', {});
    expect(s.outputs).toEqual([]);
    expect(s.messages).toEqual([{ role: 'user', text: 'hello' }]);
  });
});
