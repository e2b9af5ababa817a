import { describe, expect, it } from 'vitest';
import { findLanguage } from '../../../src/code/languages.js';
import { outlineRegion } from '../../../src/code/skeletonize.js';
import { wholeRegion } from '../../../src/code/sources.js';
import { closersFor } from '../../../src/code/truncated.js';
import { createTokens } from '../../../src/tokens.js';

const tokens = createTokens('o200k');

describe('closersFor', () => {
  it('closes what a cut-off end leaves open, innermost first', () => {
    expect(closersFor('fn f(x: i32) {\n  if x > 0 {\n    g(x,\n')).toBe('\n)}}\n');
    expect(closersFor('int f() { return 1; }\n')).toBe('');
  });

  it('skips brackets inside strings, characters and comments', () => {
    expect(closersFor('f("{(", \'{\') { // {\n  /* ( */ x')).toBe('\n}\n');
    expect(closersFor("fn f<'a>(x: &'a str) {", '"')).toBe('\n}\n');
    expect(closersFor('const s = `a\n{`; {', '"\'`')).toBe('\n}\n');
  });

  it('closes a doc comment the cut fell into', () => {
    expect(closersFor('class A {\n  /**\n   * Creates')).toBe(' */\n}\n');
  });

  it('gives up on brackets that do not match', () => {
    expect(closersFor('f(]')).toBe('');
  });
});

describe('a file cut off mid-function (head, sed -n, a Read with a limit)', () => {
  it('is outlined, its unfinished last function ending in { … }', async () => {
    const code = [
      'package p',
      '',
      'func Done(xs []int) int {',
      '\ttotal := 0',
      '\tfor _, x := range xs {',
      '\t\ttotal += x * x',
      '\t}',
      '\treturn total',
      '}',
      '',
      'func Cut(xs []int) int {',
      '\tfor _, x := range xs {',
      '\t\tif x > 10 {',
      '\t\t\tprintln("large value seen while walking the list", x)',
      '',
    ].join('\n');
    const r = await outlineRegion(wholeRegion(code, findLanguage('go')!), {
      minTokens: 10,
      keepDocstrings: true,
      targetRatio: 1,
      maxErrorShare: 0.05,
      count: (t) => tokens.count(t),
    });
    expect(r.kind === 'outline' && r.text).toBe(
      ['package p', '', 'func Done(xs []int) int { … }', '', 'func Cut(xs []int) int { … }', ''].join('\n'),
    );
  });
});
