import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyEdits,
  type JsonNode,
  JsonSyntaxError,
  member,
  parseJsonSpans,
  stringOf,
  toValue,
} from '../../../src/json/spans.js';
import { corpusPath, HAS_CORPUS } from '../../helpers.js';

/** Every node of a tree, iteratively (deep inputs must not overflow the test either). */
function allNodes(root: JsonNode): JsonNode[] {
  const out: JsonNode[] = [];
  const work = [root];
  for (let n = work.pop(); n !== undefined; n = work.pop()) {
    out.push(n);
    if (n.type === 'object') for (const m of n.members) work.push(m.value);
    if (n.type === 'array') work.push(...n.items);
  }
  return out;
}

/** The parser agrees with JSON.parse on the whole value and on the span of every node. */
function expectAgrees(src: string): void {
  const root = parseJsonSpans(src);
  expect(toValue(root)).toStrictEqual(JSON.parse(src));
  expect(src.slice(0, root.start).trim()).toBe('');
  expect(src.slice(root.end).trim()).toBe('');
  for (const node of allNodes(root)) {
    expect(JSON.parse(src.slice(node.start, node.end))).toStrictEqual(toValue(node));
  }
  if (root.type === 'object') {
    for (const m of root.members)
      expect(JSON.parse(src.slice(m.keyStart, m.value.start).replace(/\s*:\s*$/, ''))).toBe(m.key);
  }
}

const VALID = [
  '0',
  '-0',
  '1e3',
  '-12.5E-3',
  '1.0e+2',
  '123456789012345678901234567890',
  '1e400',
  '5e-324',
  '0.1',
  'true',
  'false',
  'null',
  '""',
  '"plain"',
  '"esc \\" \\\\ \\/ \\b \\f \\n \\r \\t"',
  '"\\u00e9\\u0041\\uD83D\\uDE00 and raw é 😀"',
  '"lone \\ud800 surrogate"',
  '"\\u0000"',
  '[]',
  '{}',
  ' \t\r\n[ 1 , 2 ,\n3 ] \n',
  '{"a":1,"b":[true,false,null],"c":{"d":"e"}}',
  '{"dup":1,"other":2,"dup":3}',
  '{"__proto__":{"x":1}}',
  '{"":""}',
  '[[[[[[[[[["deep"]]]]]]]]]]',
  '{"a":{"b":{"c":{"d":[{"e":[]}]}}}}',
  '["\u2028\u2029"]',
];

const INVALID = [
  '',
  ' ',
  '{',
  '[',
  '[1,]',
  '{"a":1,}',
  '{"a" 1}',
  '{a:1}',
  "{'a':1}",
  '[1 2]',
  '01',
  '-',
  '1.',
  '.5',
  '1e',
  '1e+',
  '+1',
  'NaN',
  'Infinity',
  'tru',
  'nul',
  'True',
  '"unterminated',
  '"bad \\x escape"',
  '"bad \\u12 escape"',
  '"raw\ttab"',
  '"raw\nnewline"',
  '"escaped\\n then raw\ttab"',
  '"escaped\\n then bad \\q"',
  '[1]]',
  '{} {}',
  '\uFEFF{}',
  '[1,\u00a0 2]',
  '{"a":1}x',
  '"\\',
];

describe('parseJsonSpans', () => {
  it.each(VALID)('parses %j exactly as JSON.parse does, with a correct span for every value', (src) => {
    expectAgrees(src);
  });

  it.each(INVALID)('rejects %j, as JSON.parse does, with a position', (src) => {
    expect(() => JSON.parse(src)).toThrow();
    let error: unknown;
    try {
      parseJsonSpans(src);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JsonSyntaxError);
    expect(error).toBeInstanceOf(SyntaxError);
    const position = (error as JsonSyntaxError).position;
    expect(position).toBeGreaterThanOrEqual(0);
    expect(position).toBeLessThanOrEqual(src.length);
  });

  it('reports the position of the first bad character', () => {
    expect(() => parseJsonSpans('{"a": [1, 2,, 3]}')).toThrow(/at position 12/);
    expect(() => parseJsonSpans('[1, 2')).toThrow(/Unexpected end of JSON input/);
    expect(() => parseJsonSpans('["ok\\n then \\q"]')).toThrow(
      /Bad escaped character in JSON at position 13/,
    );
    expect(() => parseJsonSpans('"a\\"b')).toThrow(/Unterminated string/);
  });

  it('keeps a number exactly as JSON.parse reads it', () => {
    for (const n of ['0.1', '1e-7', '9007199254740993', '-1.7976931348623157e308', '2.5e-400']) {
      expect(stringOf(parseJsonSpans(`"${n}"`))).toBe(n);
      expect(toValue(parseJsonSpans(n))).toBe(JSON.parse(n));
    }
  });

  it('parses nesting a hundred thousand levels deep without overflowing the stack', () => {
    const depth = 100_000;
    const src = `${'[{"k":'.repeat(depth)}1${'}]'.repeat(depth)}`;
    const root = parseJsonSpans(src);
    let node: JsonNode | undefined = root;
    let levels = 0;
    while (node?.type === 'array') {
      node = member(node.items[0], 'k');
      levels++;
    }
    expect(levels).toBe(depth);
    expect(node).toMatchObject({ type: 'number', value: 1 });
    expect(() => parseJsonSpans(`${'['.repeat(depth)}${']'.repeat(depth - 1)}`)).toThrow(JsonSyntaxError);
    expect(Array.isArray(toValue(root))).toBe(true);
  });

  it('member returns the last of duplicate keys, as JSON.parse keeps', () => {
    const root = parseJsonSpans('{"a":1,"b":2,"a":3}');
    expect(member(root, 'a')).toMatchObject({ value: 3 });
    expect(member(root, 'missing')).toBeUndefined();
    expect(member(parseJsonSpans('[1]'), 'a')).toBeUndefined();
  });

  it('agrees with JSON.parse on arbitrary JSON values in any layout', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 1, '\t', ' \n '), (value, indent) => {
        expectAgrees(JSON.stringify(value, null, indent));
      }),
      { numRuns: 300 },
    );
  });

  it('accepts exactly what JSON.parse accepts on mutated JSON', () => {
    const token = fc.constantFrom(
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      '"',
      '\\',
      'a',
      '1',
      '-',
      '.',
      'e',
      ' ',
      'true',
      'null',
      '\n',
      'u',
    );
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.nat(),
        fc.array(token, { maxLength: 3 }),
        fc.nat(3),
        (value, at, insert, cut) => {
          const base = JSON.stringify(value) ?? 'null';
          const i = at % (base.length + 1);
          const src = base.slice(0, i) + insert.join('') + base.slice(i + cut);
          let expected: unknown;
          let ok = true;
          try {
            expected = JSON.parse(src);
          } catch {
            ok = false;
          }
          if (ok) expect(toValue(parseJsonSpans(src))).toStrictEqual(expected);
          else expect(() => parseJsonSpans(src)).toThrow(JsonSyntaxError);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe.skipIf(!HAS_CORPUS)('parseJsonSpans on the corpus request bodies', () => {
  const files = HAS_CORPUS
    ? ['anthropic', 'openai'].flatMap((d) =>
        readdirSync(corpusPath('transcripts', d))
          .filter((f) => f.endsWith(`.${d}.json`))
          .map((f) => corpusPath('transcripts', d, f)),
      )
    : [];

  it.each(files)('parses %s to the value JSON.parse returns, with exact string spans', (file) => {
    const src = readFileSync(file, 'utf8');
    const root = parseJsonSpans(src);
    expect(toValue(root)).toStrictEqual(JSON.parse(src));
    for (const node of allNodes(root)) {
      if (node.type === 'string') expect(JSON.parse(src.slice(node.start, node.end))).toBe(node.value);
    }
  });
});

describe('applyEdits', () => {
  it('replaces each span and leaves every other character as it was', () => {
    expect(
      applyEdits('0123456789', [
        { start: 7, end: 9, text: 'X' },
        { start: 1, end: 3, text: 'abc' },
      ]),
    ).toBe('0abc3456X9');
  });

  it('inserts at an empty span and returns the source itself with no edits', () => {
    const src = 'hello';
    expect(applyEdits(src, [])).toBe(src);
    expect(applyEdits(src, [{ start: 5, end: 5, text: '!' }])).toBe('hello!');
    expect(applyEdits(src, [{ start: 0, end: 0, text: '>' }])).toBe('>hello');
  });

  it('refuses overlapping edits and spans outside the source', () => {
    expect(() =>
      applyEdits('0123456789', [
        { start: 1, end: 5, text: '' },
        { start: 4, end: 6, text: '' },
      ]),
    ).toThrow(RangeError);
    expect(() => applyEdits('abc', [{ start: 2, end: 4, text: '' }])).toThrow(RangeError);
    expect(() => applyEdits('abc', [{ start: -1, end: 1, text: '' }])).toThrow(RangeError);
    expect(() => applyEdits('abc', [{ start: 2, end: 1, text: '' }])).toThrow(RangeError);
  });

  it('splices a new string into a string span so that only that value changes', () => {
    const src = '{ "a" : "x\\u0041",\n  "b": [ "keep\\/me", 1.50 ] }';
    const root = parseJsonSpans(src);
    const a = member(root, 'a')!;
    const out = applyEdits(src, [{ start: a.start, end: a.end, text: JSON.stringify('new "text"\n') }]);
    expect(JSON.parse(out)).toStrictEqual({ a: 'new "text"\n', b: ['keep/me', 1.5] });
    expect(out.slice(0, a.start)).toBe(src.slice(0, a.start));
    expect(out.slice(out.length - (src.length - a.end))).toBe(src.slice(a.end));
  });
});
