import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTS_MD, type InitFlags, initCommand } from '../../../src/commands/init.js';
import { ConfigError, UsageError } from '../../../src/errors.js';
import { tempDir } from '../../helpers.js';

const OTHER_SETTINGS = `${JSON.stringify(
  {
    permissions: { allow: ['Bash(npm test:*)'] },
    hooks: {
      PreToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: './scripts/guard.sh' }] }],
      Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
    },
  },
  null,
  2,
)}\n`;

function setup() {
  const home = tempDir('cg-home-');
  const cwd = tempDir('cg-proj-');
  let out = '';
  let err = '';
  const ctx = {
    env: { HOME: home, PATH: '' },
    cwd,
    out: (s: string) => {
      out += s;
    },
    err: (s: string) => {
      err += s;
    },
  };
  const run = async (target: string, flags: InitFlags = {}) => {
    out = '';
    err = '';
    const code = await initCommand(target, flags, ctx);
    return { code, out, err };
  };
  return { home, cwd, run };
}

const cgGroups = (text: string) =>
  (JSON.parse(text).hooks.PreToolUse as { hooks: { command: string }[] }[]).filter((g) =>
    g.hooks.some((h) => h.command === 'cg hook claude'),
  );

describe('cg init claude', () => {
  it('--project twice on settings with other hooks keeps them and adds cg once; --uninstall restores the rest exactly', async () => {
    const { cwd, run } = setup();
    const file = join(cwd, '.claude', 'settings.json');
    mkdirSync(join(cwd, '.claude'));
    writeFileSync(file, OTHER_SETTINGS);

    const first = await run('claude', { project: true });
    expect(first.code).toBe(0);
    expect(first.out).toContain(`added the cg hook to ${file}`);
    const once = readFileSync(file, 'utf8');
    expect(readFileSync(`${file}.cg-backup`, 'utf8')).toBe(OTHER_SETTINGS);

    const second = await run('claude', { project: true });
    expect(second.out).toContain('already in');
    const twice = readFileSync(file, 'utf8');
    expect(twice).toBe(once);
    expect(cgGroups(twice)).toHaveLength(1);
    const parsed = JSON.parse(twice);
    expect(parsed.permissions).toEqual({ allow: ['Bash(npm test:*)'] });
    expect(parsed.hooks.Stop).toEqual(JSON.parse(OTHER_SETTINGS).hooks.Stop);
    expect(parsed.hooks.PreToolUse[0]).toEqual(JSON.parse(OTHER_SETTINGS).hooks.PreToolUse[0]);

    const removed = await run('claude', { project: true, uninstall: true });
    expect(removed.out).toContain('removed the cg hook');
    expect(readFileSync(file, 'utf8')).toBe(OTHER_SETTINGS);
  });

  it('writes ~/.claude/settings.json by default, creating it', async () => {
    const { home, cwd, run } = setup();
    const r = await run('claude');
    expect(r.code).toBe(0);
    const file = join(home, '.claude', 'settings.json');
    expect(cgGroups(readFileSync(file, 'utf8'))).toHaveLength(1);
    expect(existsSync(`${file}.cg-backup`)).toBe(false);
    expect(existsSync(join(cwd, '.claude'))).toBe(false);
    expect(r.err).toContain('not on PATH');
  });

  it('--dry-run prints a diff and writes nothing', async () => {
    const { home, run } = setup();
    const file = join(home, '.claude', 'settings.json');
    mkdirSync(join(home, '.claude'));
    writeFileSync(file, OTHER_SETTINGS);
    const r = await run('claude', { global: true, dryRun: true });
    expect(r.code).toBe(0);
    expect(r.out).toContain(`--- a/${file}\n+++ b/${file}\n@@ `);
    expect(r.out).toMatch(/^\+ +"command": "cg hook claude",$/m);
    expect(r.out).toContain('dry run: nothing written');
    expect(readFileSync(file, 'utf8')).toBe(OTHER_SETTINGS);
    expect(existsSync(`${file}.cg-backup`)).toBe(false);
  });

  it('refuses a settings file that is not JSON, and --global with --project', async () => {
    const { home, run } = setup();
    mkdirSync(join(home, '.claude'));
    writeFileSync(join(home, '.claude', 'settings.json'), '{ "model": ');
    await expect(run('claude')).rejects.toThrow(ConfigError);
    await expect(run('claude', { global: true, project: true })).rejects.toThrow(UsageError);
    await expect(run('cursor')).rejects.toThrow(UsageError);
  });
});

describe('cg init codex', () => {
  it('adds cg hook codex to ~/.codex/hooks.json (CODEX_HOME respected) and removes it again', async () => {
    const { home, run } = setup();
    const r = await run('codex');
    const file = join(home, '.codex', 'hooks.json');
    expect(r.out).toContain('/hooks');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: 'cg hook codex', timeout: 10 }] },
        ],
      },
    });
    await run('codex', { uninstall: true });
    expect(readFileSync(file, 'utf8')).toBe('{}\n');
  });

  it('--project writes ./.codex/hooks.json', async () => {
    const { cwd, run } = setup();
    await run('codex', { project: true });
    expect(readFileSync(join(cwd, '.codex', 'hooks.json'), 'utf8')).toContain('cg hook codex');
  });
});

describe('cg init agents-md', () => {
  it('prints a short paragraph on markers and cg expand with --lines and --grep', async () => {
    const { run } = setup();
    const r = await run('agents-md');
    expect(r.out).toBe(AGENTS_MD);
    for (const s of ['<<cg:', 'cg expand KEY', '--lines', '--grep']) expect(r.out).toContain(s);
    expect(r.out.split('\n').length).toBeLessThan(20);
    await expect(run('agents-md', { global: true })).rejects.toThrow(UsageError);
  });
});
