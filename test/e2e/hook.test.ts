import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { BIN, cg, seq } from './run-cg.js';

/** A config home with one user filter for `seq`, so the real filter lookup has something to find. */
function configWithFilter(): string {
  const config = tempDir('cg-hook-config-');
  mkdirSync(join(config, 'cg', 'filters'), { recursive: true });
  writeFileSync(
    join(config, 'cg', 'filters', 'seq.yaml'),
    [
      'schema_version: 1',
      'filters:',
      '  seq-test:',
      '    description: numbers',
      "    match: '^\\$ seq\\b'",
      '    head_lines: 3',
      '',
    ].join('\n'),
  );
  return config;
}

const payload = (command: string, cwd = '/tmp') =>
  JSON.stringify({
    session_id: 'e2e-session-1',
    transcript_path: '/tmp/t.jsonl',
    cwd,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command, description: 'numbers' },
  });

describe('cg hook (the built CLI)', () => {
  const config = configWithFilter();
  const hook = (agent: string, input: string, env: Record<string, string> = {}) =>
    cg(['hook', agent], { input, env: { XDG_CONFIG_HOME: config, ...env } });

  it('wraps a command a real (user) filter handles, using the filters of the agent cwd', () => {
    const r = hook('claude', payload('cd sub && seq 1 100000'));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.out)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        updatedInput: {
          command: 'cd sub && CG_SESSION=e2e-session-1 cg run -- seq 1 100000',
          description: 'numbers',
        },
      },
    });
  });

  it('prints nothing and exits 0 for commands it leaves alone, CG_DISABLE=1 and unreadable input', () => {
    for (const [input, env] of [
      [payload('git log | head'), {}],
      [payload('my-build-tool --all'), {}],
      [payload('seq 1 10 > out.txt'), {}],
      [payload('seq 1 10'), { CG_DISABLE: '1' }],
      ['{"tool_name":', {}],
      ['', {}],
    ] as const) {
      const r = hook('claude', input, env);
      expect([r.code, r.out, r.stderr]).toEqual([0, '', '']);
    }
  });

  it('says why under CG_HOOK_DEBUG=1, on stderr only', () => {
    const r = hook('claude', payload('git log | head'), { CG_HOOK_DEBUG: '1' });
    expect(r.out).toBe('');
    expect(r.stderr).toMatch(/^cg hook: left alone: a pipeline/);
  });

  it('answers Codex with the allow decision it needs for updatedInput', () => {
    const r = hook('codex', payload('seq 5'));
    expect(JSON.parse(r.out).hookSpecificOutput).toEqual({
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      updatedInput: { command: 'CG_SESSION=e2e-session-1 cg run -- seq 5', description: 'numbers' },
    });
  });

  it('refuses an unknown agent as a usage error', () => {
    const r = cg(['hook', 'cursor'], { input: payload('seq 5') });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^cg: .*cursor/);
  });

  it('produces a command the shell runs through cg, keeping cd, the exit code and the original', () => {
    const work = tempDir('cg-hook-run-');
    mkdirSync(join(work, 'sub'));
    const bin = join(work, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'cg'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, 'cg'), 0o755);
    const store = join(work, 'store');
    const rewritten = JSON.parse(hook('claude', payload('cd sub && seq 1 100000 && pwd')).out)
      .hookSpecificOutput.updatedInput.command as string;
    expect(rewritten).toBe('cd sub && CG_SESSION=e2e-session-1 cg run -- seq 1 100000 && pwd');
    const sh = (command: string) =>
      execFileSync('sh', ['-c', command], {
        cwd: work,
        encoding: 'utf8',
        env: {
          PATH: `${bin}:${process.env.PATH}`,
          HOME: work,
          XDG_CONFIG_HOME: config,
          CG_STORE_DIR: store,
          CG_STATE_DIR: join(work, 'state'),
        },
      });
    const out = sh(rewritten);
    expect(out.endsWith(`${join(work, 'sub')}\n`)).toBe(true);
    expect(out.split('\n').length).toBeLessThan(50);
    const key = /<<cg:([0-9a-f]{16})>>/.exec(out)![1]!;
    expect(cg(['expand', key], { storeDir: store }).out).toBe(seq(100_000));

    const failing = JSON.parse(hook('claude', payload('seq 1 x; echo "rc=$?"')).out).hookSpecificOutput
      .updatedInput.command as string;
    expect(failing).toBe('CG_SESSION=e2e-session-1 cg run -- seq 1 x; echo "rc=$?"');
    expect(sh(failing)).toMatch(/rc=1\n$/);
  });
});

describe('cg init (the built CLI)', () => {
  it('installs into ./.claude/settings.json with --project, shows a diff with --dry-run, and uninstalls', () => {
    const cwd = tempDir('cg-init-');
    const home = tempDir('cg-init-home-');
    const run = (...args: string[]) => cg(['init', 'claude', ...args], { cwd, env: { HOME: home } });
    const dry = run('--project', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('+++ b/');
    expect(dry.out).toContain('"command": "cg hook claude"');
    expect(run('--project').code).toBe(0);
    const file = join(cwd, '.claude', 'settings.json');
    expect(JSON.parse(readFileSync(file, 'utf8')).hooks.PreToolUse).toHaveLength(1);
    expect(run('--project').out).toContain('already in');
    expect(run('--project', '--uninstall').code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('{}\n');
    const both = run('--project', '--global');
    expect([both.code, both.stderr]).toEqual([2, 'cg: init: give --global or --project, not both\n']);
  });

  it('prints the agents-md paragraph', () => {
    expect(cg(['init', 'agents-md']).out).toContain('cg expand KEY --grep');
  });
});
