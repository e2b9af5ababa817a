import { describe, expect, it } from 'vitest';
import {
  classify,
  filterLines,
  headTail,
  joinLines,
  matchOutput,
  maxLines,
  onEmpty,
  replaceLines,
  splitLines,
  stripAnsi,
  truncateLine,
  truncateLines,
} from '../../../src/dsl/stages.js';

const texts = (text: string) => splitLines(text).lines.map((l) => l.text);

describe('the line model', () => {
  it('splits on newlines, keeps CRLF endings out of the content and joins back to the same bytes', () => {
    for (const t of ['', 'a', 'a\n', 'a\nb', 'a\r\nb\r\n', '\n\n', 'x\r\ny\nz', 'café ☕\n𝔘\n']) {
      expect(joinLines(splitLines(t))).toBe(t);
    }
    expect(texts('a\r\nb\r\n')).toEqual(['a', 'b']);
    expect(splitLines('a\r\nb').nl).toBe('\r\n');
  });

  it('reads an empty text as no lines and a lone newline as one empty line', () => {
    expect(splitLines('').lines).toEqual([]);
    expect(texts('\n')).toEqual(['']);
  });

  it('numbers lines from 1 in src', () => {
    expect(splitLines('a\nb\nc').lines.map((l) => l.src)).toEqual([1, 2, 3]);
  });
});

describe('stage 1: strip_ansi', () => {
  it('removes colour, cursor and OSC hyperlink sequences and marks changed lines', () => {
    const doc = stripAnsi(
      splitLines('\x1b[31mred\x1b[0m\nplain\n\x1b]8;;http://x\x07link\x1b]8;;\x07\n\x1b[2K\x1b[1Gbar\n'),
    );
    expect(doc.lines.map((l) => l.text)).toEqual(['red', 'plain', 'link', 'bar']);
    expect(doc.lines.map((l) => l.src)).toEqual([0, 2, 0, 0]);
  });
});

describe('stage 2: replace', () => {
  it('applies every rule to every line in order, each seeing the previous result', () => {
    const rules = [(s: string) => s.replace(/a/g, 'b'), (s: string) => s.replace(/b/g, 'c')];
    expect(replaceLines(splitLines('a\nb\nx\n'), rules).lines.map((l) => l.text)).toEqual(['c', 'c', 'x']);
  });

  it('turns a replacement containing a newline into several lines', () => {
    const doc = replaceLines(splitLines('a;b\nc\n'), [(s) => s.replace(';', '\n')]);
    expect(joinLines(doc)).toBe('a\nb\nc\n');
  });

  it('keeps CRLF line endings of rewritten lines', () => {
    expect(joinLines(replaceLines(splitLines('ab\r\ncd\r\n'), [(s) => s.toUpperCase()]))).toBe(
      'AB\r\nCD\r\n',
    );
  });
});

describe('stage 3: match_output', () => {
  const rule = (p: RegExp, message: string, unless?: RegExp) => ({
    test: (b: string) => p.test(b),
    ...(unless ? { unless: (b: string) => unless.test(b) } : {}),
    message,
  });

  it('gives the message of the first rule whose pattern is found in the whole text', () => {
    const doc = splitLines('Compiling\nFinished in 2s\n');
    expect(matchOutput(doc, [rule(/nope/, 'a'), rule(/^Finished/m, 'b'), rule(/Compiling/, 'c')])).toBe('b');
  });

  it('does not fire when unless is also found, and falls through to the next rule', () => {
    const doc = splitLines('Finished\nerror: boom\n');
    expect(matchOutput(doc, [rule(/Finished/, 'ok', /error/)])).toBeUndefined();
    expect(matchOutput(doc, [rule(/Finished/, 'ok', /error/), rule(/error/, 'failed')])).toBe('failed');
  });
});

describe('stage 4: strip_lines_matching xor keep_lines_matching', () => {
  it('drops matching lines (strip) or keeps only them (keep), leaving kept lines untouched', () => {
    const doc = splitLines('ok 1\nFAIL 2\nok 3\n');
    const isFail = (s: string) => s.startsWith('FAIL');
    expect(filterLines(doc, isFail, false).lines.map((l) => [l.text, l.src])).toEqual([
      ['ok 1', 1],
      ['ok 3', 3],
    ]);
    expect(filterLines(doc, isFail, true).lines.map((l) => [l.text, l.src])).toEqual([['FAIL 2', 2]]);
  });
});

describe('stage 5: truncate_lines_at', () => {
  it('cuts a line longer than N to N characters ending in "..."', () => {
    expect(truncateLine('abcdefghij', 8)).toBe('abcde...');
    expect(truncateLine('abcdefgh', 8)).toBe('abcdefgh');
  });

  it('counts code points, so no surrogate pair is split and the result is within N', () => {
    const line = '𝔘𝔫𝔦𝔠𝔬𝔡𝔢𝔘𝔫𝔦𝔠𝔬';
    const cut = truncateLine(line, 8);
    expect(cut).toBe('𝔘𝔫𝔦𝔠𝔬...');
    expect([...cut].length).toBe(8);
    expect(truncateLine('😀😀😀😀', 4)).toBe('😀😀😀😀');
  });

  it('changes nothing when run again on its own output', () => {
    const once = joinLines(truncateLines(splitLines(`${'x'.repeat(50)}\nshort\n`), 10));
    expect(joinLines(truncateLines(splitLines(once), 10))).toBe(once);
    expect(once).toBe('xxxxxxx...\nshort\n');
  });
});

describe('stage 6: head_lines / tail_lines', () => {
  const ten = Array.from({ length: 10 }, (_, i) => `l${i + 1}`).join('\n');

  it('keeps head and tail with one omission line between them', () => {
    expect(joinLines(headTail(splitLines(ten), 2, 3))).toBe('l1\nl2\n... (5 lines omitted)\nl8\nl9\nl10');
  });

  it('with only head ends with the omission line; with only tail starts with it', () => {
    expect(joinLines(headTail(splitLines(`${ten}\n`), 2, undefined))).toBe('l1\nl2\n... (8 lines omitted)\n');
    expect(joinLines(headTail(splitLines(ten), undefined, 2))).toBe('... (8 lines omitted)\nl9\nl10');
  });

  it('changes nothing when head + tail cover every line', () => {
    const doc = splitLines(ten);
    expect(headTail(doc, 5, 5)).toBe(doc);
  });

  it('uses the CRLF ending of the input for the omission line', () => {
    expect(joinLines(headTail(splitLines('a\r\nb\r\nc\r\n'), 1, undefined))).toBe(
      'a\r\n... (2 lines omitted)\r\n',
    );
  });
});

describe('stage 7: max_lines', () => {
  it('keeps the first N lines and counts the rest in one omission line', () => {
    expect(joinLines(maxLines(splitLines('1\n2\n3\n4\n5\n'), 2))).toBe('1\n2\n... (3 lines omitted)\n');
  });

  it('counts an earlier omission line by what it stood for and never stacks two', () => {
    const doc = headTail(splitLines(Array.from({ length: 20 }, (_, i) => `${i + 1}`).join('\n')), 3, 3);
    // 1 2 3 ... (14) 18 19 20 → keep 4 lines: the omission line is the 4th and absorbs the rest.
    expect(joinLines(maxLines(doc, 4))).toBe('1\n2\n3\n... (17 lines omitted)');
    expect(joinLines(maxLines(doc, 5))).toBe('1\n2\n3\n... (14 lines omitted)\n18\n... (2 lines omitted)');
  });
});

describe('stage 8: on_empty', () => {
  it('replaces an empty or blank result with the message, keeping the final newline', () => {
    expect(joinLines(onEmpty(splitLines(' \n\t\n'), 'nothing'))).toBe('nothing\n');
    expect(joinLines(onEmpty(splitLines(''), 'nothing'))).toBe('nothing');
    const doc = splitLines('x\n');
    expect(onEmpty(doc, 'nothing')).toBe(doc);
  });
});

describe('loss classification', () => {
  const input = 'a\nb\nc\nd\ne\n';
  const run = (f: (d: ReturnType<typeof splitLines>) => ReturnType<typeof splitLines>) =>
    classify(input, 5, f(splitLines(input)));

  it('is none when the output is the input', () => {
    expect(run((d) => d)).toEqual({ text: input, loss: 'none' });
  });

  it('is tail, from the first dropped line, when only a tail is cut (with or without an omission line)', () => {
    expect(run((d) => headTail(d, 2, undefined))).toEqual({
      text: 'a\nb\n... (3 lines omitted)\n',
      loss: 'tail',
      tailFrom: 3,
    });
    expect(run((d) => filterLines(d, (s) => s >= 'd', false))).toEqual({
      text: 'a\nb\nc\n',
      loss: 'tail',
      tailFrom: 4,
    });
  });

  it('makes the omission line of a tail cut count the input lines dropped', () => {
    // strip removes "d", head keeps 2 of the remaining 4: the cut is input lines 3-5.
    const r = run((d) =>
      headTail(
        filterLines(d, (s) => s === 'd', false),
        2,
        undefined,
      ),
    );
    expect(r).toEqual({ text: 'a\nb\n... (3 lines omitted)\n', loss: 'tail', tailFrom: 3 });
  });

  it('is whole when a kept line changed, a middle line went, or nothing is left', () => {
    expect(run((d) => replaceLines(d, [(s) => (s === 'a' ? 'A' : s)])).loss).toBe('whole');
    expect(run((d) => filterLines(d, (s) => s === 'b', false)).loss).toBe('whole');
    expect(run((d) => headTail(d, undefined, 2)).loss).toBe('whole');
    expect(run((d) => filterLines(d, () => true, false))).toEqual({ text: '', loss: 'whole' });
  });
});
