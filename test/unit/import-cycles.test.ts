import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { init, parse } from 'es-module-lexer';
import { transformSync } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

/**
 * src/ has no runtime import cycle: a module never imports (statically, with a value) one that
 * imports it back. Type-only imports (`import type`, `export type`) are erased and dynamic
 * `import()`s run after both modules are evaluated, so neither counts. An import of named types
 * only (`import { type A }`) does count: verbatimModuleSyntax keeps it as `import {}`.
 */
const SRC = join(ROOT, 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/**
 * The src/ files a module imports at run time (what a bundler would evaluate first): the module as
 * the build compiles it (esbuild, the project's verbatimModuleSyntax), so type-only imports are gone.
 */
function runtimeImports(file: string): string[] {
  const { code } = transformSync(readFileSync(file, 'utf8'), {
    loader: 'ts',
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
  });
  const [imports] = parse(code, file);
  const out: string[] = [];
  for (const imp of imports) {
    if (imp.d !== -1 || imp.n === undefined || !imp.n.startsWith('.')) continue;
    out.push(resolve(dirname(file), imp.n.replace(/\.js$/, '.ts')));
  }
  return out;
}

/** Every cycle's modules, each cycle once, from a depth-first walk of the graph. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (n: string) => {
    state.set(n, 'open');
    path.push(n);
    for (const m of graph.get(n) ?? []) {
      if (state.get(m) === 'open') found.push(path.slice(path.indexOf(m)));
      else if (!state.has(m)) visit(m);
    }
    path.pop();
    state.set(n, 'done');
  };
  for (const n of [...graph.keys()].sort()) if (!state.has(n)) visit(n);
  return found;
}

beforeAll(() => init);

describe('src/ imports', () => {
  it('have no runtime cycle', () => {
    const graph = new Map(sources(SRC).map((f) => [f, runtimeImports(f)] as const));
    const shown = cycles(graph).map((c) => [...c, c[0]!].map((f) => relative(SRC, f)).join(' → '));
    expect(shown).toEqual([]);
  });

  it('are walked as the test means: a cycle through value imports is found, one through types is not', () => {
    const a = join(SRC, 'a.ts');
    const b = join(SRC, 'b.ts');
    const c = join(SRC, 'c.ts');
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, [c]],
          [c, [a]],
        ]),
      ),
    ).toEqual([[a, b, c]]);
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, []],
        ]),
      ),
    ).toEqual([]);
    const typed = runtimeImports(join(SRC, 'component.ts'));
    expect(typed).toEqual([]); // types only, by its contract
  });
});
