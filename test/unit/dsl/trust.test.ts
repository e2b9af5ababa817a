import { existsSync, mkdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFilters } from '../../../src/dsl/registry.js';
import { projectFilters, trustFilePath, trustProject, untrustProject } from '../../../src/dsl/trust.js';
import { tempDir } from '../../helpers.js';

const FILTER = "schema_version: 1\nfilters:\n  proj:\n    match: 'mytool'\n    head_lines: 1\n";

function project() {
  const root = tempDir('cg-trust-');
  const cwd = join(root, 'repo');
  const dir = join(cwd, '.cg', 'filters');
  mkdirSync(dir, { recursive: true });
  const env = { XDG_CONFIG_HOME: join(root, 'config') };
  writeFileSync(join(dir, 'tools.yaml'), FILTER);
  const names = async () =>
    (await loadFilters({ cwd, env }, { builtins: async () => [] })).filters.map((f) => f.name);
  return { root, cwd, dir, env, names };
}

describe('project filter trust', () => {
  it('ignores project filters that were never trusted', async () => {
    const p = project();
    expect(projectFilters(p.cwd, p.env).status).toBe('untrusted');
    expect(await p.names()).toEqual([]);
  });

  it('uses them once trusted, recording the real path and a hash in trusted.json', async () => {
    const p = project();
    trustProject(projectFilters(p.cwd, p.env), p.env);
    expect(projectFilters(p.cwd, p.env).status).toBe('trusted');
    expect(await p.names()).toEqual(['proj']);
    const record = JSON.parse(readFileSync(trustFilePath(p.env), 'utf8'));
    expect(Object.keys(record.projects)).toHaveLength(1);
    expect(Object.values<{ hash: string }>(record.projects)[0]!.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('ignores them again after an edit, an added file or a removed file', async () => {
    const p = project();
    const trust = () => trustProject(projectFilters(p.cwd, p.env), p.env);
    trust();
    writeFileSync(join(p.dir, 'tools.yaml'), FILTER.replace('head_lines: 1', 'head_lines: 2'));
    expect(projectFilters(p.cwd, p.env).status).toBe('changed');
    expect(await p.names()).toEqual([]);
    trust();
    expect(await p.names()).toEqual(['proj']);
    writeFileSync(join(p.dir, 'more.yml'), "schema_version: 1\nfilters:\n  more: { match: 'x' }\n");
    expect(projectFilters(p.cwd, p.env).status).toBe('changed');
    trust();
    unlinkSync(join(p.dir, 'more.yml'));
    expect(projectFilters(p.cwd, p.env).status).toBe('changed');
  });

  it('keys trust by real path, so a symlinked checkout is the same project', () => {
    const p = project();
    const link = join(p.root, 'link');
    symlinkSync(p.cwd, link);
    trustProject(projectFilters(link, p.env), p.env);
    expect(projectFilters(p.cwd, p.env).status).toBe('trusted');
  });

  it('forgets a project on untrust', () => {
    const p = project();
    trustProject(projectFilters(p.cwd, p.env), p.env);
    expect(untrustProject(p.cwd, p.env)).toBe(true);
    expect(projectFilters(p.cwd, p.env).status).toBe('untrusted');
    expect(untrustProject(p.cwd, p.env)).toBe(false);
  });

  it('has nothing to trust without a .cg/filters directory, and writes nothing', () => {
    const root = tempDir('cg-trust-');
    const env = { XDG_CONFIG_HOME: join(root, 'config') };
    expect(projectFilters(root, env).status).toBe('none');
    expect(existsSync(trustFilePath(env))).toBe(false);
  });

  it('treats an unreadable trust file as trusting nothing when loading', async () => {
    const p = project();
    mkdirSync(join(p.env.XDG_CONFIG_HOME, 'cg'), { recursive: true });
    writeFileSync(trustFilePath(p.env), 'not json');
    expect(projectFilters(p.cwd, p.env).status).toBe('untrusted');
    expect(() => trustProject(projectFilters(p.cwd, p.env), p.env)).toThrow(/not a cg trust file/);
  });
});
