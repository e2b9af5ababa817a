import { describe, expect, it } from 'vitest';
import { parseFilterText } from '../../../src/dsl/parse.js';
import { validateDocument } from '../../../src/dsl/schema.js';
import { ConfigError } from '../../../src/errors.js';
import { compileYaml } from '../../filter-source.js';

const doc = (filter: Record<string, unknown>, name = 'pytest') => ({
  schema_version: 1,
  filters: { [name]: { match: '^\\$ pytest', ...filter } },
});

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('filter file validation', () => {
  it('fills defaults for a minimal filter', () => {
    expect(validateDocument(doc({}), 'f.yaml')).toEqual([
      {
        name: 'pytest',
        description: '',
        match: '^\\$ pytest',
        priority: 0,
        strip_ansi: false,
        replace: [],
        match_output: [],
        limit_runs: [],
        group_lines: [],
        tests: [],
      },
    ]);
  });

  it('rejects an unknown field naming the file, the filter and the field, with a suggestion', () => {
    expect(errorOf(() => validateDocument(doc({ strip_line_matching: ['x'] }), 'f.yaml'))).toMatch(
      /^f\.yaml: filters\.pytest\.strip_line_matching: unknown field \(did you mean strip_lines_matching\?\)/,
    );
    expect(
      errorOf(() => validateDocument(doc({ replace: [{ pattern: 'a', replacment: 'b' }] }), 'f.yaml')),
    ).toMatch(/filters\.pytest\.replace\[0\]\.replacment: unknown field/);
    expect(errorOf(() => validateDocument({ ...doc({}), version: 1 }, 'f.yaml'))).toMatch(
      /^f\.yaml: version: unknown field/,
    );
    expect(
      errorOf(() =>
        validateDocument(doc({ tests: [{ name: 'a', input: '', expected: '', exit: 0 }] }), 'f.yaml'),
      ),
    ).toMatch(/filters\.pytest\.tests\[0\]\.exit: unknown field/);
  });

  it('requires schema_version 1, a filters mapping and a match per filter', () => {
    expect(errorOf(() => validateDocument({ filters: {} }, 'f.yaml'))).toMatch(/schema_version: missing/);
    expect(errorOf(() => validateDocument({ schema_version: 2, filters: {} }, 'f.yaml'))).toMatch(
      /expected 1, got 2/,
    );
    expect(errorOf(() => validateDocument({ schema_version: 1 }, 'f.yaml'))).toMatch(/filters: missing/);
    expect(
      errorOf(() => validateDocument({ schema_version: 1, filters: { x: { priority: 1 } } }, 'f.yaml')),
    ).toMatch(/filters\.x\.match: missing/);
  });

  it('refuses strip_lines_matching and keep_lines_matching together', () => {
    expect(
      errorOf(() =>
        validateDocument(doc({ strip_lines_matching: ['a'], keep_lines_matching: ['b'] }), 'f.yaml'),
      ),
    ).toMatch(
      /f\.yaml: filters\.pytest\.keep_lines_matching: strip_lines_matching and keep_lines_matching cannot both be set/,
    );
  });

  it('checks types and ranges', () => {
    expect(errorOf(() => validateDocument(doc({ head_lines: 0 }), 'f.yaml'))).toMatch(
      /head_lines: expected an integer in 1\.\./,
    );
    expect(errorOf(() => validateDocument(doc({ truncate_lines_at: 3 }), 'f.yaml'))).toMatch(
      /truncate_lines_at/,
    );
    expect(errorOf(() => validateDocument(doc({ strip_ansi: 'yes' }), 'f.yaml'))).toMatch(
      /strip_ansi: expected true or false/,
    );
    expect(errorOf(() => validateDocument(doc({ keep_lines_matching: 'x' }), 'f.yaml'))).toMatch(
      /expected a list of regexes/,
    );
    expect(
      errorOf(() => validateDocument(doc({ match_output: [{ pattern: 'x', message: ' ' }] }), 'f.yaml')),
    ).toMatch(/match_output\[0\]\.message: must not be empty/);
    expect(errorOf(() => validateDocument(doc({}, 'bad name'), 'f.yaml'))).toMatch(
      /filters\.bad name: a filter name is/,
    );
  });

  it('rejects look-around and back-references at load, naming filter, field, pattern and reason', () => {
    const msg = errorOf(() =>
      validateDocument(doc({ strip_lines_matching: ['^ok', '(?<!x)PASSED'] }), 'f.yaml'),
    );
    expect(msg).toContain(
      'f.yaml: filters.pytest.strip_lines_matching[1]: pattern "(?<!x)PASSED" uses a negative look-behind',
    );
    expect(msg).toContain('RE2 does not support');
    expect(
      errorOf(() => validateDocument(doc({ replace: [{ pattern: '(a)\\1', replacement: '' }] }), 'f.yaml')),
    ).toMatch(/replace\[0\]\.pattern: pattern "\(a\)\\\\1" uses a back-reference/);
  });

  it('refuses duplicate test names within a filter', () => {
    const tests = [
      { name: 'a', input: '', expected: '' },
      { name: 'a', input: 'x', expected: 'x' },
    ];
    expect(errorOf(() => validateDocument(doc({ tests }), 'f.yaml'))).toMatch(
      /tests\[1\]\.name: duplicate test name "a"/,
    );
  });
});

describe('filter YAML files', () => {
  it('reports YAML syntax errors and duplicate keys with the file and line', async () => {
    await expect(parseFilterText('schema_version: 1\nfilters: [\n', 'f.yaml')).rejects.toThrow(
      /^f\.yaml: invalid YAML: line/,
    );
    await expect(
      parseFilterText('schema_version: 1\nfilters:\n  a: { match: x }\n  a: { match: y }\n', 'f.yaml'),
    ).rejects.toThrow(/f\.yaml: invalid YAML: .*[Dd]uplicate/);
  });

  it('keeps each filter’s own YAML, comments included, dedented', async () => {
    const [a, b] = await parseFilterText(
      'schema_version: 1\nfilters:\n  a:\n    match: x   # why\n    head_lines: 3\n  b: { match: y }\n',
      'f.yaml',
    );
    expect(a!.yaml).toBe('a:\n  match: x   # why\n  head_lines: 3\n');
    expect(b!.yaml).toBe('b: { match: y }\n');
  });

  it('rejects a bad regex when compiled, naming the file and filter', async () => {
    await expect(
      compileYaml('schema_version: 1\nfilters:\n  a:\n    match: "(unclosed"\n', 'f.yaml'),
    ).rejects.toThrow(/^f\.yaml: filters\.a\.match: pattern "\(unclosed" is not a valid RE2 regex/);
  });
});
