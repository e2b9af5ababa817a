/**
 * Shape selectors claim an output only on evidence in its first lines (issue 31): the table of
 * real outputs below — captured here from other families (compilers, linters, logs, listings that
 * are not paths) — must not be claimed by any shape, and the outputs each shape is for must be.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { selectorFor } from '../../../src/dsl/registry.js';
import { hasShape, SHAPE_NAMES } from '../../../src/dsl/shapes.js';
import { ROOT, seededRandom } from '../../helpers.js';

const random = seededRandom(31);
const randomBytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));
const fixture = (name: string) => readFileSync(join(ROOT, 'test', 'fixtures', 'unseen', name), 'utf8');
const claims = (text: string, command?: string) =>
  SHAPE_NAMES.filter((s) => hasShape(s, selectorFor(command, text)));

const OTHER_FAMILIES: Record<string, string> = {
  'mypy (path:line: error:)': fixture('mypy-attr.txt'),
  'pylint (path:line:col: code)': fixture('pylint-attr.txt'),
  'pycodestyle (path:line:col: E501)': fixture('pycodestyle-yaml.txt'),
  'pyflakes (path:line:col: message)': fixture('pyflakes-pygments.txt'),
  'eslint -f unix (path:line:col: message)': fixture('eslint-unix.txt'),
  'shellcheck (In path line N:)': fixture('shellcheck.txt'),
  'go vet (# package, path:line:col:)': fixture('go-vet.txt'),
  'javac (path:line: error:)': fixture('javac-errors.txt'),
  'yamllint (path, then   line:col  level)': fixture('yamllint-builtins.txt'),
  'dpkg -l (a table)': fixture('dpkg-l.txt'),
  'dpkg.log (dated lines)': fixture('dpkg-log.txt'),
  'pip freeze (name==version)': fixture('pip-freeze.txt'),
  'npm ls (a dependency tree)': fixture('npm-ls-all.txt'),
  'git log --stat': fixture('git-log-stat.txt'),
  'go test -json (events)': fixture('go-test-json-inventory.txt'),
  'kubectl -o json (a document)': fixture('kubectl-create-deploy-json.txt'),
  'gcc diagnostics':
    'src/a.c:3:5: error: unknown type name ‘foo’\n    3 | foo x;\n      | ^~~\nsrc/a.c:9:1: warning: control reaches end\n',
  'base64 -w 76 of random bytes': `${randomBytes(900)
    .toString('base64')
    .replace(/(.{76})/g, '$1\n')}\n`,
  'loghub HealthApp (a timestamp like path:line:)':
    '20171223-22:15:29:606|Step_LSC|30002312|onStandStepChanged 3579\n20171223-22:15:29:615|Step_LSC|30002312|onExtend:1514038530000 14 0 4\n20171223-22:15:29:633|Step_StandReportReceiver|30002312|onReceive action: android.intent.action.SCREEN_ON\n',
  'loghub OpenStack (a log file name and time like path:line:)':
    'nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008 25746 INFO nova.osapi_compute.wsgi.server [req-38101a0b] "GET /v2/servers/detail HTTP/1.1" status: 200\nnova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.272 25746 INFO nova.osapi_compute.wsgi.server [req-9bc36dd9] "GET /v2/servers/detail HTTP/1.1" status: 200\n',
  'seq 1 100': Array.from({ length: 100 }, (_, i) => `${i + 1}`).join('\n'),
  URLs: 'https://example.com/a/b\nhttps://example.com/c/d\nhttps://example.com/e\n',
  'ls (names, no directories)': 'README.md\npackage.json\nsrc\ntest\n',
};

describe('shapes', () => {
  it.each(Object.entries(OTHER_FAMILIES))('no shape claims %s', (_name, text) => {
    expect(claims(text)).toEqual([]);
  });

  it('grep-hits claims grep -rn and git grep -n output, with or without a command', () => {
    expect(claims(fixture('grep-def-attr.txt'))).toEqual(['grep-hits']);
    expect(claims(fixture('git-grep-export.txt'))).toEqual(['grep-hits']);
    expect(claims(fixture('grep-def-attr.txt'), 'bash -c "grep -rn def attr"')).toEqual(['grep-hits']);
  });

  it('path-list claims find, git ls-files and npm ls --parseable output', () => {
    for (const f of [
      'find-doc-depth2.txt',
      'find-python-depth3.txt',
      'git-ls-files.txt',
      'npm-ls-parseable.txt',
    ])
      expect(claims(fixture(f)), f).toEqual(['path-list']);
  });

  it('claims nothing on a single line of evidence', () => {
    expect(claims('src/a.ts:1:import x\n')).toEqual([]);
    expect(claims('src/a.ts\n')).toEqual([]);
  });
});
