import { describe, expect, it } from 'vitest';
import { MARKER_SLOT, type Outcome } from '../../../src/component.js';
import { type CollapseConfig, collapse, cutLine, findGap } from '../../../src/components/collapse.js';
import { context, output } from '../../helpers.js';

const cfg = collapse.defaults;

async function run(text: string, config: Partial<CollapseConfig> = {}): Promise<Outcome> {
  return collapse.run(output(text), { ...cfg, ...config }, context());
}

async function rewritten(text: string, config: Partial<CollapseConfig> = {}): Promise<string> {
  const r = await run(text, config);
  if (r.kind !== 'rewrite') throw new Error(`expected a rewrite, got skip (${r.gate})`);
  expect(r.loss).toBe('whole');
  return r.text;
}

function seq(from: number, to: number, eol = '\n'): string {
  const lines: string[] = [];
  for (let i = from; i <= to; i++) lines.push(String(i));
  return lines.join(eol) + eol;
}

describe('collapse', () => {
  it('keeps the first 20 and last 20 lines of seq 1..200000 around one omission line', async () => {
    const r = await run(seq(1, 200_000));
    if (r.kind !== 'rewrite') throw new Error(r.gate);
    expect(r.loss).toBe('whole');
    expect(r.note).toBe('kept 40 of 200000 lines');
    expect(r.text.endsWith('\n')).toBe(true);
    const lines = r.text.slice(0, -1).split('\n');
    expect(lines).toHaveLength(41);
    expect(lines.slice(0, 20)).toEqual(seq(1, 20).trim().split('\n'));
    expect(lines[20]).toBe(`... (199960 lines omitted) ${MARKER_SLOT}`);
    expect(lines.slice(21)).toEqual(seq(199_981, 200_000).trim().split('\n'));
  });

  it('gives exact output on a small input', async () => {
    const text = 'a\nb\nc\nd\ne\nf\n';
    expect(await rewritten(text, { max_tokens: 1, head_lines: 2, tail_lines: 1 })).toBe(
      `a\nb\n... (3 lines omitted) ${MARKER_SLOT}\nf\n`,
    );
  });

  it('keeps no trailing newline when the input had none', async () => {
    const out = await rewritten('a\nb\nc\nd\ne', { max_tokens: 1, head_lines: 1, tail_lines: 1 });
    expect(out).toBe(`a\n... (3 lines omitted) ${MARKER_SLOT}\ne`);
  });

  it('keeps CRLF line endings, on the omission line too', async () => {
    const out = await rewritten(seq(1, 1000, '\r\n'), { head_lines: 2, tail_lines: 2, max_tokens: 10 });
    expect(out).toBe(`1\r\n2\r\n... (996 lines omitted) ${MARKER_SLOT}\r\n999\r\n1000\r\n`);
  });

  it('handles head_lines 0 and tail_lines 0', async () => {
    const text = 'a\nb\nc\nd\n';
    const small = { max_tokens: 1 };
    expect(await rewritten(text, { ...small, head_lines: 0, tail_lines: 1 })).toBe(
      `... (3 lines omitted) ${MARKER_SLOT}\nd\n`,
    );
    expect(await rewritten(text, { ...small, head_lines: 1, tail_lines: 0 })).toBe(
      `a\n... (3 lines omitted) ${MARKER_SLOT}\n`,
    );
    expect(await rewritten('a\r\nb\r\nc', { ...small, head_lines: 0, tail_lines: 0 })).toBe(
      `... (3 lines omitted) ${MARKER_SLOT}`,
    );
  });

  it('counts blank lines as lines', async () => {
    const out = await rewritten('a\n\n\n\nz\n', { max_tokens: 1, head_lines: 1, tail_lines: 1 });
    expect(out).toBe(`a\n... (3 lines omitted) ${MARKER_SLOT}\nz\n`);
  });

  it('cuts a single giant line in its middle (minified JSON)', async () => {
    const json = JSON.stringify(Array.from({ length: 400_000 }, (_, i) => ({ i })));
    expect(json.length).toBeGreaterThan(5_000_000);
    const r = await run(json + '\n');
    if (r.kind !== 'rewrite') throw new Error(r.gate);
    expect(r.note).toBe('kept 1 of 1 lines, cut 1 long line');
    expect(r.text).not.toContain(MARKER_SLOT);
    expect(r.text.endsWith('\n')).toBe(true);
    const line = r.text.slice(0, -1);
    expect(line.length).toBeLessThanOrEqual(400);
    const m = /^(.*)… \((\d+) chars omitted\) …(.*)$/.exec(line);
    expect(m).not.toBeNull();
    const [, start, omitted, end] = m as unknown as [string, string, string, string];
    expect(json.startsWith(start)).toBe(true);
    expect(json.endsWith(end)).toBe(true);
    expect(start.length + Number(omitted) + end.length).toBe(json.length);
  });

  it('cuts long kept lines and omits the middle together', async () => {
    const long = 'x'.repeat(1000);
    const text = [long, 'b', 'c', 'd', `${long}\r`, ''].join('\n');
    const out = await rewritten(text, { max_tokens: 10, head_lines: 1, tail_lines: 1, max_line_chars: 100 });
    const lines = out.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^x+… \(\d+ chars omitted\) …x+$/);
    expect(lines[0]?.length).toBeLessThanOrEqual(100);
    expect(lines[1]).toBe(`... (3 lines omitted) ${MARKER_SLOT}`);
    expect(lines[2]).toMatch(/^x+… \(\d+ chars omitted\) …x+\r$/);
    expect(lines[3]).toBe('');
  });

  it('never splits a surrogate pair when cutting', () => {
    const line = '😀'.repeat(100);
    const cut = cutLine(line, 0, line.length, 41) as string;
    expect(cut).toBeDefined();
    expect(cut).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });

  it('skips inputs under max_tokens', async () => {
    expect(await run(seq(1, 100))).toEqual({ kind: 'skip', gate: 'under max_tokens' });
  });

  it('skips when every line is kept and none is too long', async () => {
    expect(await run('one\ntwo\nthree\n', { max_tokens: 1 })).toEqual({
      kind: 'skip',
      gate: 'nothing to drop',
    });
    const long = 'y'.repeat(1000);
    expect(await run(long, { max_tokens: 1, max_line_chars: 0 })).toEqual({
      kind: 'skip',
      gate: 'nothing to drop',
    });
  });

  it('is idempotent: its own output is a skip', async () => {
    const once = await rewritten(seq(1, 200_000));
    expect(await run(once)).toEqual({ kind: 'skip', gate: 'under max_tokens' });
    const giant = 'z'.repeat(100_000);
    const cut = await rewritten(`${giant}\n${giant}\n`, { max_tokens: 10 });
    expect(await run(cut, { max_tokens: 10 })).toEqual({ kind: 'skip', gate: 'nothing to drop' });
  });

  it('applies only when the text could exceed max_tokens', () => {
    expect(collapse.applies?.(output('short'), cfg)).toBe(false);
    expect(collapse.applies?.(output('x'.repeat(700)), cfg)).toBe(true);
  });

  it('parses its config strictly, with the path in the message', () => {
    expect(collapse.parseConfig(undefined)).toEqual({
      max_tokens: 2000,
      head_lines: 20,
      tail_lines: 20,
      max_line_chars: 400,
    });
    expect(collapse.parseConfig({ head_lines: 5 })).toMatchObject({ head_lines: 5, tail_lines: 20 });
    expect(() => collapse.parseConfig({ head_lines: 'x' })).toThrow(
      'head_lines: expected an integer ≥ 0, got "x"',
    );
    expect(() => collapse.parseConfig({ max_tokens: -5 })).toThrow(
      'max_tokens: expected an integer ≥ 0, got -5',
    );
    expect(() => collapse.parseConfig({ tail_lines: 2.5 })).toThrow(
      'tail_lines: expected an integer ≥ 0, got 2.5',
    );
    expect(() => collapse.parseConfig({ max_line_char: 10 })).toThrow(/^max_line_char: unknown key/);
    expect(() => collapse.parseConfig('big')).toThrow('expected a mapping, got "big"');
  });
});

describe('findGap', () => {
  it('returns undefined when head and tail cover every line', () => {
    expect(findGap('a\nb\n', 1, 1)).toBeUndefined();
    expect(findGap('a\nb', 2, 0)).toBeUndefined();
    expect(findGap('a\nb\nc', 1, 2)).toBeUndefined();
  });

  it('locates the omitted middle', () => {
    expect(findGap('a\nb\nc\n', 1, 1)).toEqual({ headEnd: 2, gapEnd: 3, omitted: 1 });
    expect(findGap('a\n\nc', 1, 1)).toEqual({ headEnd: 2, gapEnd: 2, omitted: 1 });
    expect(findGap('a\nb\nc\n', 1, 0)).toEqual({ headEnd: 2, gapEnd: 6, omitted: 2 });
  });
});
