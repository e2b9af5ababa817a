/**
 * extractProgram: finding the filter program in a model's reply — the last fenced JavaScript block
 * that defines `filter`, else a bare reply that is the program itself.
 */
import { describe, expect, it } from 'vitest';
import { extractProgram } from '../../../src/llm/program.js';

const PROGRAM = "function filter(text, query) {\n  return text.split('\\n').slice(0, 5).join('\\n');\n}";
const fence = (tag: string, body: string, ticks = '```'): string => `${ticks}${tag}\n${body}\n${ticks}`;

describe('extractProgram', () => {
  it('takes the program from a ```js, ```javascript or bare fence', () => {
    for (const tag of ['js', 'javascript', '', 'JavaScript']) {
      expect(extractProgram(`Here it is:\n\n${fence(tag, PROGRAM)}\n\nThis keeps 5 lines.`)).toBe(
        `${PROGRAM}\n`,
      );
    }
  });

  it('takes the last block that defines filter, skipping later examples and other languages', () => {
    const draft = 'function filter(text) { return text; }';
    const reply = [
      'First attempt:',
      fence('js', draft),
      'Better:',
      fence('javascript', PROGRAM),
      'Usage:',
      fence('js', "console.log(filter(output, 'errors'));"),
      fence('python', 'def filter(text, query):\n    return text'),
    ].join('\n');
    expect(extractProgram(reply)).toBe(`${PROGRAM}\n`);
  });

  it('accepts filter defined as a const arrow function or function expression', () => {
    const arrow = 'const filter = (text, query) => text.slice(0, 100);';
    expect(extractProgram(fence('js', arrow))).toBe(`${arrow}\n`);
    const expr = 'var filter = function (text) { return text; };';
    expect(extractProgram(fence('', expr))).toBe(`${expr}\n`);
  });

  it('handles a longer fence whose body contains a triple backtick line', () => {
    const body = "function filter(text) {\n  return text.replace('```\\n', '');\n}";
    expect(extractProgram(fence('js', body, '````'))).toBe(`${body}\n`);
  });

  it('takes a bare reply that is the program itself', () => {
    expect(extractProgram(`\n${PROGRAM}\n\n`)).toBe(`${PROGRAM}\n`);
  });

  it('drops the opening fence of a reply cut off before its closing one', () => {
    expect(extractProgram(`\`\`\`js\n${PROGRAM}`)).toBe(`${PROGRAM}\n`);
  });

  it('returns undefined when no program defines filter', () => {
    expect(extractProgram('')).toBeUndefined();
    expect(extractProgram('I would filter the errors out.')).toBeUndefined();
    expect(extractProgram(fence('js', 'function keep(text) { return text; }'))).toBeUndefined();
    expect(extractProgram(fence('python', 'def filter(text, query):\n    return text'))).toBeUndefined();
    expect(extractProgram(fence('ts', 'filter = (t: string) => t'))).toBeUndefined();
  });
});

describe('a program written as a module', () => {
  it('loses its export keyword, which a script cannot have', () => {
    const reply = '```js\nexport function filter(text, query) {\n  return text;\n}\n```';
    expect(extractProgram(reply)).toBe('function filter(text, query) {\n  return text;\n}\n');
    expect(extractProgram('export default function filter(t) { return t; }')).toBe(
      'function filter(t) { return t; }\n',
    );
  });
});
