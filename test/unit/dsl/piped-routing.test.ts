/**
 * `cmd | cg` gets what `cg run -- cmd` gets (issue 31): on real outputs of the unseen-shapes set,
 * the builtins pick the same filter from the first lines alone as with the command; the filters
 * that decode JSON are proven to keep every failure line (so a failing run's JSON may be shortened
 * where the host flags a tool error); and a small ls -la keeps the columns -l asked for.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { precompileBuiltins } from '../../../src/dsl/builtins.js';
import { compileFilter } from '../../../src/dsl/compile.js';
import { provenToKeepFailures } from '../../../src/dsl/failure-lines.js';
import { byPriority, selectFilter, selectorFor } from '../../../src/dsl/registry.js';
import { compactText } from '../../../src/engine.js';
import { staticSource } from '../../filter-source.js';
import { ROOT } from '../../helpers.js';
import { MemoryStore } from '../../memory-store.js';

const bundle = await precompileBuiltins(join(ROOT, 'builtin-filters'), false);
const filters = bundle.filters
  .map((def) => compileFilter(def, { kind: 'builtin', eager: true }))
  .sort(byPriority);
const fixtures = join(ROOT, 'test', 'fixtures', 'unseen');
const commands = new Map(
  [
    ...readFileSync(join(fixtures, 'MANIFEST.md'), 'utf8').matchAll(/^\| \d+ \| (\S+) \| \w+ \| `(.*)` \|/gm),
  ].map((m) => [m[1]!, m[2]!] as const),
);
const choose = (command: string | undefined, text: string) =>
  selectFilter(filters, selectorFor(command, text))?.name;

describe('piped routing', () => {
  it.each([
    ['grep-def-attr.txt', 'grep'],
    ['git-grep-export.txt', 'grep'],
    ['find-doc-depth2.txt', 'find'],
    ['find-python-depth3.txt', 'find'],
    ['git-ls-files.txt', 'find'],
    ['npm-ls-parseable.txt', 'find'],
    ['du-ah-python.txt', 'du'],
    ['dpkg-deb-contents.txt', 'tar-list-verbose'],
    ['rsync-dry-run.txt', 'rsync'],
    ['go-test-json-inventory.txt', 'go-test-json'],
    ['cargo-test-json-ws.txt', 'cargo-json'],
    ['eslint-json-pino.txt', 'eslint-json'],
    ['mypy-attr.txt', 'mypy'],
    ['pip-list.txt', 'pip-list'],
    ['apt-get-install-s-jdk.txt', 'apt-get-install'],
    ['ls-la-small.txt', 'ls-long'],
  ])('%s selects %s piped, as with its command', (file, filter) => {
    const text = readFileSync(join(fixtures, file), 'utf8');
    expect(choose(undefined, text)).toBe(filter);
    expect(choose(commands.get(file), text)).toBe(filter);
  });

  it('the filters that decode JSON are proven to keep every failure line', () => {
    for (const name of ['go-test-json', 'cargo-json', 'eslint-json', 'jest-json'])
      expect(provenToKeepFailures(filters.find((f) => f.name === name)!), name).toBe(true);
  });

  it('a small ls -la keeps the columns -l asked for, piped or run', async () => {
    const text = readFileSync(join(fixtures, 'ls-la-small.txt'), 'utf8');
    for (const command of [undefined, 'ls -la']) {
      const r = await compactText(text, {
        format: 'text',
        store: new MemoryStore(),
        filters: staticSource(filters),
        ...(command ? { command } : {}),
      });
      expect(r.output).toBe(text);
    }
  });
});
