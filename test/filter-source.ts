/**
 * Test helpers for declarative filters: compile filters from inline YAML (re2js loaded first) and
 * wrap them in a FilterSource with the registry's own selection, without touching the disk.
 */
import type { FilterSource } from '../src/component.js';
import { compileFilter } from '../src/dsl/compile.js';
import { parseFilterText } from '../src/dsl/parse.js';
import { loadRe2 } from '../src/dsl/regex.js';
import { byPriority, selectFilter, selectorFor } from '../src/dsl/registry.js';
import type { CompiledFilter, FilterSourceKind } from '../src/dsl/types.js';

export async function compileYaml(
  yaml: string,
  file = 'test.yaml',
  kind: FilterSourceKind = 'file',
): Promise<CompiledFilter[]> {
  await loadRe2();
  return (await parseFilterText(yaml, file)).map((d) => compileFilter(d, { kind, eager: true }));
}

/** The one filter a YAML text defines. */
export async function compileOne(yaml: string): Promise<CompiledFilter> {
  const [f] = await compileYaml(yaml);
  if (!f) throw new Error('no filter in YAML');
  return f;
}

/** A filter from a spec body, e.g. filterOf({ head_lines: 3 }); match defaults to "" (anything). */
export async function filterOf(body: Record<string, unknown>, name = 't'): Promise<CompiledFilter> {
  const { stringify } = await import('yaml');
  return compileOne(stringify({ schema_version: 1, filters: { [name]: { match: '', ...body } } }));
}

export function staticSource(filters: readonly CompiledFilter[]): FilterSource {
  const ordered = [...filters].sort(byPriority);
  return {
    async select(command, text, options) {
      return selectFilter(ordered, selectorFor(command, text), options?.exclude);
    },
  };
}
