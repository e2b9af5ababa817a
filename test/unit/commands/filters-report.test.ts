import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FiltersFlags, filtersCommand } from '../../../src/commands/filters.js';
import { trustProject } from '../../../src/trust/state.js';
import { tempDir } from '../../helpers.js';

const GOOD = `schema_version: 1
filters:
  mytool:
    description: mytool runs, failures only; a description long enough that a narrow terminal cuts it
    match: '^\\$ mytool'
    priority: 7
    strip_lines_matching: ['^ok ']
    tests:
      - name: noisy success
        input: "ok 1\\nok 2\\ndone\\n"
        expected: "done\\n"
`;

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A repository with one project filter file, and `cg filters` run in it. */
function project() {
  const root = tempDir('cg-filters-report-');
  made.push(root);
  const cwd = join(root, 'repo');
  mkdirSync(join(cwd, '.git'), { recursive: true });
  mkdirSync(join(cwd, '.cg', 'filters'), { recursive: true });
  const file = join(cwd, '.cg', 'filters', 'mine.yaml');
  writeFileSync(file, GOOD);
  const env = { XDG_CONFIG_HOME: join(root, 'config') };
  const run = async (action: string, args: string[] = [], flags: FiltersFlags = {}, columns?: number) => {
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
      stdin: async () => '',
      ...(columns !== undefined ? { columns } : {}),
    });
    return { code, out, err };
  };
  // Trusting is a person's act at a terminal; here the record is written as `cg trust` writes it.
  const trust = () => trustProject(cwd, env, async () => undefined);
  return { cwd, file, run, trust };
}

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1);

describe('cg filters verify over project files it did not verify', () => {
  it('names untrusted project files in the summary, and --require-all fails on them', async () => {
    const p = project();
    const plain = await p.run('verify');
    expect(plain.code).toBe(0);
    expect(lastLine(plain.out)).toMatch(
      /^\d+ passed, 0 failed; not verified: 1 project filter file \(not trusted: cg trust, or name it: cg filters verify \.cg\/filters\/mine\.yaml\)$/,
    );
    const all = await p.run('verify', [], { requireAll: true });
    expect(all.code).toBe(1);
    expect(lastLine(all.out)).toMatch(
      /not verified: 1 project filter file .*, which --require-all does not allow$/,
    );
  });

  it('says a trusted file that was edited since is not verified, instead of "N passed, 0 failed"', async () => {
    const p = project();
    await p.trust();
    const trusted = await p.run('verify', [], { requireAll: true });
    expect(lastLine(trusted.out)).toMatch(/^\d+ passed, 0 failed$/);
    writeFileSync(p.file, `${GOOD}# an edit\n`);
    const edited = await p.run('verify', [], { requireAll: true });
    expect(edited.code).toBe(1);
    expect(lastLine(edited.out)).toMatch(
      /not verified: 1 project filter file \(changed since they were trusted: /,
    );
    expect(edited.err).toMatch(/ignoring \.cg\/filters\/ \(1 file\): they changed since they were trusted/);
    // Named, the file is verified whatever its trust.
    expect(await p.run('verify', ['.cg/filters/mine.yaml'], { requireAll: true })).toMatchObject({
      code: 0,
      out: '1 passed, 0 failed\n',
    });
  });

  it('prints the same as JSON with --json', async () => {
    const p = project();
    const r = await p.run('verify', [], { requireAll: true, json: true });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out);
    expect(Object.keys(report)).toEqual(['ok', 'passed', 'failed', 'failures', 'untested', 'skipped']);
    expect(report).toMatchObject({
      ok: false,
      failed: 0,
      failures: [],
      skipped: { files: ['.cg/filters/mine.yaml'], status: 'untrusted', reason: 'not trusted' },
    });
    const named = JSON.parse((await p.run('verify', ['.cg/filters/mine.yaml'], { json: true })).out);
    expect(named).toMatchObject({ ok: true, passed: 1, failed: 0, skipped: null });
  });

  it('lists a failing test in the JSON with its first difference', async () => {
    const p = project();
    writeFileSync(p.file, GOOD.replace('expected: "done\\n"', 'expected: "other\\n"'));
    const report = JSON.parse((await p.run('verify', ['.cg/filters/mine.yaml'], { json: true })).out);
    expect(report.failures).toEqual([
      {
        filter: 'mytool',
        source: '.cg/filters/mine.yaml',
        test: 'noisy success',
        difference: 'line 1: expected "other", got "done"',
        expected: 'other\n',
        actual: 'done\n',
      },
    ]);
  });
});

describe('cg filters list', () => {
  it('fits each line to the terminal, cutting descriptions with …, and keeps them whole when piped', async () => {
    const p = project();
    await p.trust();
    const piped = await p.run('list');
    expect(piped.out).toContain('a description long enough that a narrow terminal cuts it');
    expect(Math.max(...piped.out.split('\n').map((l) => l.length))).toBeGreaterThan(120);
    for (const columns of [120, 100]) {
      const tty = await p.run('list', [], {}, columns);
      const lines = tty.out.trimEnd().split('\n');
      expect(
        lines.every((l) => [...l].length <= columns),
        `${columns}`,
      ).toBe(true);
      expect(lines.find((l) => l.startsWith('mytool'))).toMatch(/…$/);
    }
  });

  it('puts the description on a line of its own when the other columns leave it too little room', async () => {
    const p = project();
    await p.trust();
    const lines = (await p.run('list', [], {}, 80)).out.split('\n');
    const at = lines.findIndex((l) => l.startsWith('mytool'));
    expect(lines[at]).toMatch(/^mytool\s+7\s+project: \.cg\/filters\/mine\.yaml$/);
    expect(lines[at + 1]).toMatch(/^ {4}mytool runs, failures only/);
    expect(lines.every((l) => [...l].length <= 80 || !l.startsWith(' '))).toBe(true);
  });

  it('prints names alone with --names, and everything whole with --json', async () => {
    const p = project();
    await p.trust();
    const names = (await p.run('list', [], { names: true })).out.split('\n').filter(Boolean);
    expect(names[0]).toBe('mytool');
    expect(names).toContain('pytest');
    const json = JSON.parse((await p.run('list', [], { json: true }, 80)).out);
    expect(Object.keys(json)).toEqual(['filters', 'overridden', 'skipped']);
    expect(json.filters[0]).toEqual({
      name: 'mytool',
      priority: 7,
      sourceKind: 'project',
      source: '.cg/filters/mine.yaml',
      description: 'mytool runs, failures only; a description long enough that a narrow terminal cuts it',
      tests: 1,
    });
    expect(json.skipped).toBeNull();
  });

  it('says which project files it left out as untrusted', async () => {
    const p = project();
    const r = await p.run('list');
    expect(lastLine(r.out)).toBe('(not listed: .cg/filters/mine.yaml: not trusted; cg trust uses them)');
    expect(JSON.parse((await p.run('list', [], { json: true })).out).skipped).toEqual({
      files: ['.cg/filters/mine.yaml'],
      status: 'untrusted',
      reason: 'not trusted',
    });
  });
});
