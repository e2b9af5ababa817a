import { describe, expect, it } from 'vitest';
import { LineIndex } from '../../../src/code/lines.js';
import { type Cut, render } from '../../../src/code/render.js';

const code = ['a {', '  b', '  c', '}', 'd', ''].join('\n');
const lines = new LineIndex(code);
const at = (s: string) => code.indexOf(s);

describe('render', () => {
  it('gives every output line the number of the source line it stands for', () => {
    const cuts: Cut[] = [{ start: at('{'), end: at('}') + 1, text: '{ … }' }];
    expect(render(lines, cuts)).toEqual([
      { line: 0, text: 'a { … }' },
      { line: 4, text: 'd' },
      { line: 5, text: '' },
    ]);
  });

  it('lets whole dropped lines take their numbers with them', () => {
    const cuts: Cut[] = [{ start: lines.start(1), end: lines.start(3), text: '' }];
    expect(render(lines, cuts).map((l) => l.line)).toEqual([0, 3, 4, 5]);
  });

  it('without cuts is the text split into lines', () => {
    const out = render(lines, []);
    expect(out.map((l) => l.text).join('\n')).toBe(code);
    expect(out.map((l) => l.line)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('keeps CRLF line endings of the lines it keeps', () => {
    const crlf = new LineIndex('x {\r\n  y\r\n}\r\nz\r\n');
    const text = crlf.text;
    const out = render(crlf, [{ start: text.indexOf('{'), end: text.indexOf('}') + 1, text: '{ … }' }]);
    expect(out.map((l) => l.text).join('\n')).toBe('x { … }\r\nz\r\n');
  });
});

describe('LineIndex', () => {
  it('maps offsets to lines, with a newline belonging to the line it ends', () => {
    const l = new LineIndex('ab\ncd\n');
    expect(l.count).toBe(3);
    expect([0, 2, 3, 5, 6].map((o) => l.lineOf(o))).toEqual([0, 0, 1, 1, 2]);
    expect(l.content(1)).toBe('cd');
    expect(new LineIndex('a\r\nb').contentEnd(0)).toBe(1);
  });
});
