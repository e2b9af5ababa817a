import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type TrustFlags, trustCommand } from '../../../src/commands/trust.js';
import type { Presence } from '../../../src/trust/person.js';
import { projectTrust } from '../../../src/trust/state.js';
import { tempDir } from '../../helpers.js';

const FILTERS = `schema_version: 1
filters:
  mytool:
    match: '^\\$ mytool'
    strip_lines_matching: ['^ok ']
    tests:
      - { name: drops ok, input: "ok 1\\ndone\\n", expected: "done\\n" }
`;

/** A person at a terminal: what `cg trust` needs (trust/person.ts; test/e2e runs it in a real pty). */
const PERSON: Presence = { env: {}, isTerminal: () => true };

function repo() {
  const cwd = tempDir('cg-trust-cmd-');
  mkdirSync(join(cwd, '.git'));
  const env = { XDG_CONFIG_HOME: join(cwd, '.xdg') };
  const run = async (flags: TrustFlags = {}, from = cwd) => {
    let out = '';
    const code = await trustCommand(flags, { cwd: from, env, out: (s) => (out += s), presence: PERSON });
    return { code, out };
  };
  const status = () => projectTrust(cwd, env).status;
  return { cwd, env, run, status };
}

describe('cg trust', () => {
  it('trusts config and filters together and says what the config may then do', async () => {
    const r = repo();
    writeFileSync(
      join(r.cwd, '.cg.yaml'),
      'model: { source: config, model: m, base_url: "http://127.0.0.1:1/v1", api_key_env: GITHUB_TOKEN }\n' +
        'store: { dir: ./x, max_mb: 1, hint: " see {key}" }\n',
    );
    mkdirSync(join(r.cwd, '.cg', 'filters'), { recursive: true });
    writeFileSync(join(r.cwd, '.cg', 'filters', 'a.yaml'), FILTERS);
    const t = await r.run();
    expect(t.code).toBe(0);
    expect(t.out).toBe(
      `trusted ${r.cwd}: .cg.yaml and 1 filter in 1 file of .cg/filters; editing any of them needs \`cg trust\` again\n` +
        'its config now sets:\n' +
        '  model: m at http://127.0.0.1:1/v1 with the key in $GITHUB_TOKEN, for every model call\n' +
        `  store: originals kept in ${join(r.cwd, 'x')} (unless CG_STORE_DIR is set)\n` +
        '  store limits: 14 days, 1 MiB, for the store it uses\n' +
        '  marker hint: " see {key}"\n',
    );
    expect(r.status()).toBe('trusted');
  });

  it('names the Redis server a trusted config sends originals to, never its password', async () => {
    const r = repo();
    writeFileSync(
      join(r.cwd, '.cg.yaml'),
      'store: { url: "redis://ci:hunter2@10.0.0.5:6380/1", prefix: "proj:" }\n',
    );
    const t = await r.run();
    expect(t.out).toContain(
      '  store: originals sent to the Redis server redis://ci:***@10.0.0.5:6380/1 under proj: (unless CG_STORE_URL is set)\n',
    );
    expect(t.out).not.toContain('hunter2');
  });

  it('shows the files and the status without changing anything, from a subdirectory', async () => {
    const r = repo();
    writeFileSync(join(r.cwd, '.cg.yaml'), 'preset: safe\n');
    const sub = join(r.cwd, 'src');
    mkdirSync(sub);
    expect((await r.run({ show: true }, sub)).out).toBe(
      `project ${r.cwd}\n  ../.cg.yaml\nstatus: not trusted\n`,
    );
    expect(r.status()).toBe('untrusted');
    await r.run({}, sub);
    expect((await r.run({ show: true }, sub)).out).toMatch(/\nstatus: trusted \(since \d{4}-\d\d-\d\dT/);
    writeFileSync(join(r.cwd, '.cg.yaml'), 'preset: aggressive\n');
    expect((await r.run({ show: true }, sub)).out).toMatch(
      /\nstatus: not trusted: the files changed since they were trusted\n$/,
    );
  });

  it('withdraws consent with --untrust', async () => {
    const r = repo();
    writeFileSync(join(r.cwd, '.cg.yaml'), 'preset: safe\n');
    await r.run();
    expect((await r.run({ untrust: true })).out).toBe(`${r.cwd} is no longer trusted\n`);
    expect(r.status()).toBe('untrusted');
    expect((await r.run({ untrust: true })).out).toBe(`${r.cwd} was not trusted\n`);
  });

  it('refuses to trust a config that does not load, or a file planted as a link, naming the file', async () => {
    const r = repo();
    writeFileSync(join(r.cwd, '.cg.yaml'), 'components:\n  collapse: { max_tokns: 5 }\n');
    await expect(r.run()).rejects.toThrow(/^\.cg\.yaml: components\.collapse\.max_tokns: unknown key/);
    expect(r.status()).toBe('untrusted');
    writeFileSync(join(r.cwd, 'real.yaml'), 'preset: safe\n');
    const link = join(r.cwd, '.cg.yaml');
    rmSync(link);
    symlinkSync(join(r.cwd, 'real.yaml'), link);
    await expect(r.run()).rejects.toThrow(/^\.cg\.yaml: config file is a symbolic link/);
  });

  it('says there is nothing to trust, and refuses --show with --untrust', async () => {
    const r = repo();
    await expect(r.run()).rejects.toThrow(
      /no \.cg\.yaml or \.cg\/filters\/\*\.yaml in this directory or above it/,
    );
    expect((await r.run({ show: true })).out).toMatch(/^no \.cg\.yaml or \.cg\/filters/);
    await expect(r.run({ show: true, untrust: true })).rejects.toThrow(/--show or --untrust, not both/);
  });
});
