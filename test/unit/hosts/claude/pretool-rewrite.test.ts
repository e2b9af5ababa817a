import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLayers } from '../../../../src/hosts/claude/permission-layers.js';
import { claudePreToolRewrite } from '../../../../src/hosts/claude/pretool-rewrite.js';
import type { HostProcess } from '../../../../src/hosts/host.js';
import { tempDir } from '../../../helpers.js';
import { fakeFilters } from '../hook/fake-filters.js';

/** A home, a project Claude Code was started in, and the settings files each layer reads. */
function world() {
  const root = tempDir('cg-pretool-');
  const home = join(root, 'home');
  const project = join(root, 'parent', 'project');
  mkdirSync(join(home, '.claude'), { recursive: true });
  mkdirSync(join(project, '.claude'), { recursive: true });
  const put = (path: string, permissions: unknown, extra: object = {}) => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, JSON.stringify({ permissions, ...extra }));
  };
  return {
    root,
    home,
    project,
    env: { HOME: home } as NodeJS.ProcessEnv,
    user: (p: unknown, extra?: object) => put(join(home, '.claude', 'settings.json'), p, extra),
    shared: (p: unknown, extra?: object) => put(join(project, '.claude', 'settings.json'), p, extra),
    local: (p: unknown) => put(join(project, '.claude', 'settings.local.json'), p),
    parent: (p: unknown) => put(join(root, 'parent', '.claude', 'settings.json'), p),
    managed: (p: unknown, extra?: object) => put(join(root, 'etc', 'managed-settings.json'), p, extra),
    claude: (...args: string[]): HostProcess => ({ args, cwd: project }),
  };
}

function payload(command: string, extra: Record<string, unknown> = {}, input: Record<string, unknown> = {}) {
  return {
    session_id: 's1',
    cwd: '/somewhere',
    hook_event_name: 'PreToolUse',
    permission_mode: 'default',
    tool_name: 'Bash',
    tool_input: { command, description: 'run it', timeout: 60000, ...input },
    ...extra,
  };
}

async function answer(
  w: ReturnType<typeof world>,
  p: Record<string, unknown>,
  claude: HostProcess | null = w.claude(),
) {
  const lines: string[] = [];
  const out = await claudePreToolRewrite(p, {
    host: 'claude',
    cwd: w.project,
    env: w.env,
    invocation: 'cg',
    filters: () => fakeFilters(),
    hostProcess: () => claude ?? undefined,
    debug: (l) => lines.push(l),
  });
  return { out: out === undefined ? undefined : JSON.parse(out), why: lines.join('\n') };
}

describe('Claude Code PreToolUse: a command the rules allow outright goes through cg run', () => {
  it('answers allow with the whole tool input, only the command rewritten', async () => {
    const w = world();
    w.user({ allow: ['Bash(python3 -m pytest:*)'] });
    const { out } = await answer(w, payload('python3 -m pytest -q'));
    expect(out.hookSpecificOutput.hookEventName).toBe('PreToolUse');
    expect(out.hookSpecificOutput.permissionDecision).toBe('allow');
    expect(out.hookSpecificOutput.updatedInput).toEqual({
      command: 'CG_SESSION=s1 CG_READER=model CG_HOST=claude CG_VIA=hook cg run -- python3 -m pytest -q',
      description: 'run it',
      timeout: 60000,
    });
  });

  it('reads the allow rule from any layer: user, project, local, --settings (file or JSON), --allowedTools', async () => {
    const layers: [string, (w: ReturnType<typeof world>) => HostProcess][] = [
      [
        'user',
        (w) => {
          w.user({ allow: ['Bash(make:*)'] });
          return w.claude();
        },
      ],
      [
        'project',
        (w) => {
          w.shared({ allow: ['Bash(make:*)'] });
          return w.claude();
        },
      ],
      [
        'local',
        (w) => {
          w.local({ allow: ['Bash(make:*)'] });
          return w.claude();
        },
      ],
      [
        '--settings FILE',
        (w) => {
          writeFileSync(
            join(w.project, 'perm.json'),
            JSON.stringify({ permissions: { allow: ['Bash(make:*)'] } }),
          );
          return w.claude('-p', '--settings', 'perm.json');
        },
      ],
      ['--settings JSON', (w) => w.claude('--settings', '{"permissions":{"allow":["Bash(make:*)"]}}')],
      ['--allowedTools', (w) => w.claude('--allowedTools', 'Read,Bash(make:*)')],
    ];
    for (const [name, setUp] of layers) {
      const w = world();
      const claude = setUp(w);
      const { out, why } = await answer(w, payload('make'), claude);
      expect(out?.hookSpecificOutput.permissionDecision, `${name}: ${why}`).toBe('allow');
    }
  });

  it('also rewrites in bypassPermissions mode, and in acceptEdits and dontAsk under an allow rule', async () => {
    const w = world();
    expect((await answer(w, payload('make', { permission_mode: 'bypassPermissions' }))).out).toBeDefined();
    w.user({ allow: ['Bash(make:*)'] });
    for (const mode of ['acceptEdits', 'dontAsk'])
      expect((await answer(w, payload('make', { permission_mode: mode }))).out, mode).toBeDefined();
  });
});

describe('Claude Code PreToolUse: every other command is left exactly as the model wrote it', () => {
  it('leaves a command the rules ask about, deny, or do not settle', async () => {
    const w = world();
    w.user({
      allow: ['Bash(make:*)', 'Bash(npm:*)'],
      ask: ['Bash(npm publish:*)'],
      deny: ['Bash(rm:*)'],
    });
    for (const [command, verdict] of [
      ['npm publish', 'ask'],
      ['rm -rf build', 'deny'],
      ['pytest -q', 'unruled'],
    ]) {
      const { out, why } = await answer(w, payload(command!));
      expect(out, command).toBeUndefined();
      expect(why, command).toContain(`verdict is ${verdict}`);
    }
  });

  it('counts deny and ask rules of every layer, also managed and parent directories, and --disallowedTools', async () => {
    const cases: [string, (w: ReturnType<typeof world>) => HostProcess][] = [
      [
        'project ask',
        (w) => {
          w.shared({ ask: ['Bash(make:*)'] });
          return w.claude();
        },
      ],
      [
        'local deny',
        (w) => {
          w.local({ deny: ['Bash(make)'] });
          return w.claude();
        },
      ],
      [
        'parent deny',
        (w) => {
          w.parent({ deny: ['Bash(make:*)'] });
          return w.claude();
        },
      ],
      ['--disallowedTools', (w) => w.claude('--disallowedTools', 'Bash(make:*)')],
    ];
    for (const [name, setUp] of cases) {
      const w = world();
      w.user({ allow: ['Bash(make:*)'] });
      const { out } = await answer(w, payload('make'), setUp(w));
      expect(out, name).toBeUndefined();
    }
    const w = world();
    w.user({ allow: ['Bash(make:*)'] });
    w.managed({ deny: ['Bash(make:*)'] });
    const layers = readLayers(w.claude(), w.env, join(w.root, 'etc'));
    expect(layers.ok && layers.rules.deny).toEqual(['Bash(make:*)']);
  });

  it('ignores allow rules of a parent directory, of a source --setting-sources leaves out, and under managed-only rules', async () => {
    const parent = world();
    parent.parent({ allow: ['Bash(make:*)'] });
    expect((await answer(parent, payload('make'))).out).toBeUndefined();

    const sources = world();
    sources.user({ allow: ['Bash(make:*)'] });
    expect(
      (await answer(sources, payload('make'), sources.claude('--setting-sources', 'project,local'))).out,
    ).toBeUndefined();

    const managed = world();
    managed.user({ allow: ['Bash(make:*)'] });
    managed.managed({ allow: ['Bash(pytest:*)'] }, { allowManagedPermissionRulesOnly: true });
    const layers = readLayers(managed.claude(), managed.env, join(managed.root, 'etc'));
    expect(layers.ok && layers.rules.allow).toEqual(['Bash(pytest:*)']);
  });

  it('leaves every call when a settings file cannot be read as Claude Code reads it, or the sandbox is on', async () => {
    const broken = world();
    broken.user({ allow: ['Bash(make:*)'] });
    writeFileSync(join(broken.project, '.claude', 'settings.json'), '{ not json');
    expect((await answer(broken, payload('make'))).why).toContain('is not JSON');

    const sandbox = world();
    sandbox.user({ allow: ['Bash(make:*)'] }, { sandbox: { enabled: true } });
    expect((await answer(sandbox, payload('make'))).why).toContain('sandbox');

    const missing = world();
    expect(
      (await answer(missing, payload('make'), missing.claude('--settings', 'nope.json'))).out,
    ).toBeUndefined();
  });

  it('leaves a call when a deny or ask rule might match the rewritten command', async () => {
    const w = world();
    w.user({ allow: ['Bash(make:*)'], ask: ['Bash(cg:*)'] });
    const { out, why } = await answer(w, payload('make'));
    expect(out).toBeUndefined();
    expect(why).toContain('rewritten command');
  });

  it('leaves a call in plan or auto mode, without a mode, outside Claude Code, or sent to the background', async () => {
    const w = world();
    w.user({ allow: ['Bash(make:*)'] });
    for (const mode of ['plan', 'auto'])
      expect((await answer(w, payload('make', { permission_mode: mode }))).out, mode).toBeUndefined();
    const { permission_mode: _m, ...noMode } = payload('make');
    expect((await answer(w, noMode)).out).toBeUndefined();
    expect((await answer(w, payload('make'), null)).why).toContain('cannot be read');
    expect((await answer(w, payload('make', {}, { run_in_background: true }))).out).toBeUndefined();
  });

  it('leaves an allowed command no cg filter handles, and one already going through cg', async () => {
    const w = world();
    w.user({ allow: ['Bash(./configure:*)', 'Bash(cg run:*)'] });
    expect((await answer(w, payload('./configure'))).out).toBeUndefined();
    expect((await answer(w, payload('cg run -- make'))).out).toBeUndefined();
  });
});
