import { describe, expect, it } from 'vitest';
import { readText } from '../../../src/input/text.js';
import { alwaysVerbatim } from '../../../src/pipeline/verbatim.js';

describe('readText', () => {
  it('reads the whole input as one rewritable tool output named stdin', () => {
    const t = readText('line 1\nline 2\n', { command: 'ls -la', path: 'dir' });
    expect(t.format).toBe('text');
    expect(t.outputs).toEqual([
      {
        id: 'stdin',
        text: 'line 1\nline 2\n',
        rewritable: true,
        isError: false,
        messageIndex: 0,
        command: 'ls -la',
        path: 'dir',
      },
    ]);
    expect(t.model).toBeUndefined();
  });

  it('leaves command and path out when the command line gave none', () => {
    const [o] = readText('x', {}).outputs;
    expect(o).not.toHaveProperty('command');
    expect(o).not.toHaveProperty('path');
  });

  it('writes the rewrite, or the input itself when there is none', () => {
    const raw = 'original';
    const t = readText(raw, {});
    expect(t.write(new Map())).toBe(raw);
    expect(t.write(new Map([['stdin', 'shorter']]))).toBe('shorter');
  });

  it('gives the output of cg expand its command, so the gates keep it verbatim', () => {
    const o = readText('x', { command: 'cg expand 0123456789abcdef' }).outputs[0]!;
    expect(alwaysVerbatim(o)).toBe('cg expand output');
  });
});
