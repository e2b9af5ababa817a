import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FiltersFlags, filtersCommand } from '../../../src/commands/filters.js';
import { projectTrust } from '../../../src/trust/state.js';
import { tempDir } from '../../helpers.js';

const GOOD = `schema_version: 1
filters:
  mytool:
    description: mytool runs, failures only
    match: '^\\$ mytool'
    priority: 7
    strip_lines_matching: ['^ok ']
    tests:
      - name: noisy success
        input: "ok 1\\nok 2\\ndone\\n"
        expected: "done\\n"
      - name: a failure
        input: "ok 1\\nFAIL 2\\ndone\\n"
        expected: "FAIL 2\\ndone\\n"
`;

const BAD = `schema_version: 1
filters:
  broken:
    match: 'x'
    head_lines: 1
    tests:
      - name: keeps everything
        input: "a\\nb\\n"
        expected: "a\\nb\\n"
  untested:
    match: 'y'
`;

function sandbox() {
  const root = tempDir('cg-filters-cmd-');
  const cwd = join(root, 'project');
  mkdirSync(cwd, { recursive: true });
  const env = { XDG_CONFIG_HOME: join(root, 'config') };
  writeFileSync(join(cwd, 'good.yaml'), GOOD);
  writeFileSync(join(cwd, 'bad.yaml'), BAD);
  let stdin = '';
  const run = async (action: string, args: string[] = [], flags: FiltersFlags = {}) => {
    let out = '';
    let err = '';
    const code = await filtersCommand(action, args, flags, {
      cwd,
      env,
      out: (s) => {
        out += s;
      },
      err: (s) => {
        err += s;
      },
      stdin: async () => stdin,
      // A person at a terminal, for `trust` (test/e2e runs it in a real pty).
      presence: { env: {}, isTerminal: () => true },
    });
    return { code, out, err };
  };
  return {
    cwd,
    env,
    run,
    setStdin: (s: string) => {
      stdin = s;
    },
  };
}

describe('cg filters verify', () => {
  it('runs the inline tests of the given files and ends with "N passed, M failed"', async () => {
    const s = sandbox();
    const r = await s.run('verify', ['good.yaml']);
    expect(r).toEqual({ code: 0, out: '2 passed, 0 failed\n', err: '' });
  });

  it('prints FAIL [filter] test with expected and actual, and exits 1', async () => {
    const s = sandbox();
    const r = await s.run('verify', ['good.yaml', 'bad.yaml']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('FAIL [broken] keeps everything\n');
    expect(r.out).toMatch(
      / {2}expected:\n {4}a\n {4}b\n {2}actual:\n {4}a\n {4}\.\.\. \(1 lines omitted\)\n/,
    );
    expect(r.out.trimEnd().split('\n').at(-1)).toBe('2 passed, 1 failed');
  });

  it('with --require-all also fails filters that have no tests', async () => {
    const s = sandbox();
    const r = await s.run('verify', ['bad.yaml'], { requireAll: true });
    expect(r.code).toBe(1);
    expect(r.out).toContain('FAIL [untested] (no inline tests)');
    expect(r.out.trimEnd().split('\n').at(-1)).toBe('0 passed, 2 failed');
  });

  it('without files verifies every loaded filter, --filters file included', async () => {
    const s = sandbox();
    const r = await s.run('verify', [], { filters: 'good.yaml' });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^\d+ passed, 0 failed\n$/);
    expect(Number(r.out.split(' ')[0])).toBeGreaterThanOrEqual(2);
  });
});

describe('cg filters list and show', () => {
  it('lists name, priority, source and description in the order filters are tried', async () => {
    const s = sandbox();
    const r = await s.run('list', [], { filters: 'good.yaml' });
    const [header, first] = r.out.split('\n');
    expect(header).toMatch(/^NAME\s+PRIORITY\s+SOURCE\s+DESCRIPTION$/);
    expect(first).toMatch(/^mytool\s+7\s+file: good\.yaml\s+mytool runs, failures only$/);
  });

  it('shows a filter’s YAML with its source', async () => {
    const s = sandbox();
    const r = await s.run('show', ['mytool'], { filters: 'good.yaml' });
    expect(r.out).toMatch(/^# good\.yaml\nmytool:\n {2}description: mytool runs, failures only\n/);
    await expect(s.run('show', ['nope'])).rejects.toThrow(/no filter named "nope"/);
  });
});

describe('cg filters test', () => {
  it('prints the output, then on stderr what was dropped and the loss', async () => {
    const s = sandbox();
    s.setStdin('ok 1\nok 2\nFAIL 3\ndone\n');
    const r = await s.run('test', ['mytool', '-'], { filters: 'good.yaml' });
    expect(r.out).toBe('FAIL 3\ndone\n');
    expect(r.err).toBe('--- [mytool] 4 → 2 lines; 2 input lines not in the output; loss: whole\n');
  });

  it('reads the input from a file and names a tail cut', async () => {
    const s = sandbox();
    writeFileSync(join(s.cwd, 'in.txt'), 'a\nb\nc\n');
    writeFileSync(join(s.cwd, 'h.yaml'), 'schema_version: 1\nfilters:\n  h: { match: h, head_lines: 1 }\n');
    const r = await s.run('test', ['h', 'in.txt'], { filters: 'h.yaml' });
    expect(r.out).toBe('a\n... (2 lines omitted)\n');
    expect(r.err).toMatch(/loss: tail \(lines 2- cut; `cg expand KEY --lines 2-` gives them back\)/);
  });
});

describe('cg filters trust / untrust', () => {
  it('trusts valid project filters, then untrusts them', async () => {
    const s = sandbox();
    mkdirSync(join(s.cwd, '.cg', 'filters'), { recursive: true });
    writeFileSync(join(s.cwd, '.cg', 'filters', 'good.yaml'), GOOD);
    const before = await s.run('list');
    expect(before.out).not.toContain('mytool');
    expect(before.err).toMatch(/ignoring \.cg\/filters\/ \(1 file\): .*not trusted .*cg trust/);
    const t = await s.run('trust');
    expect(t.out).toMatch(
      /^trusted \S+: 1 filter in 1 file of \.cg\/filters; editing any of them needs `cg trust` again\n$/,
    );
    expect(projectTrust(s.cwd, s.env).status).toBe('trusted');
    expect((await s.run('list')).out).toMatch(/mytool\s+7\s+project: \.cg\/filters\/good\.yaml/);
    expect((await s.run('untrust')).out).toMatch(/ is no longer trusted\n$/);
    expect(projectTrust(s.cwd, s.env).status).toBe('untrusted');
  });

  it('refuses to trust filters whose inline tests fail', async () => {
    const s = sandbox();
    mkdirSync(join(s.cwd, '.cg', 'filters'), { recursive: true });
    writeFileSync(join(s.cwd, '.cg', 'filters', 'bad.yaml'), BAD);
    await expect(s.run('trust')).rejects.toThrow(
      /\.cg\/filters\/bad\.yaml: filters\.broken\.tests: inline test/,
    );
    expect(projectTrust(s.cwd, s.env).status).toBe('untrusted');
  });

  it('says there is nothing to trust without .cg/filters or .cg.yaml', async () => {
    await expect(sandbox().run('trust')).rejects.toThrow(
      /no \.cg\.yaml or \.cg\/filters\/\*\.yaml in this directory or above/,
    );
  });
});

describe('cg filters usage', () => {
  it('refuses unknown actions and wrong argument counts', async () => {
    const s = sandbox();
    await expect(s.run('frobnicate')).rejects.toThrow(/unknown action "frobnicate"/);
    await expect(s.run('show')).rejects.toThrow(/usage: cg filters show NAME/);
    await expect(s.run('list', ['x'])).rejects.toThrow(/usage: cg filters list/);
  });
});
