import { describe, expect, it } from 'vitest';
import { findLanguage } from '../../../src/code/languages.js';
import { outlineRegion, type RegionOptions } from '../../../src/code/skeletonize.js';
import { wholeRegion } from '../../../src/code/sources.js';
import { createTokens } from '../../../src/tokens.js';

const tokens = createTokens('o200k');

async function outline(lang: string, code: string, o: Partial<RegionOptions> = {}): Promise<string> {
  const r = await outlineRegion(wholeRegion(code, findLanguage(lang)!), {
    minTokens: 12,
    keepDocstrings: true,
    targetRatio: 1,
    maxErrorShare: 0.05,
    count: (t) => tokens.count(t),
    ...o,
  });
  return r.kind === 'outline' ? r.text : `skip: ${r.gate}`;
}

const lines = (...l: string[]) => l.join('\n');

describe('outlines', () => {
  it('replace long Go bodies by { … } and keep short ones, signatures and a doc line', async () => {
    const code = lines(
      'package p',
      '',
      'import "fmt"',
      '',
      '// Sum adds the numbers.',
      '// It prints each of them first.',
      'func Sum(xs []int) int {',
      '\ttotal := 0',
      '\tfor _, x := range xs {',
      '\t\tfmt.Println(x)',
      '\t\ttotal += x',
      '\t}',
      '\treturn total',
      '}',
      '',
      'func One() int { return 1 }',
      '',
    );
    expect(await outline('go', code)).toBe(
      lines(
        'package p',
        '',
        'import "fmt"',
        '',
        '// Sum adds the numbers. …',
        'func Sum(xs []int) int { … }',
        '',
        'func One() int { return 1 }',
        '',
      ),
    );
  });

  it('keep a Python docstring first line, decorators and class fields; bodies become ...', async () => {
    const code = lines(
      'class Account:',
      '    """A bank account.',
      '',
      '    Holds a balance.',
      '    """',
      '',
      '    rate = 0.1',
      '',
      '    @property',
      '    def interest(self):',
      '        """The interest due.',
      '',
      '        Computed yearly.',
      '        """',
      '        value = self.balance * self.rate',
      '        if value < 0:',
      '            raise ValueError("negative balance")',
      '        return round(value, 2)',
      '',
      '    def small(self):',
      '        return 1',
      '',
    );
    expect(await outline('python', code)).toBe(
      lines(
        'class Account:',
        '    """A bank account. … """',
        '',
        '    rate = 0.1',
        '',
        '    @property',
        '    def interest(self):',
        '        """The interest due. … """',
        '        ...',
        '',
        '    def small(self):',
        '        return 1',
        '',
      ),
    );
  });

  it('drop comments and docstrings without keep_docstrings', async () => {
    const code = lines(
      '# Module notes.',
      '# More notes.',
      'def f(items):',
      '    """Doc."""',
      '    for item in items:',
      '        print(item, item * 2, item * 3)',
      '    return len(items)',
      '',
    );
    expect(await outline('python', code, { keepDocstrings: false })).toBe(
      lines('def f(items):', '    ...', ''),
    );
  });

  it('use … for Ruby bodies, since `...` before `end` reads as a range', async () => {
    const code = lines(
      'module M',
      '  # Greets.',
      '  def greet(name)',
      '    message = "hello #{name}"',
      '    puts message',
      '    message.length',
      '  end',
      'end',
    );
    expect(await outline('ruby', code)).toBe(
      lines('module M', '  # Greets.', '  def greet(name)', '    …', '  end', 'end'),
    );
  });

  it('cut a Javadoc to its first sentence line and close it', async () => {
    const code = lines(
      '/**',
      ' * Adds numbers.',
      ' * <p>Overflow wraps.',
      ' */',
      'class Adder {',
      '  private int total;',
      '  /** Adds one. */',
      '  public int add(int x) {',
      '    total = total + x;',
      '    System.out.println("added " + x + " to " + total);',
      '    return total;',
      '  }',
      '}',
    );
    expect(await outline('java', code)).toBe(
      lines(
        '/**',
        ' * Adds numbers. … */',
        'class Adder {',
        '  private int total;',
        '  /** Adds one. */',
        '  public int add(int x) { … }',
        '}',
      ),
    );
  });

  it('keep the text line of a C# XML doc comment, not its tags', async () => {
    const code = lines(
      'class A {',
      '    /// <summary>',
      '    /// Gets the answer.',
      '    /// </summary>',
      '    public int Answer() {',
      '        var x = 40;',
      '        x = x + 2;',
      '        return x;',
      '    }',
      '}',
    );
    expect(await outline('cs', code, { minTokens: 100 })).toBe(
      lines(
        'class A {',
        '    /// Gets the answer.',
        '    public int Answer() {',
        '        var x = 40;',
        '        x = x + 2;',
        '        return x;',
        '    }',
        '}',
      ),
    );
  });

  it('keep the `=` of an expression body (Kotlin, Scala) and put { … } after it', async () => {
    const kotlin = lines(
      'class A {',
      '  fun f(x: Int) = listOf(x, x + 1, x + 2, x + 3).map { it * 2 }.filter { it > 3 }.sum()',
      '  init { println("created with a long message here for the test") }',
      '}',
    );
    expect(await outline('kotlin', kotlin)).toBe(
      lines('class A {', '  fun f(x: Int) = { … }', '  init { … }', '}'),
    );
    const scala = lines(
      'object O {',
      '  def f(x: Int) = List(x, x + 1, x + 2, x + 3).map(_ * 2).filter(_ > 3).sum',
      '}',
    );
    expect(await outline('scala', scala)).toBe(lines('object O {', '  def f(x: Int) = { … }', '}'));
  });

  it('replace long JavaScript method and arrow bodies', async () => {
    const code = lines(
      'export class Store {',
      '  get(key) {',
      '    const value = this.map.get(key) ?? this.fallback(key, { strict: true });',
      '    return value;',
      '  }',
      '}',
      'export const load = async (path) => {',
      '  const text = await readFile(path, "utf8");',
      '  return JSON.parse(text);',
      '};',
    );
    expect(await outline('js', code)).toBe(
      lines('export class Store {', '  get(key) { … }', '}', 'export const load = async (path) => { … };'),
    );
  });

  it('never cut a "function" whose signature the parser could not read (a macro before a class)', async () => {
    const code = lines(
      'FMT_BEGIN_NAMESPACE',
      'FMT_BEGIN_EXPORT',
      '',
      'template <typename Char> class basic_printf_context {',
      ' private:',
      '  basic_appender<Char> out_;',
      '  basic_format_args<basic_printf_context> args_;',
      ' public:',
      '  auto out() -> basic_appender<Char> { return out_; }',
      '};',
      '',
      'int later(int a, int b) { int c = a + b; c = c * 2; return c + a + b + 12345; }',
    );
    const out = await outline('cpp', code, { maxErrorShare: 1 });
    expect(out).toContain('basic_format_args<basic_printf_context> args_;');
    expect(out).toContain('int later(int a, int b) { … }');
  });

  it('leave a parse that failed on too much of the code alone', async () => {
    const log = lines(
      '2024-01-01 INFO started',
      '2024-01-01 WARN disk 91% full',
      '2024-01-01 ERROR boom: {x}',
    );
    expect(await outline('python', log)).toMatch(/^skip: python parse errors in \d+\.\d% of the code$/);
  });

  it('say so when nothing is long enough to cut', async () => {
    expect(await outline('go', 'package p\nfunc One() int { return 1 }\n')).toBe(
      'skip: no go body of at least 12 tokens',
    );
  });

  it('replace shorter bodies too, longest first, when a big file would keep more than target_ratio', async () => {
    const methods = Array.from(
      { length: 80 },
      (_, i) => `  def m${i}(x)\n    y = x + ${i}\n    y * 2\n  end\n`,
    ).join('\n');
    const code = `class Big\n${methods}end\n`;
    const r = await outlineRegion(wholeRegion(code, findLanguage('ruby')!), {
      minTokens: 80,
      keepDocstrings: true,
      targetRatio: 0.5,
      maxErrorShare: 0.05,
      count: (t) => tokens.count(t),
    });
    expect(r.kind).toBe('outline');
    if (r.kind !== 'outline') return;
    expect(r.short).toBe(r.replaced.body);
    expect(r.replaced.body).toBeGreaterThan(0);
    expect(await tokens.count(r.text)).toBeLessThanOrEqual((await tokens.count(code)) / 2);
    expect(r.text).toContain('  def m79(x)\n');
  });
});
