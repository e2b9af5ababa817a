/**
 * What an outline shortens beyond bodies: data literals, expression bodies, and — while a big file
 * still keeps more than target_ratio — import name lists, comment blocks and parameter lists, in
 * that order, with every declared name kept.
 */
import { describe, expect, it } from 'vitest';
import { findLanguage } from '../../../src/code/languages.js';
import { outlineRegion, type RegionOptions } from '../../../src/code/skeletonize.js';
import { wholeRegion } from '../../../src/code/sources.js';
import { createTokens } from '../../../src/tokens.js';
import { declaredNames, missingNames } from './names.js';

const tokens = createTokens('o200k');

async function outline(lang: string, code: string, o: Partial<RegionOptions> = {}): Promise<string> {
  const r = await outlineRegion(wholeRegion(code, findLanguage(lang)!), {
    minTokens: 12,
    keepDocstrings: true,
    targetRatio: 1,
    maxErrorShare: 0.05,
    count: (t) => tokens.atLeast(t),
    ...o,
  });
  return r.kind === 'outline' ? r.text : `skip: ${r.gate}`;
}

const lines = (...l: string[]) => l.join('\n');

/** A TypeScript module big enough for target_ratio: imports, commented functions with typed parameters. */
function bigModule(functions: number): string {
  const parts = [
    "import { alpha, beta, gamma, delta, epsilon, zeta, eta, theta } from './greek.ts'",
    "import { one, two, three, four, five, six, seven, eight } from './numbers.ts'",
    '',
  ];
  for (let i = 0; i < functions; i++) {
    parts.push(
      `// Computes the weighted value number ${i} of the series for the report.`,
      `export function value${i}(first: number, second: string, third: boolean, fourth: readonly string[]): number {`,
      `  return first + second.length + (third ? 1 : 0) + fourth.length + ${i}`,
      '}',
      '',
    );
  }
  return parts.join('\n');
}

describe('values', () => {
  it('become their delimiters around /*…*/ when long, unless they hold a function', async () => {
    const code = lines(
      'export const COLORS = {',
      '  red: "#ff0000", green: "#00ff00", blue: "#0000ff", cyan: "#00ffff",',
      '  magenta: "#ff00ff", yellow: "#ffff00", black: "#000000", white: "#ffffff",',
      '};',
      'export const handlers = {',
      '  open(path) { return fs.openSync(path, "r", 0o644, { flags: "r", encoding: "utf8" }); },',
      '};',
    );
    expect(await outline('js', code)).toBe(
      lines('export const COLORS = {/*…*/};', 'export const handlers = {', '  open(path) { … },', '};'),
    );
  });

  it('use `[...]` in Python, where a comment cannot stand inside brackets', async () => {
    const code = lines(
      'NAMES = [',
      '    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",',
      ']',
      '',
    );
    expect(await outline('python', code)).toBe(lines('NAMES = [...]', ''));
  });
});

describe('expression bodies', () => {
  it("replace an arrow function's JSX body like a block body", async () => {
    const code = lines(
      'const Button: FC<Props> = ({ label, onClick }) => (',
      '  <button type="button" className="rounded bg-muted px-2 py-1 text-sm" onClick={onClick}>',
      '    {label}',
      '  </button>',
      ');',
    );
    expect(await outline('tsx', code)).toBe('const Button: FC<Props> = ({ label, onClick }) => { … };');
  });
});

describe('target_ratio stages', () => {
  const code = bigModule(24);
  const names = async (text: string) =>
    missingNames(
      await declaredNames(findLanguage('ts')!, code),
      await declaredNames(findLanguage('ts')!, text),
    );

  it('shorten import name lists first, then drop comment blocks, then parameter lists, keeping every name', async () => {
    expect(await tokens.atLeast(code)).toBeGreaterThan(1000);
    const seen = { imports: false, comments: false, parameters: false };
    let previous = Number.POSITIVE_INFINITY;
    for (let ratio = 0.9; ratio > 0.02; ratio -= 0.02) {
      const text = await outline('ts', code, { targetRatio: ratio });
      const importsLeft = (text.match(/import \{ \w/g) ?? []).length;
      const commentsLeft = (text.match(/\/\/ Computes/g) ?? []).length;
      const parametersCut = (text.match(/\(\/\*…\*\/\)/g) ?? []).length;
      if (importsLeft < 2) seen.imports = true;
      if (commentsLeft < 24) {
        seen.comments = true;
        expect(importsLeft, `ratio ${ratio}`).toBe(0);
      }
      if (parametersCut > 0) {
        seen.parameters = true;
        expect(commentsLeft, `ratio ${ratio}`).toBe(0);
      }
      expect(await names(text)).toEqual([]);
      const size = await tokens.atLeast(text);
      expect(size).toBeLessThanOrEqual(previous);
      previous = size;
    }
    expect(seen).toEqual({ imports: true, comments: true, parameters: true });
    expect(await outline('ts', code, { targetRatio: 0.02 })).toContain(
      'export function value3(/*…*/): number { … }',
    );
  });

  it("keep the file's first line, a module docstring or header comment, at any ratio", async () => {
    const py = [
      '"""Inventory rules: pricing, stock and reporting helpers."""',
      'import math',
      '',
      ...Array.from({ length: 30 }, (_, f) => [
        `def rule_${f}(stock, price, rate=0.${(f % 9) + 1}):`,
        `    """Rule ${f}: adjusts a price for the stock level."""`,
        ...Array.from(
          { length: 6 },
          (_, j) => `    step_${j} = math.floor(stock * rate * ${j + 1} + price / ${f + 1})`,
        ),
        '    return step_0 + step_5',
        '',
      ]).flat(),
    ].join('\n');
    // The same file as Claude Code's Read numbers it: the prefixes cannot shrink, so more goes.
    const numbered = py
      .split('\n')
      .map((l, i) => `${i + 1}\t${l}`)
      .join('\n');
    for (const ratio of [0.5, 0.1, 0.02]) {
      expect((await outline('python', py, { targetRatio: ratio })).split('\n')[0]).toBe(py.split('\n')[0]);
      expect((await outline('python', numbered, { targetRatio: ratio })).split('\n')[0]).toBe(
        numbered.split('\n')[0],
      );
    }
    const header = `// Report helpers: weighted series values.\n${bigModule(24)}`;
    expect((await outline('ts', header, { targetRatio: 0.02 })).split('\n')[0]).toBe(
      '// Report helpers: weighted series values.',
    );
  });

  it('never shorten a parameter list that declares members (TypeScript private x, readonly y)', async () => {
    const members = lines(
      'export class Service {',
      '  constructor(private readonly store: Store, readonly clock: Clock, public name: string) {}',
      '}',
      bigModule(24),
    );
    const out = await outline('ts', members, { targetRatio: 0.05 });
    expect(out).toContain(
      'constructor(private readonly store: Store, readonly clock: Clock, public name: string)',
    );
    expect(out).toContain('export function value3(/*…*/): number { … }');
  });

  it('shorten C++ template parameter lists with parameter lists', async () => {
    const fns = Array.from(
      { length: 30 },
      (_, i) =>
        `template <typename Char, typename Context, typename Traits = std::char_traits<Char>>\nauto convert${i}(basic_format_arg<Context>& arg, Char type, int width) -> int { return width + ${i}; }\n`,
    ).join('\n');
    const out = await outline('cpp', fns, { targetRatio: 0.05 });
    expect(out).toContain('template </*…*/>\nauto convert7(/*…*/) -> int { … }');
  });

  it('never drop a comment after code on its line; a dropped block takes one blank line with it', async () => {
    const fields = Array.from({ length: 40 }, (_, i) => `  field${i}: number; // the ${i}th measure of it`);
    const code = lines(
      'export interface Sample {',
      ...fields,
      '}',
      '',
      '// A section that says what follows, at some length for the budget.',
      '',
      bigModule(10),
    );
    const out = await outline('ts', code, { targetRatio: 0.05 });
    expect(out).toContain('  field7: number; // the 7th measure of it');
    expect(out).not.toContain('A section');
    expect(out).toContain('}\n\nimport {/*…*/}');
  });
});
