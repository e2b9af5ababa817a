import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTS_MD, type InitFlags, initCommand } from '../../../src/commands/init.js';
import { ConfigError, UsageError } from '../../../src/errors.js';
import { tempDir } from '../../helpers.js';

const CG = "'/usr/bin/node' '/opt/cg/bin/cg.js'";

/** A settings file as a person writes it: two-space JSON, but a one-line array and custom spacing. */
const OTHER_SETTINGS = `{
  "permissions": { "allow": ["Bash(npm test:*)"],  "deny": ["Bash(rm:*)"] },
  "hooks": {
    "PreToolUse": [{ "matcher": "Write|Edit", "hooks": [{ "type": "command", "command": "./scripts/guard.sh" }] }],
    "Stop": [{ "hooks": [{ "type": "command", "command": "notify-send done" }] }]
  }
}
`;

function setup() {
  const home = tempDir('cg-home-');
  const cwd = tempDir('cg-proj-');
  let out = '';
  const ctx = {
    env: { HOME: home, PATH: '' },
    cwd,
    invocation: CG,
    out: (s: string) => {
      out += s;
    },
    err: () => {},
  };
  const run = async (target: string, flags: InitFlags = {}) => {
    out = '';
    const code = await initCommand(target, flags, ctx);
    return { code, out };
  };
  return { home, cwd, run };
}

const handlers = (text: string, event: string) =>
  (
    (JSON.parse(text).hooks?.[event] ?? []) as {
      matcher?: string;
      hooks: { command: string; timeout?: number }[];
    }[]
  ).flatMap((g) => g.hooks.map((h) => ({ matcher: g.matcher, ...h })));

describe('cg init claude', () => {
  it('installs a PostToolUse hook by absolute path, twice changes nothing, and never touches permissions', async () => {
    const { cwd, run } = setup();
    const file = join(cwd, '.claude', 'settings.json');
    mkdirSync(join(cwd, '.claude'));
    writeFileSync(file, OTHER_SETTINGS);
    expect((await run('claude', { project: true })).code).toBe(0);
    const once = readFileSync(file, 'utf8');
    expect(handlers(once, 'PostToolUse')).toEqual([
      {
        matcher: 'Bash|Read|Grep|Glob|WebFetch|mcp__.*',
        type: 'command',
        command: `${CG} hook claude`,
        timeout: 10,
      },
    ]);
    expect(JSON.parse(once).permissions).toEqual(JSON.parse(OTHER_SETTINGS).permissions);
    const again = await run('claude', { project: true });
    expect(again.out).toContain('nothing to do');
    expect(readFileSync(file, 'utf8')).toBe(once);
  });

  it("keeps the user's bytes outside cg's entry, and --uninstall gives the file back byte for byte", async () => {
    const { cwd, run } = setup();
    const file = join(cwd, '.claude', 'settings.json');
    mkdirSync(join(cwd, '.claude'));
    writeFileSync(file, OTHER_SETTINGS);
    await run('claude', { project: true });
    const installed = readFileSync(file, 'utf8');
    // The one-line lines the user wrote are still one-line lines.
    expect(installed).toContain(
      '  "permissions": { "allow": ["Bash(npm test:*)"],  "deny": ["Bash(rm:*)"] },\n',
    );
    // The user's own PreToolUse hook stays beside cg's.
    expect(handlers(installed, 'PreToolUse').map((h) => h.command)).toEqual([
      './scripts/guard.sh',
      `${CG} hook claude`,
    ]);
    await run('claude', { project: true, uninstall: true });
    expect(readFileSync(file, 'utf8')).toBe(OTHER_SETTINGS);
  });

  it("replaces an older cg's PreToolUse entry with the current PreToolUse and PostToolUse entries", async () => {
    const { home, run } = setup();
    const file = join(home, '.claude', 'settings.json');
    mkdirSync(join(home, '.claude'));
    const old = {
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: 'cg hook claude', timeout: 10 }] },
        ],
      },
    };
    writeFileSync(file, `${JSON.stringify(old, null, 2)}\n`);
    await run('claude');
    const text = readFileSync(file, 'utf8');
    expect(handlers(text, 'PreToolUse').map((h) => [h.command, h.timeout])).toEqual([
      [`${CG} hook claude`, 10],
    ]);
    expect(handlers(text, 'PostToolUse').map((h) => h.command)).toEqual([`${CG} hook claude`]);
  });

  it('never overwrites an existing backup: each change gets a new one', async () => {
    const { home, run } = setup();
    const file = join(home, '.claude', 'settings.json');
    mkdirSync(join(home, '.claude'));
    writeFileSync(file, '{"model": "first"}\n');
    writeFileSync(`${file}.cg-backup`, 'an older backup\n');
    const r = await run('claude');
    expect(r.out).toContain(`${file}.cg-backup.1`);
    expect(readFileSync(`${file}.cg-backup`, 'utf8')).toBe('an older backup\n');
    expect(readFileSync(`${file}.cg-backup.1`, 'utf8')).toBe('{"model": "first"}\n');
    await run('claude', { uninstall: true });
    expect(readFileSync(`${file}.cg-backup.2`, 'utf8')).toContain('hook claude');
    expect(readFileSync(file, 'utf8')).toBe('{"model": "first"}\n');
  });

  it('--uninstall removes a settings file cg created when nothing else is left in it', async () => {
    const { home, run } = setup();
    const file = join(home, '.claude', 'settings.json');
    expect((await run('claude')).code).toBe(0);
    expect(existsSync(file)).toBe(true);
    const r = await run('claude', { uninstall: true });
    expect(r.out).toContain('removed');
    expect(existsSync(file)).toBe(false);
  });

  it('points marker hints at the MCP tool when cg mcp is registered with Claude Code', async () => {
    const { home, run } = setup();
    writeFileSync(
      join(home, '.claude.json'),
      JSON.stringify({ mcpServers: { cgx: { type: 'stdio', command: 'cg', args: ['mcp'] } } }),
    );
    const r = await run('claude');
    expect(r.out).toContain('mcp__cgx__cg_expand');
    const text = readFileSync(join(home, '.claude', 'settings.json'), 'utf8');
    expect(handlers(text, 'PostToolUse').map((h) => h.command)).toEqual([
      `${CG} hook claude --mcp-tool mcp__cgx__cg_expand`,
    ]);
  });

  it('--dry-run prints a diff and writes nothing', async () => {
    const { home, run } = setup();
    const r = await run('claude', { dryRun: true });
    expect(r.out).toContain('+++ b/');
    expect(r.out).toContain('hook claude');
    expect(existsSync(join(home, '.claude', 'settings.json'))).toBe(false);
  });

  it('refuses a settings file that is not JSON, and --global with --project', async () => {
    const { home, run } = setup();
    mkdirSync(join(home, '.claude'));
    writeFileSync(join(home, '.claude', 'settings.json'), '{ nope');
    await expect(run('claude')).rejects.toBeInstanceOf(ConfigError);
    await expect(run('claude', { global: true, project: true })).rejects.toBeInstanceOf(UsageError);
  });
});

describe('cg init codex and gemini', () => {
  it('adds the Codex PreToolUse hook to $CODEX_HOME/hooks.json and says how to trust it', async () => {
    const { home, run } = setup();
    const r = await run('codex');
    const text = readFileSync(join(home, '.codex', 'hooks.json'), 'utf8');
    expect(handlers(text, 'PreToolUse').map((h) => h.command)).toEqual([`${CG} hook codex`]);
    expect(r.out).toMatch(/trust/i);
    await run('codex', { uninstall: true });
    expect(existsSync(join(home, '.codex', 'hooks.json'))).toBe(false);
  });

  it("adds Gemini CLI's AfterTool hook and registers cg's MCP server, and takes both out again", async () => {
    const { home, run } = setup();
    const file = join(home, '.gemini', 'settings.json');
    mkdirSync(join(home, '.gemini'));
    writeFileSync(file, '{\n  "theme": "Default"\n}\n');
    await run('gemini');
    const j = JSON.parse(readFileSync(file, 'utf8'));
    expect(handlers(JSON.stringify(j), 'AfterTool')[0]).toMatchObject({
      command: `${CG} hook gemini --mcp-tool mcp_cg_cg_expand`,
      timeout: 10_000,
    });
    expect(j.mcpServers.cg).toEqual({
      command: '/usr/bin/node',
      args: ['/opt/cg/bin/cg.js', 'mcp'],
      trust: true,
    });
    await run('gemini', { uninstall: true });
    expect(readFileSync(file, 'utf8')).toBe('{\n  "theme": "Default"\n}\n');
  });

  it('refuses to replace an MCP server named cg that is not cg', async () => {
    const { home, run } = setup();
    mkdirSync(join(home, '.gemini'));
    writeFileSync(join(home, '.gemini', 'settings.json'), '{"mcpServers": {"cg": {"command": "other"}}}');
    await expect(run('gemini')).rejects.toBeInstanceOf(ConfigError);
  });
});

describe('cg init agents-md', () => {
  it('prints a short paragraph on markers and cg expand with --lines and --grep', async () => {
    const { run } = setup();
    const r = await run('agents-md');
    expect(r.out).toBe(AGENTS_MD);
    expect(r.out).toContain('--lines');
    expect(r.out).toContain('--grep');
    expect(r.out.split('\n').length).toBeLessThan(20);
  });
});
