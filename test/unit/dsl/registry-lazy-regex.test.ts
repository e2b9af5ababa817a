// Its own file: whether re2js is loaded is per process state, and another test may load it first.
import { describe, expect, it } from 'vitest';
import { parseFilterText } from '../../../src/dsl/parse.js';
import { re2Loaded, registerPrefilters } from '../../../src/dsl/regex.js';
import { createFilterSource } from '../../../src/dsl/registry.js';
import { tempDir } from '../../helpers.js';

const MATCH = '^\\$ lazytool\\b';
const YAML = `schema_version: 1
filters:
  lazy:
    match: '${MATCH}'
    keep_lines_matching: ['^ok']
`;

describe('choosing a builtin filter', () => {
  it('loads re2js only once a pattern may match the selector', async () => {
    registerPrefilters({ [MATCH]: '$ lazytool' });
    const root = tempDir('cg-registry-lazy-');
    const source = createFilterSource(
      { cwd: root, env: { XDG_CONFIG_HOME: `${root}/config` } },
      { builtins: async () => parseFilterText(YAML, 'builtin-filters/lazy.yaml') },
    );
    expect(await source.select('cat app.log', 'one\ntwo\n')).toBeUndefined();
    expect(re2Loaded()).toBe(false);
    const chosen = await source.select('lazytool --all', 'ok 1\nnot ok\n');
    expect(chosen?.name).toBe('lazy');
    expect(re2Loaded()).toBe(true);
    expect(chosen?.run('ok 1\nnot ok\n').text).toBe('ok 1\n');
  });
});
