import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFilterText } from '../../../src/dsl/parse.js';
import {
  createFilterSource,
  type FilterSourceOptions,
  loadFilters,
  selectFilter,
  selectorFor,
} from '../../../src/dsl/registry.js';
import { ConfigError } from '../../../src/errors.js';
import { trustProject } from '../../../src/trust/state.js';
import { compileYaml } from '../../filter-source.js';
import { tempDir } from '../../helpers.js';
import { aliasBombLines } from '../../yaml-bomb.js';

const yamlOf = (filters: Record<string, string>) =>
  `schema_version: 1\nfilters:\n${Object.entries(filters)
    .map(([name, body]) => `  ${name}:\n${body.replace(/^/gm, '    ')}\n`)
    .join('')}`;

function write(path: string, text: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** A project dir, a config home and options for them; builtins come from the given YAML. */
function setup(builtinYaml?: string) {
  const root = tempDir('cg-registry-');
  const cwd = join(root, 'project');
  mkdirSync(cwd, { recursive: true });
  const env = { XDG_CONFIG_HOME: join(root, 'config') };
  const opts: FilterSourceOptions = { cwd, env };
  const builtins = async () => (builtinYaml ? parseFilterText(builtinYaml, 'builtin-filters/b.yaml') : []);
  return {
    cwd,
    env,
    opts,
    builtins,
    user: (name: string, text: string) => write(join(env.XDG_CONFIG_HOME, 'cg', 'filters', name), text),
    project: (name: string, text: string) => write(join(cwd, '.cg', 'filters', name), text),
    file: (name: string, text: string) => write(join(cwd, name), text),
  };
}

describe('the selector', () => {
  it('is "$ command" then the first 5 non-blank output lines, ANSI and \\r removed', () => {
    const text = '\n\x1b[1mone\x1b[0m\r\n\n  \ntwo\nthree\nfour\nfive\nsix\n';
    expect(selectorFor('pytest -q', text)).toBe('$ pytest -q\none\ntwo\nthree\nfour\nfive');
  });

  it('has no command line when the command is unknown, and folds a multi-line command', () => {
    expect(selectorFor(undefined, 'a\nb\n')).toBe('a\nb');
    expect(selectorFor('  ', 'a\n')).toBe('a');
    expect(selectorFor('cat <<EOF\nx\nEOF', '')).toBe('$ cat <<EOF x EOF');
  });
});

describe('selection', () => {
  it('tries filters by priority, higher first, then by name; the first match wins', async () => {
    const filters = await compileYaml(
      yamlOf({
        b_generic: "match: 'test'\npriority: 1",
        a_generic: "match: 'test'\npriority: 1",
        specific: "match: '^\\$ pytest'\npriority: 50",
        never: "match: 'zzz'\npriority: 99",
      }),
    );
    const sorted = [...filters].sort((x, y) => y.priority - x.priority || x.name.localeCompare(y.name));
    expect(selectFilter(sorted, selectorFor('pytest', 'test session'))?.name).toBe('specific');
    expect(selectFilter(sorted, selectorFor('make test', 'ok'))?.name).toBe('a_generic');
    expect(selectFilter(sorted, selectorFor('make test', 'ok'), ['a_generic'])?.name).toBe('b_generic');
    expect(selectFilter(sorted, selectorFor('ls', 'file'))).toBeUndefined();
  });

  it('walks sources in lookup order: --filters, trusted project, user, builtins', async () => {
    const s = setup(yamlOf({ tool_builtin: "match: 'tool'\npriority: 100" }));
    s.user('u.yaml', yamlOf({ tool_user: "match: 'tool'\npriority: 1" }));
    s.project('p.yaml', yamlOf({ tool_project: "match: 'tool'\npriority: -5" }));
    s.file('f.yaml', yamlOf({ tool_file: "match: 'tool'\npriority: -9" }));
    await trustProject(s.cwd, s.env, async () => undefined);
    const order = async (filtersFile?: string) =>
      (
        await loadFilters({ ...s.opts, ...(filtersFile ? { filtersFile } : {}) }, { builtins: s.builtins })
      ).filters.map((f) => `${f.name}:${f.sourceKind}`);
    expect(await order('f.yaml')).toEqual([
      'tool_file:file',
      'tool_project:project',
      'tool_user:user',
      'tool_builtin:builtin',
    ]);
    const source = createFilterSource({ ...s.opts, filtersFile: 'f.yaml' }, { builtins: s.builtins });
    expect((await source.select('tool', 'x'))?.name).toBe('tool_file');
    expect((await source.select('tool', 'x', { exclude: ['tool_file', 'tool_project'] }))?.name).toBe(
      'tool_user',
    );
  });

  it('lets a filter replace the same-named filter of a later source, and says so', async () => {
    const s = setup(yamlOf({ pytest: "match: 'pytest'\ndescription: builtin" }));
    s.user('mine.yaml', yamlOf({ pytest: "match: 'pytest'\ndescription: mine" }));
    const l = await loadFilters(s.opts, { builtins: s.builtins });
    expect(l.filters.map((f) => [f.name, f.description])).toEqual([['pytest', 'mine']]);
    expect(l.overridden.map((o) => [o.filter.source, o.by.sourceKind])).toEqual([
      ['builtin-filters/b.yaml', 'user'],
    ]);
  });
});

describe('load-time guardrails', () => {
  const loadError = async (s: ReturnType<typeof setup>): Promise<string> => {
    try {
      await loadFilters(s.opts, { builtins: s.builtins });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error('expected a load error');
  };

  it('refuses a name defined twice in one source, naming both files', async () => {
    const s = setup();
    s.user('a.yaml', yamlOf({ dup: "match: 'x'" }));
    s.user('b.yaml', yamlOf({ dup: "match: 'y'" }));
    expect(await loadError(s)).toMatch(
      /b\.yaml: filters\.dup: duplicate filter name \(also defined in .*a\.yaml\)/,
    );
  });

  it('refuses a bad regex, naming the file and the filter', async () => {
    const s = setup();
    s.user('a.yaml', yamlOf({ broken: "match: 'x'\nstrip_lines_matching: ['a{2,1}']" }));
    expect(await loadError(s)).toMatch(
      /a\.yaml: filters\.broken\.strip_lines_matching\[0\]: pattern "a\{2,1\}" is not a valid RE2 regex/,
    );
  });

  it('refuses a filter whose inline test fails, naming file, filter and test', async () => {
    const s = setup();
    s.user(
      'a.yaml',
      yamlOf({
        t: 'match: \'x\'\nhead_lines: 1\ntests:\n  - { name: keeps two, input: "a\\nb\\n", expected: "a\\nb\\n" }',
      }),
    );
    expect(await loadError(s)).toMatch(
      /a\.yaml: filters\.t\.tests: inline test "keeps two" fails \(line 2: expected "b", got "\.\.\. \(1 lines omitted\)"\)/,
    );
  });

  it('names the file of a YAML alias bomb and refuses it before it expands', async () => {
    const s = setup();
    const lines = aliasBombLines();
    s.user('bomb.yaml', `schema_version: 1\nfilters: {}\n${lines.join('\n')}\n`);
    expect(await loadError(s)).toMatch(/bomb\.yaml: YAML aliases expand too far \(an alias bomb\?\)/);
  });

  it('refuses a user filter file that is /dev/zero behind a link, without reading it', async () => {
    const s = setup();
    mkdirSync(join(s.env.XDG_CONFIG_HOME, 'cg', 'filters'), { recursive: true });
    symlinkSync('/dev/zero', join(s.env.XDG_CONFIG_HOME, 'cg', 'filters', 'evil.yaml'));
    expect(await loadError(s)).toMatch(/evil\.yaml: filter file is not a regular file \(a device\)$/);
  });

  it('ignores a trusted project whose filter file became /dev/zero, reading none of it', async () => {
    const s = setup();
    s.project('p.yaml', yamlOf({ proj: "match: 'tool'" }));
    await trustProject(s.cwd, s.env, async () => undefined);
    rmSync(join(s.cwd, '.cg', 'filters', 'p.yaml'));
    symlinkSync('/dev/zero', join(s.cwd, '.cg', 'filters', 'p.yaml'));
    const l = await loadFilters(s.opts, { builtins: s.builtins });
    expect(l.filters).toEqual([]);
    expect(l.notes).toEqual([
      'ignoring .cg/filters/ (1 file): .cg/filters/p.yaml: filter file is a symbolic link (files in the project must be regular files; cg does not follow links there)',
    ]);
  });

  it('refuses look-around in a user filter at load', async () => {
    const s = setup();
    s.user('a.yaml', yamlOf({ la: "match: '^(?=\\$ npm)'" }));
    expect(await loadError(s)).toMatch(/filters\.la\.match: pattern .* uses a look-ahead/);
  });
});

describe('createFilterSource', () => {
  it('reads nothing until the first select(), then reports a broken file as its error', async () => {
    const s = setup();
    s.user('bad.yaml', 'schema_version: 1\nfilters:\n  x: { match: y, colour: red }\n');
    const source = createFilterSource(s.opts, { builtins: s.builtins });
    expect(source.error).toBeUndefined();
    await expect(source.select('y', 'out')).rejects.toThrow(/bad\.yaml: filters\.x\.colour: unknown field/);
    expect(source.error).toBeInstanceOf(ConfigError);
  });

  it('refuses a --filters file that does not exist at once', () => {
    const s = setup();
    expect(() => createFilterSource({ ...s.opts, filtersFile: 'missing.yaml' })).toThrow(
      /--filters: filter file not found/,
    );
  });

  it('ignores untrusted project filters and tells onNote once how to trust them', async () => {
    const s = setup();
    s.project('p.yaml', yamlOf({ proj: "match: 'tool'" }));
    const notes: string[] = [];
    const options = { ...s.opts, onNote: (n: string) => notes.push(n) };
    expect(await createFilterSource(options, { builtins: s.builtins }).select('tool', 'x')).toBeUndefined();
    expect(await createFilterSource(options, { builtins: s.builtins }).select('tool', 'x')).toBeUndefined();
    expect(notes).toEqual([
      "ignoring .cg/filters/ (1 file): this project's cg files are not trusted (review them, then run `cg trust`)",
    ]);
  });

  it('finds project filters from a subdirectory, up to the repository root', async () => {
    const s = setup();
    s.project('p.yaml', yamlOf({ proj: "match: 'tool'" }));
    await trustProject(s.cwd, s.env, async () => undefined);
    const sub = join(s.cwd, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    const names = async (cwd: string) =>
      (await loadFilters({ ...s.opts, cwd }, { builtins: s.builtins })).filters.map((f) => f.name);
    expect(await names(sub)).toEqual(['proj']);
    // A repository inside the project is a project of its own: the walk stops at its root.
    mkdirSync(join(s.cwd, 'src', '.git'));
    expect(await names(sub)).toEqual([]);
  });
});
