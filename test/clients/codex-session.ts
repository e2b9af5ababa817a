/**
 * Codex's side of the scripted sessions, shared by its suites: the session's steps as Codex's
 * calls, a run of the real binary (`codex exec`, workspace-write sandbox) against the scripted
 * Responses server without cg, with cg's hooks (`cg init codex`) or through `cg wrap codex`, and
 * what its model read (the function_call_output items of the last main request).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { expect } from 'vitest';
import { contentText, type FakeModel, startFakeModel } from './fake-model.js';
import { CG, cg, client, makeWorld, run, type World } from './harness.js';
import { makeProject } from './project.js';
import { type HostCalls, type Step, scriptFor } from './session.js';

export const CALLS: HostCalls = {
  shell: (cmd) => ({ name: 'exec_command', input: { cmd } }),
  // Codex has no file-reading tool: the model reads with the shell.
  read: (path) => ({ name: 'exec_command', input: { cmd: `sed -n '1,600p' ${path}` } }),
  expand: (key) => ({ name: 'cg_expand', namespace: 'mcp__cg', input: { key } }),
};

export interface Session {
  world: World;
  results: string[];
  stderr: string;
}

export function toolResults(model: FakeModel): string[] {
  const main = model.requests.filter(
    (r) => Array.isArray(r.tools) && r.tools.length > 0 && Array.isArray(r.input),
  );
  const input = (main.at(-1)?.input ?? []) as { type?: string; output?: unknown }[];
  return input.filter((i) => i.type === 'function_call_output').map((i) => contentText(i.output));
}

/** What differs between two worlds by construction: paths, chunk ids, wall times, Codex's token count. */
export function same(s: Session, text: string): string {
  return text
    .replaceAll(s.world.root, '<root>')
    .replaceAll(basename(s.world.root), '<world>')
    .replace(/^Chunk ID: \w+$/m, 'Chunk ID: <id>')
    .replace(/^Wall time: [\d.]+ seconds$/m, 'Wall time: <t>')
    .replace(/^Original token count: \d+$/m, 'Original token count: <n>')
    .replace(/ in \d+\.\d+s\b/g, ' in N.NNs')
    .replace(/ {2,}/g, ' ');
}

/** The commands Codex ran, from its session files (after any hook rewrite). */
export function commandsRan(world: World): string[] {
  const dir = join(world.home, '.codex', 'sessions');
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.jsonl'));
  const cmds = new Set<string>();
  for (const f of files) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      if (!line) continue;
      const walk = (v: unknown): void => {
        if (Array.isArray(v)) v.forEach(walk);
        else if (v && typeof v === 'object') {
          for (const [k, x] of Object.entries(v)) {
            if (k === 'cmd' && typeof x === 'string') cmds.add(x);
            else if (k === 'arguments' && typeof x === 'string' && x.startsWith('{')) walk(JSON.parse(x));
            else walk(x);
          }
        }
      };
      walk(JSON.parse(line));
    }
  }
  return [...cmds];
}

export const exitOf = (t: string) =>
  /^Process exited with code (\d+)$/m.exec(t)?.[1] ??
  (/^exec_command failed/.test(t) ? 'refused' : undefined);

export async function session(
  steps: readonly Step[],
  o: {
    withCg: boolean;
    /** The door cg goes in by when withCg: its hooks (default) or `cg wrap codex` (the proxy). */
    door?: 'hooks' | 'wrap';
    storeWritable: boolean;
    rules?: string;
  },
): Promise<Session> {
  const wrap = o.withCg && o.door === 'wrap';
  const world = makeWorld(!o.withCg ? 'codex-raw-' : wrap ? 'codex-wrap-' : 'codex-cg-');
  makeProject(world.work);
  const codexHome = join(world.home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  const env = { ...world.env, CODEX_HOME: codexHome };
  if (o.withCg && !wrap) {
    const init = cg({ ...world, env }, ['init', 'codex']);
    expect(init.code, init.stderr).toBe(0);
  }
  const model = await startFakeModel('responses', scriptFor(steps, CALLS, world.work));
  // A writable root must exist: the sandbox cannot create it.
  const roots = o.storeWritable ? [world.store, world.env.CG_STATE_DIR!] : [];
  for (const r of roots) mkdirSync(r, { recursive: true });
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model = "gpt-test"',
      'model_provider = "scripted"',
      '[model_providers.scripted]',
      'name = "scripted"',
      `base_url = "${model.url}/v1"`,
      'wire_api = "responses"',
      'env_key = "SCRIPTED_KEY"',
      'supports_websockets = false',
      '[sandbox_workspace_write]',
      `writable_roots = ${JSON.stringify(roots)}`,
      '[mcp_servers.cg]',
      `command = ${JSON.stringify(process.execPath)}`,
      `args = ${JSON.stringify([CG, 'mcp'])}`,
      // Without it, `codex exec` (approval "never") refuses every MCP call.
      'default_tools_approval_mode = "approve"',
      `env = { CG_STORE_DIR = ${JSON.stringify(world.store)}, CG_STATE_DIR = ${JSON.stringify(world.env.CG_STATE_DIR)} }`,
      '',
    ].join('\n'),
  );
  if (o.rules) {
    mkdirSync(join(codexHome, 'rules'), { recursive: true });
    writeFileSync(join(codexHome, 'rules', 'default.rules'), o.rules);
  }
  try {
    const bin = client('codex').bin!;
    // The hook is trusted for this run only: a real user trusts it once in /hooks.
    const args = [
      'exec',
      '--json',
      '--skip-git-repo-check',
      '-s',
      'workspace-write',
      '--dangerously-bypass-hook-trust',
      'Run the scripted steps.',
    ];
    // cg wrap finds `codex` on PATH and forwards to OPENAI_BASE_URL (its provider replaces the config's).
    const r = await run(wrap ? process.execPath : bin, wrap ? [CG, 'wrap', 'codex', ...args] : args, {
      cwd: world.work,
      env: {
        ...env,
        SCRIPTED_KEY: 'sk-test',
        ...(wrap
          ? {
              PATH: `${dirname(bin)}:${world.env.PATH}`,
              OPENAI_BASE_URL: `${model.url}/v1`,
              OPENAI_API_KEY: 'sk-test',
            }
          : {}),
      },
    });
    const results = toolResults(model);
    writeFileSync(join(world.root, 'results.json'), JSON.stringify(results, null, 1));
    return { world, results, stderr: r.stderr };
  } finally {
    await model.close();
  }
}
