import { describe, expect, it } from 'vitest';
import { byteEdits, mapBody } from '../../../../src/proxy/retrieval/body-map.js';
import { type Splice, spliceEdits } from '../../../../src/proxy/retrieval/splice.js';
import { toolDefinition, toolEdit } from '../../../../src/proxy/retrieval/tool.js';
import { keyOf } from '../../../../src/store/keys.js';

const chat = (messages: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: 'm', messages, ...extra });
const user = { role: 'user', content: 'hi' };
const answer = { role: 'assistant', content: 'the answer' };
const hidden = ['{"role":"assistant","content":null}', '{"role":"tool","tool_call_id":"c","content":"x"}'];

function spliced(text: string, splices: Splice[], format: 'anthropic' | 'openai' | 'responses' = 'openai') {
  const bytes = Buffer.from(text);
  return byteEdits(bytes, spliceEdits(mapBody(bytes, format)!, splices)).toString();
}

describe('retrieval splices', () => {
  it('put a hidden exchange after the message it follows, only when that message is as it was and the answer follows', () => {
    const after: Splice = { op: 'after', at: 0, hash: keyOf(JSON.stringify(user)), items: hidden };
    const two = chat([user, answer]);
    expect(JSON.parse(spliced(two, [after])).messages).toEqual([
      user,
      ...hidden.map((h) => JSON.parse(h)),
      answer,
    ]);
    // A retry of the request the exchange was made for: nothing follows it yet.
    expect(spliced(chat([user]), [after])).toBe(chat([user]));
    // A history the client edited: the message is not the one the exchange followed.
    const edited = chat([{ role: 'user', content: 'hello' }, answer]);
    expect(spliced(edited, [after])).toBe(edited);
  });

  it('replace the client copy of an answer only where it holds the client calls', () => {
    const copy = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_A', type: 'function', function: { name: 'x', arguments: '{}' } }],
    };
    const replace: Splice = {
      op: 'replace',
      at: 1,
      holds: ['call_A'],
      items: ['{"role":"assistant","full":true}'],
    };
    expect(JSON.parse(spliced(chat([user, copy]), [replace])).messages[1]).toEqual({
      role: 'assistant',
      full: true,
    });
    const other = chat([user, { ...copy, tool_calls: [{ ...copy.tool_calls[0], id: 'call_B' }] }]);
    expect(spliced(other, [replace])).toBe(other);
  });

  it("prepend tool_result blocks before the client's own results, and to no message without them", () => {
    const blocks = ['{"type":"tool_result","tool_use_id":"t2","content":"r"}'];
    const p: Splice = { op: 'prepend', at: 0, holds: ['t1'], items: blocks };
    const arrayed = JSON.stringify({
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a' }] }],
    });
    const ids = JSON.parse(spliced(arrayed, [p], 'anthropic')).messages[0].content.map(
      (b: { tool_use_id: string }) => b.tool_use_id,
    );
    expect(ids).toEqual(['t2', 't1']);
    const stringy = JSON.stringify({ messages: [{ role: 'user', content: 'see "t1"' }] });
    expect(spliced(stringy, [p], 'anthropic')).toBe(stringy);
  });

  it('put results first in a Responses input that holds the client results, and in no other', () => {
    const s: Splice = {
      op: 'input-start',
      holds: ['call_A'],
      items: ['{"type":"function_call_output","call_id":"call_P","output":"o"}'],
    };
    const withResult = JSON.stringify({
      previous_response_id: 'r',
      input: [{ type: 'function_call_output', call_id: 'call_A', output: 'x' }],
    });
    expect(
      JSON.parse(spliced(withResult, [s], 'responses')).input.map((i: { call_id: string }) => i.call_id),
    ).toEqual(['call_P', 'call_A']);
    const without = JSON.stringify({ previous_response_id: 'r', input: 'next question' });
    expect(spliced(without, [s], 'responses')).toBe(without);
  });
});

describe('the proxy tool in a body', () => {
  it('goes last in the tools array, as a member of its own, or in place of null, with the same bytes each time', () => {
    const def = toolDefinition('openai');
    const add = (text: string) => {
      const bytes = Buffer.from(text);
      return byteEdits(bytes, [toolEdit(mapBody(bytes, 'openai')!, 'openai')!]).toString();
    };
    expect(add('{"tools":[{"a":1}],"messages":[]}')).toBe(`{"tools":[{"a":1},${def}],"messages":[]}`);
    expect(add('{"tools":[ ],"messages":[]}')).toBe(`{"tools":[ ${def}],"messages":[]}`);
    expect(add('{"messages":[]}')).toBe(`{"tools":[${def}],"messages":[]}`);
    expect(add('{}')).toBe(`{"tools":[${def}]}`);
    expect(add('{"tools":null}')).toBe(`{"tools":[${def}]}`);
    expect(toolEdit(mapBody(Buffer.from('{"tools":{}}'), 'openai')!, 'openai')).toBeUndefined();
  });

  it('is the MCP tool contract in each format, Responses with strict off so lines and grep stay optional', () => {
    const a = JSON.parse(toolDefinition('anthropic'));
    expect(a.name).toBe('cg_expand');
    expect(a.input_schema.required).toEqual(['key']);
    expect(JSON.parse(toolDefinition('openai')).function.parameters).toEqual(a.input_schema);
    const r = JSON.parse(toolDefinition('responses'));
    expect(r.strict).toBe(false);
    expect(r.parameters).toEqual(a.input_schema);
  });
});
