import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type TrustFlags, trustCommand } from '../../../src/commands/trust.js';
import { UsageError } from '../../../src/errors.js';
import { tempDir } from '../../helpers.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

function repo() {
  const cwd = tempDir('cg-trust-json-');
  made.push(cwd);
  mkdirSync(join(cwd, '.git'));
  const env = { XDG_CONFIG_HOME: join(cwd, '.xdg') };
  const run = async (flags: TrustFlags) => {
    let out = '';
    const code = await trustCommand(flags, { cwd, env, out: (s) => (out += s) });
    return { code, out };
  };
  return { cwd, run };
}

describe('cg trust --show --json', () => {
  it('reports the project, its files, the status and what its config would set', async () => {
    const r = repo();
    writeFileSync(join(r.cwd, '.cg.yaml'), 'store: { hint: " see {key}" }\n');
    const shown = await r.run({ show: true, json: true });
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out)).toEqual({
      project: r.cwd,
      files: ['.cg.yaml'],
      status: 'untrusted',
      trustedAt: null,
      reason: null,
      problem: null,
      grants: ['marker hint: " see {key}"'],
    });
  });

  it('says why files cannot be trusted as they are, and reports no project as status none', async () => {
    const r = repo();
    expect(JSON.parse((await r.run({ show: true, json: true })).out)).toMatchObject({
      project: null,
      status: 'none',
    });
    writeFileSync(join(r.cwd, '.cg.yaml'), 'presett: safe\n');
    const bad = JSON.parse((await r.run({ show: true, json: true })).out);
    expect(bad.problem).toMatch(/presett: unknown key \(did you mean preset\?\)/);
  });

  it('goes with --show only: --json alone trusts nothing', async () => {
    const r = repo();
    writeFileSync(join(r.cwd, '.cg.yaml'), 'preset: safe\n');
    await expect(r.run({ json: true })).rejects.toThrow(UsageError);
    expect(JSON.parse((await r.run({ show: true, json: true })).out).status).toBe('untrusted');
  });
});
