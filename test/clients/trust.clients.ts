/**
 * `cg trust` asked of the agent, for real: each pinned client, told by its scripted model to run
 * `cg trust` in a repository whose `.cg.yaml` names a model endpoint and a key variable, runs it in
 * its own shell tool — Codex with `tty: true`, so the command has a terminal on stdin and stdout —
 * and the refusal comes back in the tool result while the project stays untrusted (issue 27).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectTrust } from '../../src/trust/state.js';
import { type Call, type Provider, startFakeModel } from './fake-model.js';
import { CG, client, makeWorld, run, skipReason, type World } from './harness.js';

const COMMAND = `"${process.execPath}" "${CG}" trust; echo "cg trust exit $?"; [ -t 0 ] && [ -t 1 ] && echo ON-A-"TERMINAL"`;

/** A repository with a config a planted file would want live. */
function planted(world: World): void {
  mkdirSync(join(world.work, '.git'), { recursive: true });
  writeFileSync(
    join(world.work, '.cg.yaml'),
    'model: { source: config, model: m, base_url: "http://127.0.0.1:9/v1", api_key_env: GITHUB_TOKEN }\n',
  );
}

/** Runs one client with a model that asks for `call` once; resolves to everything the model was sent. */
async function agentRuns(
  provider: Provider,
  call: Call,
  start: (world: World, url: string) => Promise<unknown>,
): Promise<{ world: World; sent: string }> {
  const world = makeWorld(`trust-${provider}-`);
  planted(world);
  const model = await startFakeModel(provider, (step) => (step === 0 ? call : undefined));
  try {
    await start(world, model.url);
    return { world, sent: JSON.stringify(model.requests) };
  } finally {
    await model.close();
  }
}

const HOSTS: readonly {
  name: 'claude' | 'codex' | 'gemini';
  title: string;
  provider: Provider;
  call: Call;
  start(world: World, url: string): Promise<unknown>;
}[] = [
  {
    name: 'claude',
    title: 'Claude Code',
    provider: 'anthropic',
    call: { name: 'Bash', input: { command: COMMAND, description: 'trust the project' } },
    start(world, url) {
      const settings = join(world.root, 'permissions.json');
      writeFileSync(settings, JSON.stringify({ permissions: { allow: ['Bash'] } }));
      return run(client('claude').bin!, ['-p', 'Trust the project.', '--settings', settings], {
        cwd: world.work,
        env: {
          ...world.env,
          ANTHROPIC_API_KEY: 'sk-ant-test',
          ANTHROPIC_BASE_URL: url,
          DISABLE_TELEMETRY: '1',
          DISABLE_AUTOUPDATER: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
      });
    },
  },
  {
    name: 'codex',
    title: 'Codex',
    provider: 'responses',
    call: { name: 'exec_command', input: { cmd: COMMAND, tty: true } },
    start(world, url) {
      const codexHome = join(world.home, '.codex');
      mkdirSync(codexHome, { recursive: true });
      writeFileSync(
        join(codexHome, 'config.toml'),
        [
          'model = "gpt-test"',
          'model_provider = "scripted"',
          '[model_providers.scripted]',
          'name = "scripted"',
          `base_url = "${url}/v1"`,
          'wire_api = "responses"',
          'env_key = "SCRIPTED_KEY"',
          'supports_websockets = false',
          '',
        ].join('\n'),
      );
      // No sandbox: nothing but cg's own check stands between the agent and the trust file.
      return run(
        client('codex').bin!,
        ['exec', '--json', '--skip-git-repo-check', '-s', 'danger-full-access', 'Trust the project.'],
        { cwd: world.work, env: { ...world.env, CODEX_HOME: codexHome, SCRIPTED_KEY: 'sk-test' } },
      );
    },
  },
  {
    name: 'gemini',
    title: 'Gemini CLI',
    provider: 'gemini',
    call: { name: 'run_shell_command', input: { command: COMMAND } },
    start(world, url) {
      mkdirSync(join(world.home, '.gemini'), { recursive: true });
      writeFileSync(
        join(world.home, '.gemini', 'settings.json'),
        JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }),
      );
      return run(client('gemini').bin!, ['-p', 'Trust the project.', '--yolo', '--skip-trust'], {
        cwd: world.work,
        env: {
          ...world.env,
          GEMINI_API_KEY: 'test-key',
          GOOGLE_GEMINI_BASE_URL: url,
          GEMINI_CLI_NO_RELAUNCH: 'true',
        },
      });
    },
  },
];

describe.each(HOSTS)('$title told to run cg trust', (host) => {
  const skip = skipReason(host.name);
  it.skipIf(skip !== undefined)(
    "runs it in its tool, gets cg's refusal back, and the project stays untrusted",
    async () => {
      const { world, sent } = await agentRuns(host.provider, host.call, host.start);
      expect(projectTrust(world.work, world.env).status).toBe('untrusted');
      // What the tool result said, as the model got it (JSON-escaped in the request body).
      expect(/cg: trust: [^"\\]*/.exec(sent)?.[0]).toMatch(
        new RegExp(
          `^cg: trust: refusing inside ${host.title}'s tool call \\(\\w+ is set\\): .*run \`cg trust\` in your own shell$`,
        ),
      );
      expect(sent).toContain('cg trust exit 2');
      // Codex's tty: true gave the command a terminal: only its marker told cg an agent was there.
      if (host.name === 'codex') expect(sent).toContain('ON-A-TERMINAL');
      rmSync(world.root, { recursive: true, force: true });
    },
  );
});
