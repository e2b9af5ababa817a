import { describe, expect, it } from 'vitest';
import { findLanguage, LANGUAGES } from '../../../src/code/languages.js';
import { errorShare, loadedGrammars, parse } from '../../../src/code/parser.js';

const SNIPPETS: Record<string, string> = {
  go: 'package p\nfunc F() int { return 1 }\n',
  python: 'def f():\n    return 1\n',
  javascript: 'function f() { return 1 }\n',
  typescript: 'function f(): number { return 1 }\n',
  tsx: 'const A = () => <div>{1}</div>;\n',
  rust: 'fn f() -> i32 { 1 }\n',
  java: 'class A { int f() { return 1; } }\n',
  c: 'int f(void) { return 1; }\n',
  cpp: 'namespace n { int f() { return 1; } }\n',
  ruby: 'def f\n  1\nend\n',
  php: '<?php function f() { return 1; }\n',
  csharp: 'class A { int F() { return 1; } }\n',
  kotlin: 'fun f(): Int { return 1 }\n',
  swift: 'func f() -> Int { return 1 }\n',
  scala: 'object O { def f(): Int = { 1 } }\n',
};

describe('parser', () => {
  it('loads nothing until the first parse', () => {
    expect(loadedGrammars()).toBe(0);
  });

  it('loads every grammar of the table and parses its language without errors', async () => {
    for (const lang of LANGUAGES) {
      const code = SNIPPETS[lang.name]!;
      const tree = await parse(lang, code);
      expect(tree, lang.name).toBeDefined();
      expect(errorShare(tree!, code.length), lang.name).toBe(0);
      tree!.delete();
    }
    expect(loadedGrammars()).toBe(LANGUAGES.length);
  });

  it('measures the share of the code under ERROR nodes', async () => {
    const go = findLanguage('go')!;
    const code = `package p\nfunc F() int { return 1 }\n${'@@@ ### $$$ '.repeat(20)}\n`;
    const tree = (await parse(go, code))!;
    const share = errorShare(tree, code.length);
    tree.delete();
    expect(share).toBeGreaterThan(0.5);
    expect(share).toBeLessThanOrEqual(1);
  });

  it('gives up on a parse past its deadline and parses the next file afresh', async () => {
    const python = findLanguage('python')!;
    const big = 'def f(x):\n    return x\n'.repeat(20_000);
    expect(await parse(python, big, -1)).toBeUndefined();
    const tree = (await parse(python, 'x = 1\n'))!;
    expect(tree.rootNode.text).toBe('x = 1\n');
    tree.delete();
  });
});
