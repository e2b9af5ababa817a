import { describe, expect, it } from 'vitest';
import { parseShell } from '../../../src/shell/parse.js';

/** The words of each simple command, pipeline by pipeline. */
function words(src: string): string[][][] {
  const r = parseShell(src);
  if (!r.ok) throw new Error(r.reason);
  return r.pipelines.map((p) => p.commands.map((c) => c.words.map((w) => w.text)));
}

describe('the shell reader', () => {
  it('splits lists on && || ; & and newlines, and pipelines on | and |&', () => {
    expect(words('a 1 && b || c; d & e\nf | g |& h')).toEqual([
      [['a', '1']],
      [['b']],
      [['c']],
      [['d']],
      [['e']],
      [['f'], ['g'], ['h']],
    ]);
  });

  it('keeps quotes, escapes and expansions inside one word, with exact offsets', () => {
    const src = `pytest -k "a b" 'c d' e\\ f $(x | y) \`z;w\` \${v:-"q r"} <(sort f)`;
    expect(words(src)).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax
      [['pytest', '-k', '"a b"', "'c d'", 'e\\ f', '$(x | y)', '`z;w`', '${v:-"q r"}', '<(sort f)']],
    ]);
    const r = parseShell(src);
    if (!r.ok) throw new Error(r.reason);
    for (const w of r.pipelines[0]!.commands[0]!.words) expect(src.slice(w.start, w.end)).toBe(w.text);
  });

  it('tells plain words from quoted or expanded ones', () => {
    const r = parseShell(`make "x" $y`);
    if (!r.ok) throw new Error(r.reason);
    expect(r.pipelines[0]!.commands[0]!.words.map((w) => w.plain)).toEqual([true, false, false]);
  });

  it('reads redirections with their descriptors and targets, not as words', () => {
    const r = parseShell('cargo test 2>&1 >out.txt <in &>>all 3<x');
    if (!r.ok) throw new Error(r.reason);
    const cmd = r.pipelines[0]!.commands[0]!;
    expect(cmd.words.map((w) => w.text)).toEqual(['cargo', 'test']);
    expect(cmd.redirects.map((x) => [x.fd ?? null, x.op, x.target.text])).toEqual([
      [2, '>&', '1'],
      [null, '>', 'out.txt'],
      [null, '<', 'in'],
      [null, '&>>', 'all'],
      [3, '<', 'x'],
    ]);
  });

  it('marks background pipelines and skips comments and line continuations', () => {
    const r = parseShell('make & # build in the background\npytest \\\n  -q');
    if (!r.ok) throw new Error(r.reason);
    expect(r.pipelines.map((p) => p.background)).toEqual([true, false]);
    expect(r.pipelines[1]!.commands[0]!.words.map((w) => w.text)).toEqual(['pytest', '-q']);
  });

  it('refuses what it does not follow, saying why', () => {
    const cases: [string, RegExp][] = [
      ['cat <<EOF\nx\nEOF', /heredoc/],
      ['(cd x && make)', /subshell/],
      ['{ make; }', /keyword/],
      ['if true; then make; fi', /keyword/],
      ['for f in *; do echo $f; done', /keyword/],
      ['[[ -f x ]] && make', /keyword/],
      ["echo 'open", /unterminated/],
      ['echo "open', /unterminated/],
      ['echo $(open', /unterminated/],
      ['make &&', /ends in an operator/],
      ['&& make', /nothing before/],
      ['make >', /without a target/],
      ['case x in a) make;; esac', /keyword/],
    ];
    for (const [src, reason] of cases) {
      const r = parseShell(src);
      expect(r.ok, src).toBe(false);
      if (!r.ok) expect(r.reason, src).toMatch(reason);
    }
  });

  it('reads an empty command as no pipelines', () => {
    expect(words('  \n ; ')).toEqual([]);
  });
});
