/**
 * Filter files: YAML text → validated FilterDefs, each carrying its own slice of the source (for
 * `cg filters show`, comments inside it kept). The YAML parser is imported only here, lazily, and
 * only for files that are not builtins (those ship pre-parsed). Duplicate keys are YAML errors.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { cjsExports } from '../lazy.js';
import { type FilterDef, validateDocument } from './schema.js';

export async function parseFilterText(text: string, file: string): Promise<FilterDef[]> {
  const yaml = cjsExports(await import('yaml'));
  const doc = yaml.parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const at = e.linePos?.[0]?.line ?? (e.pos ? text.slice(0, e.pos[0]).split('\n').length : undefined);
    const where = at !== undefined ? `line ${at}: ` : '';
    const what =
      e.code === 'DUPLICATE_KEY'
        ? 'duplicate key (a filter name or field defined twice in one file)'
        : e.message.split('\n')[0];
    throw new ConfigError('', `invalid YAML: ${where}${what}`, file);
  }
  const specs = validateDocument(doc.toJS({ maxAliasCount: 1000 }), file);
  // Each filter's source text: from its key to the end of its value, dedented to column 0.
  const snippets = new Map<string, string>();
  const filters = doc.get('filters', true);
  if (yaml.isMap(filters)) {
    for (const pair of filters.items) {
      const key = pair.key as { range?: [number, number, number]; value?: unknown } | null;
      const value = pair.value as { range?: [number, number, number] } | null;
      if (!key?.range || !value?.range || typeof key.value !== 'string') continue;
      snippets.set(key.value, dedent(text, key.range[0], value.range[1]));
    }
  }
  return specs.map((spec) => ({
    spec,
    file,
    yaml: snippets.get(spec.name) ?? yaml.stringify({ [spec.name]: spec }),
  }));
}

export async function readFilterFile(path: string, shownAs: string = path): Promise<FilterDef[]> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(
      '',
      `cannot read filter file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      shownAs,
    );
  }
  return parseFilterText(text, shownAs);
}

function dedent(text: string, start: number, end: number): string {
  const column = start - (text.lastIndexOf('\n', start - 1) + 1);
  const body = text.slice(start, end).replace(/\s+$/, '');
  if (column === 0) return `${body}\n`;
  const pad = ' '.repeat(column);
  return `${body
    .split('\n')
    .map((l) => (l.startsWith(pad) ? l.slice(column) : l))
    .join('\n')}\n`;
}
