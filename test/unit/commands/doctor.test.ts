import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { doctorReport } from '../../../src/commands/doctor.js';
import { STORE_CONFIG_DEFAULTS } from '../../../src/config.js';
import { pluginText } from '../../../src/hosts/opencode/plugin.js';
import { openStore } from '../../../src/store/open.js';
import { tempDir } from '../../helpers.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A home with cg's Claude Code hook installed, and a doctor whose round trip records its env. */
function installed(config?: string) {
  const home = tempDir('cg-doctor-unit-');
  made.push(home);
  mkdirSync(join(home, '.claude'));
  writeFileSync(
    join(home, '.claude', 'settings.json'),
    JSON.stringify({
      hooks: { PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'cg hook claude' }] }] },
    }),
  );
  if (config !== undefined) {
    mkdirSync(join(home, 'config', 'cg'), { recursive: true });
    writeFileSync(join(home, 'config', 'cg', 'config.yaml'), config);
  }
  const envs: NodeJS.ProcessEnv[] = [];
  const run = (env: NodeJS.ProcessEnv = {}) =>
    doctorReport({
      env: { HOME: home, XDG_CONFIG_HOME: join(home, 'config'), CG_STORE_DIR: join(home, 'store'), ...env },
      cwd: home,
      out: () => undefined,
      exec: (_command, _input, e) => {
        envs.push(e);
        return { code: 0, stdout: '{}', ms: 1 };
      },
      version: () => undefined,
      proxyChecks: async () => [],
    });
  return { home, envs, run };
}

describe("doctor's hook round trip", () => {
  it('runs with a store and state directory of its own, gone afterwards, and stats off', async () => {
    const d = installed();
    await d.run();
    const env = d.envs[0]!;
    expect(env.CG_STORE_DIR).not.toBe(join(d.home, 'store'));
    expect(env.CG_STATE_DIR).toBeDefined();
    expect(env.CG_STATS).toBe('0');
    expect(env.CG_STORE_URL).toBeUndefined();
    const { existsSync } = await import('node:fs');
    expect(existsSync(env.CG_STORE_DIR!)).toBe(false);
    expect(existsSync(env.CG_STATE_DIR!)).toBe(false);
  });

  it('turns a Redis store off for the probe, whether the environment or the config names it', async () => {
    const byEnv = installed();
    await byEnv.run({ CG_STORE_URL: 'redis://127.0.0.1:1' });
    expect(byEnv.envs[0]!.CG_STORE_URL).toBe('none');
    const byConfig = installed('store:\n  url: redis://127.0.0.1:1\n');
    await byConfig.run();
    expect(byConfig.envs[0]!.CG_STORE_URL).toBe('none');
  });
});

describe('CG_STORE_URL=none', () => {
  it('opens the disk store even where the config names a Redis server', () => {
    const cfg = { ...STORE_CONFIG_DEFAULTS, url: 'redis://127.0.0.1:1' };
    expect(openStore(cfg, { CG_STORE_DIR: '/tmp/x' }).dir).toMatch(/^redis:/);
    expect(openStore(cfg, { CG_STORE_DIR: '/tmp/x', CG_STORE_URL: 'none' }).dir).toBe('/tmp/x');
  });
});

describe('doctor on what the hooks cannot reach', () => {
  it('says, beside an installed Claude Code hook, which failing runs reach the model compacted, which whole, and that cg wrap reaches them all', async () => {
    const report = await installed().run();
    const claude = report.hosts.find((h) => h.host === 'claude')!;
    const gap = claude.checks.find((c) => c.detail.includes('PostToolUseFailure'));
    expect(gap?.status).toBe('warn');
    expect(gap?.detail).toMatch(
      /failing Bash run .*allow the command outright.*reaches the model whole.*`cg wrap claude`/,
    );
    // A warning, not a failure: the hook itself works.
    expect(report.hosts.find((h) => h.host === 'codex')!.checks).toEqual([]);
  });

  it("finds cg's OpenCode plugin, probes the command it runs, and says what the plugin cannot reach", async () => {
    const d = installed();
    const plugins = join(d.home, 'config', 'opencode', 'plugins');
    mkdirSync(plugins, { recursive: true });
    writeFileSync(join(plugins, 'cg.js'), pluginText("'/usr/bin/node' '/opt/cg/bin/cg.js'"));
    // Another plugin of the user's is no cg hook.
    writeFileSync(join(plugins, 'other.js'), 'export const Other = async () => ({});\n');
    const report = await d.run();
    const opencode = report.hosts.find((h) => h.title === 'OpenCode')!;
    expect(opencode.installed).toBe(true);
    const probe = opencode.checks.find((c) => c.command !== undefined);
    expect(probe?.command).toBe("'/usr/bin/node' '/opt/cg/bin/cg.js' hook opencode");
    expect(probe?.file).toBe(join(plugins, 'cg.js'));
    // The fake round trip answers {}: no output for the plugin to set.
    expect(probe?.status).toBe('fail');
    expect(opencode.checks.find((c) => c.status === 'warn')?.detail).toMatch(
      /bash outputs only.*`cg wrap opencode`/,
    );
    expect(report.wrapOnly).toEqual([]);
  });
});

describe("doctor's round trip per event", () => {
  /** A home with cg's command under PostToolUse and PreToolUse, and a doctor answering with `answer`. */
  function bothEvents(answer: (input: string) => { code: number; stdout: string }) {
    const home = tempDir('cg-doctor-unit-');
    made.push(home);
    mkdirSync(join(home, '.claude'));
    const entry = (matcher: string) => [{ matcher, hooks: [{ type: 'command', command: 'cg hook claude' }] }];
    writeFileSync(
      join(home, '.claude', 'settings.json'),
      JSON.stringify({ hooks: { PostToolUse: entry('Bash'), PreToolUse: entry('Bash') } }),
    );
    const inputs: string[] = [];
    return {
      inputs,
      report: doctorReport({
        env: { HOME: home, XDG_CONFIG_HOME: join(home, 'config'), CG_STORE_DIR: join(home, 'store') },
        cwd: home,
        out: () => undefined,
        exec: (_command, input) => {
          inputs.push(input);
          return { ...answer(input), ms: 1 };
        },
        version: () => undefined,
        proxyChecks: async () => [],
      }),
    };
  }
  const postAnswer = JSON.stringify({
    hookSpecificOutput: {
      hookEventName: 'PostToolUse',
      updatedToolOutput: { stdout: '1\n<<cg:0123456789abcdef>>' },
    },
  });
  const pre = (input: string) => JSON.parse(input).hook_event_name === 'PreToolUse';

  it('sends a PreToolUse payload too, and takes no answer (the call left alone) as right', async () => {
    const d = bothEvents((input) => ({ code: 0, stdout: pre(input) ? '' : postAnswer }));
    const claude = (await d.report).hosts.find((h) => h.host === 'claude')!;
    expect(d.inputs.map((i) => JSON.parse(i).hook_event_name).sort()).toEqual(['PostToolUse', 'PreToolUse']);
    const line = claude.checks.find((c) => c.event === 'PreToolUse')!;
    expect(line.status).toBe('ok');
    expect(line.detail).toContain('takes a PreToolUse call as Claude Code expects');
  });

  it('fails a PreToolUse answer Claude Code would not take, and a hook that crashes on one', async () => {
    const noAllow = JSON.stringify({
      hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { command: 'cg run -- seq 1 3000' } },
    });
    const d = bothEvents((input) => ({ code: 0, stdout: pre(input) ? noAllow : postAnswer }));
    const r = await d.report;
    expect(r.ok).toBe(false);
    const line = r.hosts.find((h) => h.host === 'claude')!.checks.find((c) => c.event === 'PreToolUse')!;
    expect(line.status).toBe('fail');
    expect(line.detail).toMatch(/on a PreToolUse call: a rewrite without permissionDecision "allow"/);
    const crash = bothEvents((input) =>
      pre(input) ? { code: 1, stdout: '' } : { code: 0, stdout: postAnswer },
    );
    const c = (await crash.report).hosts.find((h) => h.host === 'claude')!.checks;
    expect(c.find((x) => x.event === 'PreToolUse')?.detail).toMatch(/on a PreToolUse call: exited 1$/);
  });
});
