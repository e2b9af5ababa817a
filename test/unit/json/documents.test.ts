import { describe, expect, it } from 'vitest';
import { jsonDocuments } from '../../../src/json/documents.js';

const spans = (text: string) => jsonDocuments(text).map((d) => text.slice(d.start, d.end));

describe('jsonDocuments', () => {
  it('finds the whole output, whatever its layout', () => {
    expect(spans('  {"a": 1}\n')).toEqual(['{"a": 1}']);
    expect(spans('[\n  1,\n  2\n]')).toEqual(['[\n  1,\n  2\n]']);
  });

  it('finds the content of fenced json blocks, and only json ones', () => {
    const md = 'x\n```json\n  {\n    "a": 1\n  }\n```\n```js\n{\n  "b": 2\n}\n```\n';
    expect(spans(md)).toEqual(['{\n    "a": 1\n  }', '{\n  "b": 2\n}']);
    expect(spans('```json\n{"a": 1} trailing\n```\n')).toEqual([]);
  });

  it('finds multi-line values that open in the first column and close at a line end', () => {
    expect(spans('log\n{\n  "a": 1\n}\nmore\n')).toEqual(['{\n  "a": 1\n}']);
    expect(spans('log\n{\n  "a": 1\n}   \nmore\n')).toEqual(['{\n  "a": 1\n}']);
  });

  it('never takes code, diffs, prose, indented or empty blocks', () => {
    for (const text of [
      'class A {\n}\n',
      'x = {\n  "a": 1\n}\n',
      ' {\n   "a": 1\n }\n-x\n',
      '  {\n    "a": 1\n  }\nrest\n',
      'void f()\n{\n}\nrest\n',
      'log\n{"a": 1}\nrest\n',
      'log\n{\n  "a": 1\n} and text\n',
    ])
      expect(spans(text), JSON.stringify(text)).toEqual([]);
  });

  it('scans each of many unterminated openers once (a quadratic scan would not finish)', () => {
    expect(jsonDocuments(`x\n${'[\n'.repeat(100_000)}`)).toEqual([]);
    expect(jsonDocuments(`x\n${'{"a":\n'.repeat(50_000)}`)).toEqual([]);
  });
});
