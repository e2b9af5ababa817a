/**
 * Filter files: YAML text → validated FilterDefs, each carrying its own slice of the source (for
 * `cg filters show`, comments inside it kept). The YAML parser is imported only here, lazily, and
 * only for files that are not builtins (those ship pre-parsed). Duplicate keys are YAML errors. A
 * file is read as a bounded regular file (fs/bounded-read.ts): a filter path planted as /dev/zero or a
 * FIFO is an error naming it, never an endless read.
 */

import { parseYamlFile } from '../config/yaml-file.js';
import { readTextFile } from '../fs/bounded-read.js';
import { cjsExports } from '../lazy.js';
import { DOCUMENT_KEYS, type FilterDef, validateDocument } from './schema.js';

export async function parseFilterText(text: string, file: string): Promise<FilterDef[]> {
  const { doc, value } = await parseYamlFile(text, file, {
    maxAliasCount: 1000,
    duplicateKey: 'duplicate key (a filter name or field defined twice in one file)',
    mappingOf: 'schema_version and filters',
    format: { keys: DOCUMENT_KEYS, name: 'cg filter file' },
  });
  const specs = validateDocument(value, file);
  const yaml = cjsExports(await import('yaml'));
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

/** A filter file of the user's (links followed) or, with followLinks false, of the working tree. */
export async function readFilterFile(
  path: string,
  shownAs: string = path,
  followLinks = true,
): Promise<FilterDef[]> {
  return parseFilterText(readTextFile(path, { shown: shownAs, what: 'filter file', followLinks }), shownAs);
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
