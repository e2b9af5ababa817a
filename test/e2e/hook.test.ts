import { execFileSync, spawnSync } from 'node:child_process';
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

const pre = (command: string, cwd = '/tmp') =>
  JSON.stringify({
    session_id: 'e2e-session-1',
    cwd,
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command },
  });

const post = (command: string, stdout: string) =>
  JSON.stringify({
    session_id: 'e2e-session-1',
    cwd: '/tmp',
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command, description: 'numbers' },
    tool_response: { stdout, stderr: '', interrupted: false, isImage: false },
  });

const MARKER = /<<cg:([0-9a-f]{16})>>/;

describe('cg hook claude (the built CLI)', () => {
  it('replaces a long Bash output with a compacted one whose marker expands to the exact output', () => {
    const store = tempDir('cg-hook-store-');
    const r = cg(['hook', 'claude'], { input: post('seq 1 20000', seq(20_000)), storeDir: store });
    expect([r.code, r.stderr]).toEqual([0, '']);
    const updated = JSON.parse(r.out).hookSpecificOutput.updatedToolOutput;
    expect(updated.stdout.length).toBeLessThan(2000);
    expect(cg(['expand', MARKER.exec(updated.stdout)![1]!], { storeDir: store }).out).toBe(seq(20_000));
  });

  it('records the run as Claude Code through the hook, so cg stats counts it against what Claude Code shows', () => {
    const store = tempDir('cg-hook-host-');
    expect(cg(['hook', 'claude'], { input: post('seq 1 20000', seq(20_000)), storeDir: store }).code).toBe(0);
    expect(cg(['stats'], { storeDir: store }).code).toBe(0); // settles the run's pending record
    const runs = readFileSync(join(`${store}.state`, 'ledger.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((l) => l.e === 'run');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ h: 'claude-code', via: 'hook' });
  });

  it('prints nothing for a PreToolUse call it cannot prove Claude Code allows (no permission mode), small outputs, CG_DISABLE=1 and bad input', () => {
    for (const [input, env] of [
      [pre('pytest -q'), {}],
      [post('ls', 'a\nb\n'), {}],
      [post('seq 1 20000', seq(20_000)), { CG_DISABLE: '1' }],
      ['{"tool_name":', {}],
      ['', {}],
    ] as const) {
      const r = cg(['hook', 'claude'], { input, env });
      expect([r.code, r.out, r.stderr]).toEqual([0, '', '']);
    }
  });

  it('names the MCP tool in marker hints with --mcp-tool, and says why under CG_HOOK_DEBUG=1 on stderr', () => {
    const r = cg(['hook', 'claude', '--mcp-tool', 'mcp__cg__cg_expand'], {
      input: post('seq 1 20000', seq(20_000)),
      env: { CG_HOOK_DEBUG: '1' },
    });
    expect(JSON.parse(r.out).hookSpecificOutput.updatedToolOutput.stdout).toMatch(
      /\[full output: mcp__cg__cg_expand key=[0-9a-f]{16}\]/,
    );
    expect(r.stderr).toMatch(/^cg hook: compacted \d+ → \d+ characters/m);
  });

  it('refuses an unknown host as a usage error', () => {
    const r = cg(['hook', 'cursor'], { input: pre('seq 5') });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^cg: .*cursor/);
  });
});

describe('cg hook gemini (the built CLI)', () => {
  it('answers AfterTool with a tail call to cg_expand on the stashed compacted output', () => {
    const store = tempDir('cg-hook-store-');
    const input = JSON.stringify({
      hook_event_name: 'AfterTool',
      tool_name: 'run_shell_command',
      tool_input: { command: 'seq 1 20000' },
      tool_response: {
        llmContent: `<untrusted_context>\nOutput: ${seq(20_000)}Exit Code: 1\n</untrusted_context>`,
        returnDisplay: '',
      },
    });
    const r = cg(['hook', 'gemini', '--mcp-tool', 'mcp_cg_cg_expand'], { input, storeDir: store });
    const tail = JSON.parse(r.out).hookSpecificOutput.tailToolCallRequest;
    expect(tail.name).toBe('mcp_cg_cg_expand');
    const shown = cg(['expand', tail.args.key], { storeDir: store }).out;
    expect(shown).toMatch(/^Output: 1\n/);
    expect(shown).toMatch(/\nExit Code: 1$/);
  });
});

describe('cg hook codex (the built CLI)', () => {
  const config = configWithFilter();
  const hook = (input: string, env: Record<string, string> = {}) =>
    cg(['hook', 'codex'], {
      input,
      env: { XDG_CONFIG_HOME: config, CODEX_HOME: tempDir('cg-codex-'), ...env },
    });

  it('rewrites through cg by absolute path, with the allow decision Codex needs for updatedInput', () => {
    const r = hook(pre('seq 5'));
    const out = JSON.parse(r.out).hookSpecificOutput;
    expect(out.permissionDecision).toBe('allow');
    expect(out.updatedInput.command).toBe(
      `CG_SESSION=e2e-session-1 CG_READER=model CG_HOST=codex CG_VIA=hook ${process.execPath} ${BIN} run -- seq 5`,
    );
  });

  it("runs the rewritten command with the command's own environment, cg's own left as the agent's", () => {
    const work = tempDir('cg-hook-run-');
    const fake = join(work, 'py-bin');
    mkdirSync(fake);
    // A `pytest` found only on the PATH the command sets; it reports what it sees and fails.
    writeFileSync(
      join(fake, 'pytest'),
      '#!/bin/sh\nseq 1 20000\necho "NODE_OPTIONS=$NODE_OPTIONS XDG_CACHE_HOME=$XDG_CACHE_HOME"\nexit 3\n',
    );
    chmodSync(join(fake, 'pytest'), 0o755);
    const store = join(work, 'store');
    const command = `PATH=${fake}:/usr/bin:/bin XDG_CACHE_HOME=/nonexistent/cache NODE_OPTIONS="--require ./missing.js" pytest -q`;
    const filters = tempDir('cg-hook-config-');
    const rewritten = JSON.parse(hook(pre(command, work), { XDG_CONFIG_HOME: filters }).out)
      .hookSpecificOutput.updatedInput.command as string;
    expect(rewritten).toContain(` run -- env ${command}`);
    const r = spawnSync('bash', ['-c', rewritten], {
      cwd: work,
      encoding: 'utf8',
      env: {
        PATH: '/usr/bin:/bin',
        HOME: work,
        CG_STORE_DIR: store,
        CG_STATE_DIR: join(work, 'state'),
        XDG_CONFIG_HOME: filters,
      },
    });
    expect(r.status).toBe(3);
    expect(r.stdout).toContain('NODE_OPTIONS=--require ./missing.js XDG_CACHE_HOME=/nonexistent/cache');
    const key = MARKER.exec(r.stdout)![1]!;
    // The original is in the agent's store, where its `cg expand` looks: not under the command's XDG_CACHE_HOME.
    expect(cg(['expand', key], { storeDir: store }).out).toContain('\n20000\nNODE_OPTIONS=');
  });

  it('leaves alone what a Codex rule names (checked by a codex binary on PATH)', () => {
    const home = tempDir('cg-codex-home-');
    mkdirSync(join(home, 'rules'));
    writeFileSync(join(home, 'rules', 'default.rules'), 'prefix_rule(pattern=["seq"], decision="prompt")\n');
    const bin = tempDir('cg-codex-bin-');
    // A stand-in for `codex execpolicy check`: a rule matches commands that start with seq.
    writeFileSync(
      join(bin, 'codex'),
      `#!/bin/sh\nfor a; do last="$a"; done\nwhile [ "$1" != "--" ]; do shift; done; shift\nif [ "$1" = seq ]; then echo '{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["seq"],"decision":"prompt"}}],"decision":"prompt"}'; else echo '{"matchedRules":[]}'; fi\n`,
    );
    chmodSync(join(bin, 'codex'), 0o755);
    const env = { CODEX_HOME: home, PATH: `${bin}:${process.env.PATH}`, CG_HOOK_DEBUG: '1' };
    const r = hook(pre('seq 5'), env);
    expect(r.out).toBe('');
    expect(r.stderr).toMatch(/a Codex rule decides "prompt"/);
    expect(
      JSON.parse(hook(pre('cd /tmp && ls -la'), env).out).hookSpecificOutput.updatedInput.command,
    ).toContain(' run -- ls -la');
  });
});

describe('cg init and cg doctor (the built CLI)', () => {
  it('installs into ./.claude/settings.json with --project, shows a diff with --dry-run, and uninstalls', () => {
    const cwd = tempDir('cg-init-');
    const home = tempDir('cg-init-home-');
    const run = (...args: string[]) => cg(['init', 'claude', ...args], { cwd, env: { HOME: home } });
    const dry = run('--project', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('+++ b/');
    expect(dry.out).toContain(`hook claude`);
    expect(run('--project').code).toBe(0);
    const file = join(cwd, '.claude', 'settings.json');
    expect(JSON.parse(readFileSync(file, 'utf8')).hooks.PostToolUse).toHaveLength(1);
    expect(run('--project').out).toContain('already in');
    expect(run('--project', '--uninstall').code).toBe(0);
    const both = run('--project', '--global');
    expect([both.code, both.stderr]).toEqual([2, 'cg: init: give --global or --project, not both\n']);
  });

  it('doctor runs the installed hook on a probe payload: 0 when it answers as the host expects, 1 when it cannot', () => {
    const home = tempDir('cg-doctor-home-');
    const env = { HOME: home, PATH: '/usr/bin:/bin' };
    expect(cg(['doctor'], { env }).out).toContain('nothing to check');
    cg(['init', 'claude'], { env });
    const ok = cg(['doctor'], { env });
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).toMatch(/ok {3}.*hook claude answers as Claude Code expects/);
    const file = join(home, '.claude', 'settings.json');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        /"command": "[^"]*hook claude"/,
        '"command": "/nonexistent/cg hook claude"',
      ),
    );
    const broken = cg(['doctor'], { env });
    expect(broken.code).toBe(1);
    expect(broken.out).toMatch(/FAIL .*exited 127/);
    // A cg entry under an event cg does not install is reported, not passed.
    writeFileSync(
      file,
      JSON.stringify({
        hooks: {
          PostToolUseFailure: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'cg hook claude' }] }],
        },
      }),
    );
    const legacy = cg(['doctor'], { env });
    expect(legacy.code).toBe(1);
    expect(legacy.out).toMatch(/older cg entry under PostToolUseFailure/);
  });

  it('prints the agents-md paragraph', () => {
    expect(cg(['init', 'agents-md']).out).toContain('cg expand KEY --grep');
    expect(execFileSync(process.execPath, [BIN, 'hook', '--help'], { encoding: 'utf8' })).toContain(
      '--mcp-tool',
    );
  });
});
