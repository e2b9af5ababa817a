import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFilters } from '../../../src/dsl/registry.js';
import { trustFilePath } from '../../../src/trust/record.js';
import { hashContents, projectTrust, trustProject, untrustProject } from '../../../src/trust/state.js';
import { tempDir } from '../../helpers.js';

const FILTER = "schema_version: 1\nfilters:\n  proj:\n    match: 'mytool'\n    head_lines: 1\n";

function project() {
  const root = tempDir('cg-trust-');
  const cwd = join(root, 'repo');
  const dir = join(cwd, '.cg', 'filters');
  mkdirSync(dir, { recursive: true });
  mkdirSync(join(cwd, '.git'));
  const env = { XDG_CONFIG_HOME: join(root, 'config') };
  writeFileSync(join(dir, 'tools.yaml'), FILTER);
  const names = async () =>
    (await loadFilters({ cwd, env }, { builtins: async () => [] })).filters.map((f) => f.name);
  const trust = () => trustProject(cwd, env, async () => undefined);
  const status = (from = cwd) => projectTrust(from, env).status;
  return { root, cwd, dir, env, names, trust, status };
}

describe('project trust', () => {
  it('ignores project filters that were never trusted', async () => {
    const p = project();
    expect(p.status()).toBe('untrusted');
    expect(await p.names()).toEqual([]);
  });

  it('uses them once trusted, recording the real path and a hash in trusted.json', async () => {
    const p = project();
    await p.trust();
    expect(p.status()).toBe('trusted');
    expect(await p.names()).toEqual(['proj']);
    const record = JSON.parse(readFileSync(trustFilePath(p.env), 'utf8'));
    expect(Object.keys(record.projects)).toEqual([p.cwd]);
    expect(Object.values<{ hash: string }>(record.projects)[0]!.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('ignores them again after an edit, an added file or a removed file', async () => {
    const p = project();
    await p.trust();
    writeFileSync(join(p.dir, 'tools.yaml'), FILTER.replace('head_lines: 1', 'head_lines: 2'));
    expect(p.status()).toBe('changed');
    expect(await p.names()).toEqual([]);
    await p.trust();
    expect(await p.names()).toEqual(['proj']);
    writeFileSync(join(p.dir, 'more.yml'), "schema_version: 1\nfilters:\n  more: { match: 'x' }\n");
    expect(p.status()).toBe('changed');
    await p.trust();
    unlinkSync(join(p.dir, 'more.yml'));
    expect(p.status()).toBe('changed');
  });

  it('covers the project config with the same consent: adding or editing .cg.yaml untrusts the project', async () => {
    const p = project();
    await p.trust();
    writeFileSync(join(p.cwd, '.cg.yaml'), 'preset: safe\n');
    expect(p.status()).toBe('changed');
    await p.trust();
    expect(p.status()).toBe('trusted');
    writeFileSync(join(p.cwd, '.cg.yaml'), 'preset: safe\n# edited\n');
    expect(p.status()).toBe('changed');
  });

  it('keeps the hash of a filters-only project as it was before config joined, so old records stay valid', () => {
    // sha256 of "tools.yaml\0<bytes>\0": what `cg filters trust` recorded before .cg.yaml was covered.
    const contents = { filters: [{ path: '/p/.cg/filters/tools.yaml', shown: '', text: FILTER }] };
    expect(hashContents(contents)).toBe(
      'sha256:c8fc9adfd687d8bc42c2738418576154b07f9f2edbb8106c8ba5e2b4d2a5225f',
    );
  });

  it('finds the project from a subdirectory, and not above the repository root', async () => {
    const p = project();
    await p.trust();
    const sub = join(p.cwd, 'src', 'lib');
    mkdirSync(sub, { recursive: true });
    expect(p.status(sub)).toBe('trusted');
    const outer = tempDir('cg-trust-');
    mkdirSync(join(outer, '.cg', 'filters'), { recursive: true });
    writeFileSync(join(outer, '.cg', 'filters', 'x.yaml'), FILTER);
    const inner = join(outer, 'checkout');
    mkdirSync(join(inner, '.git'), { recursive: true });
    expect(projectTrust(inner, p.env).status).toBe('none');
    rmSync(join(inner, '.git'), { recursive: true });
    expect(projectTrust(inner, p.env).status).toBe('untrusted');
  });

  it('keys trust by real path, so a symlinked checkout is the same project', async () => {
    const p = project();
    const link = join(p.root, 'link');
    symlinkSync(p.cwd, link);
    await trustProject(link, p.env, async () => undefined);
    expect(p.status()).toBe('trusted');
  });

  it('forgets a project on untrust', async () => {
    const p = project();
    await p.trust();
    expect(untrustProject(p.cwd, p.env).removed).toBe(true);
    expect(p.status()).toBe('untrusted');
    expect(untrustProject(p.cwd, p.env).removed).toBe(false);
  });

  it('has nothing to trust without .cg.yaml or .cg/filters, and writes nothing', async () => {
    const root = tempDir('cg-trust-');
    mkdirSync(join(root, '.git'));
    const env = { XDG_CONFIG_HOME: join(root, 'config') };
    expect(projectTrust(root, env).status).toBe('none');
    expect(await trustProject(root, env, async () => undefined)).toBeUndefined();
    expect(existsSync(trustFilePath(env))).toBe(false);
  });

  it('treats an unreadable trust file as trusting nothing when loading', async () => {
    const p = project();
    mkdirSync(join(p.env.XDG_CONFIG_HOME, 'cg'), { recursive: true });
    writeFileSync(trustFilePath(p.env), 'not json');
    expect(p.status()).toBe('untrusted');
    await expect(p.trust()).rejects.toThrow(/not a cg trust file/);
  });

  it('does not record a project whose check fails', async () => {
    const p = project();
    await expect(
      trustProject(p.cwd, p.env, async () => {
        throw new Error('bad filter');
      }),
    ).rejects.toThrow('bad filter');
    expect(p.status()).toBe('untrusted');
  });

  it('makes a trusted project unusable, not trusted, when one of its files becomes a link', async () => {
    const p = project();
    await p.trust();
    unlinkSync(join(p.dir, 'tools.yaml'));
    writeFileSync(join(p.root, 'elsewhere.yaml'), FILTER);
    symlinkSync(join(p.root, 'elsewhere.yaml'), join(p.dir, 'tools.yaml'));
    const t = projectTrust(p.cwd, p.env);
    expect(t.status).toBe('unusable');
    expect(t.status === 'unusable' && t.reason).toMatch(/tools\.yaml: filter file is a symbolic link/);
    expect(await p.names()).toEqual([]);
  });
});
