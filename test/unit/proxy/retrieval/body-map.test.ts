import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byteEdits, itemBytes, mapBody } from '../../../../src/proxy/retrieval/body-map.js';

const parse = (b: Buffer | undefined) => JSON.parse(b!.toString('utf8'));

describe('a body mapped by its bytes', () => {
  it('gives each top-level member and conversation element exactly the bytes JSON.parse reads for it', () => {
    const body = fc.record({
      extra: fc.dictionary(
        fc.string().filter((k) => k !== 'messages'),
        fc.jsonValue(),
        { maxKeys: 4 },
      ),
      messages: fc.array(fc.jsonValue(), { maxLength: 6 }),
      indent: fc.constantFrom(0, 1, 2, '\t'),
    });
    fc.assert(
      fc.property(body, ({ extra, messages, indent }) => {
        const value = { ...extra, messages };
        const bytes = Buffer.from(JSON.stringify(value, null, indent));
        const whole = JSON.parse(bytes.toString('utf8')) as Record<string, unknown> & { messages: unknown[] };
        const map = mapBody(bytes, 'openai')!;
        expect(map).toBeDefined();
        for (const [key, span] of map.members)
          expect(JSON.parse(bytes.toString('utf8', span.start, span.end))).toEqual(whole[key]);
        expect(map.items!.length).toBe(messages.length);
        for (const [i, m] of whole.messages.entries()) expect(parse(itemBytes(map, i))).toEqual(m);
      }),
      { numRuns: 300 },
    );
  });

  it('reads escapes, quotes after backslashes and text past ASCII as JSON does', () => {
    const value = { messages: ['a\\', '"quoted"', '\\"', 'é😀\u2028', { s: '}]' }], tail: 'x\\\\"y' };
    const bytes = Buffer.from(JSON.stringify(value));
    const map = mapBody(bytes, 'openai')!;
    expect(map.items!.map((_, i) => parse(itemBytes(map, i)))).toEqual(value.messages);
    const t = map.members.get('tail')!;
    expect(JSON.parse(bytes.toString('utf8', t.start, t.end))).toBe(value.tail);
  });

  it('is none for a body that is not one JSON object, and keeps the last of a repeated member', () => {
    for (const bad of ['', '[]', '{"a":1', '{"a":"x}', '{"a":1} trailing', '{"messages":[1,}', '{a:1}'])
      expect(mapBody(Buffer.from(bad), 'openai'), bad).toBeUndefined();
    const twice = Buffer.from('{"messages":[1],"messages":[2,3]}');
    expect(mapBody(twice, 'openai')!.items!.length).toBe(2);
    expect(mapBody(Buffer.from('{"input":"just text"}'), 'responses')!.conversation!.kind).toBe('string');
  });

  it('is edited byte for byte: each span replaced, every other byte as it came', () => {
    const bytes = Buffer.from('{"é":1,"b":[2]}');
    expect(
      byteEdits(bytes, [
        { start: 14, end: 14, text: ',3' },
        { start: 1, end: 1, text: '"z":0,' },
      ]).toString(),
    ).toBe('{"z":0,"é":1,"b":[2,3]}');
    expect(() =>
      byteEdits(bytes, [
        { start: 2, end: 5, text: '' },
        { start: 3, end: 4, text: '' },
      ]),
    ).toThrow(RangeError);
  });
});
