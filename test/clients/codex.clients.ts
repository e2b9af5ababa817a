/**
 * Codex, the real binary (clients.json), against the scripted Responses server: the session of
 * issue 15 with and without `cg init codex` in Codex's workspace-write sandbox, once with cg's store
 * among the sandbox's writable roots (markers) and once without (raw output, nothing fails), and the
 * permission matrix of Codex's own rules (allow, prompt, forbidden).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { contentText, type FakeModel, startFakeModel } from './fake-model.js';
import {
  CG,
  cg,
  client,
  countTokens,
  expand,
  makeWorld,
  markersIn,
  run,
  skipReason,
  table,
  type World,
} from './harness.js';
import { makeProject } from './project.js';
import { type HostCalls, SESSION, type Step, scriptFor } from './session.js';

const skip = skipReason('codex');

const CALLS: HostCalls = {
  shell: (cmd) => ({ name: 'exec_command', input: { cmd } }),
  // Codex has no file-reading tool: the model reads with the shell.
  read: (path) => ({ name: 'exec_command', input: { cmd: `sed -n '1,600p' ${path}` } }),
  expand: (key) => ({ name: 'cg_expand', namespace: 'mcp__cg', input: { key } }),
};

interface Session {
  world: World;
  results: string[];
  stderr: string;
}

function toolResults(model: FakeModel): string[] {
  const main = model.requests.filter(
    (r) => Array.isArray(r.tools) && r.tools.length > 0 && Array.isArray(r.input),
  );
  const input = (main.at(-1)?.input ?? []) as { type?: string; output?: unknown }[];
  return input.filter((i) => i.type === 'function_call_output').map((i) => contentText(i.output));
}

/** What differs between two worlds by construction: paths, chunk ids, wall times, Codex's token count. */
function same(s: Session, text: string): string {
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
function commandsRan(world: World): string[] {
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

const exitOf = (t: string) =>
  /^Process exited with code (\d+)$/m.exec(t)?.[1] ??
  (/^exec_command failed/.test(t) ? 'refused' : undefined);

async function session(
  steps: readonly Step[],
  o: { withCg: boolean; storeWritable: boolean; rules?: string },
): Promise<Session> {
  const world = makeWorld(o.withCg ? 'codex-cg-' : 'codex-raw-');
  makeProject(world.work);
  const codexHome = join(world.home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  const env = { ...world.env, CODEX_HOME: codexHome };
  if (o.withCg) {
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
    const r = await run(
      client('codex').bin!,
      // The hook is trusted for this run only: a real user trusts it once in /hooks.
      [
        'exec',
        '--json',
        '--skip-git-repo-check',
        '-s',
        'workspace-write',
        '--dangerously-bypass-hook-trust',
        'Run the scripted steps.',
      ],
      { cwd: world.work, env: { ...env, SCRIPTED_KEY: 'sk-test' } },
    );
    const results = toolResults(model);
    writeFileSync(join(world.root, 'results.json'), JSON.stringify(results, null, 1));
    return { world, results, stderr: r.stderr };
  } finally {
    await model.close();
  }
}

describe.skipIf(skip !== undefined)(`Codex ${client('codex').version ?? ''} with cg init codex`, () => {
  let raw: Session;
  let withCg: Session;
  let unwritable: Session;

  beforeAll(async () => {
    [raw, withCg, unwritable] = await Promise.all([
      session(SESSION, { withCg: false, storeWritable: true }),
      session(SESSION, { withCg: true, storeWritable: true }),
      session(SESSION, { withCg: true, storeWritable: false }),
    ]);
  });

  it('gets a tool result for every step of the session', () => {
    expect(raw.results.length, raw.stderr).toBe(SESSION.length);
    expect(withCg.results.length, withCg.stderr).toBe(SESSION.length);
    expect(unwritable.results.length, unwritable.stderr).toBe(SESSION.length);
  });

  it('keeps every exit code, with the store writable in the sandbox or not', () => {
    for (const [i, s] of SESSION.entries()) {
      if (s.kind === 'expand') continue;
      expect(exitOf(withCg.results[i]!), s.label).toBe(exitOf(raw.results[i]!));
      expect(exitOf(unwritable.results[i]!), s.label).toBe(exitOf(raw.results[i]!));
    }
  });

  it('shortens the tool results and puts a marker in each one it shortened; every marker expands', async () => {
    const rows = [];
    const seen = new Set<string>();
    for (const [i, s] of SESSION.entries()) {
      if (s.kind === 'expand') continue;
      const a = same(raw, raw.results[i]!);
      const b = same(withCg, withCg.results[i]!);
      if (a !== b) {
        const keys = markersIn(b);
        for (const k of keys) seen.add(k);
        // A result may also shrink losslessly; anything dropped is behind a marker.
        expect(keys.length > 0 || b.length < a.length, s.label).toBe(true);
      }
      rows.push({ label: s.label, without: await countTokens([a]), with: await countTokens([b]) });
    }
    const without = rows.reduce((n, r) => n + r.without, 0);
    const withTotal = rows.reduce((n, r) => n + r.with, 0);
    process.stdout.write(
      `Codex ${client('codex').version} (workspace-write, store writable): tool-result tokens without → with cg\n${table(rows)}\n  total ${without} → ${withTotal} (${Math.round((100 * (without - withTotal)) / without)} % fewer)\n`,
    );
    expect(withTotal).toBeLessThan(without);
    expect(seen.size).toBeGreaterThan(0);
    for (const key of seen) expect(expand(withCg.world, key), key).toBeDefined();
  });

  it('passes output through raw where the sandbox cannot write the store, and never fails a command', () => {
    for (const [i, s] of SESSION.entries()) {
      if (s.kind === 'expand') continue;
      expect(unwritable.results[i]).not.toMatch(/^cg: /m);
      expect(markersIn(unwritable.results[i]!), s.label).toEqual([]);
    }
  });
});

const RULES = `prefix_rule(pattern=["git", "log"], decision="forbidden")
prefix_rule(pattern=["git", "status"], decision="prompt")
prefix_rule(pattern=["python3", "-m", "pytest"], decision="allow")
`;

const MATRIX: readonly Step[] = [
  { label: 'allow rule: python3 -m pytest -q', kind: 'shell', command: 'python3 -m pytest -q tests' },
  { label: 'prompt rule: git status', kind: 'shell', command: 'git status' },
  { label: 'forbidden rule: git log', kind: 'shell', command: 'git log -p -n 3' },
  { label: 'forbidden inside a list: cd && git log', kind: 'shell', command: 'cd sub && git log -n 3' },
  { label: 'no rule: cd sub && pytest -q', kind: 'shell', command: 'cd sub && pytest -q' },
];

describe.skipIf(skip !== undefined)(`Codex ${client('codex').version ?? ''} rules`, () => {
  it('decides allow, prompt and forbidden rules exactly as it does without cg', async () => {
    const [raw, withCg] = await Promise.all([
      session(MATRIX, { withCg: false, storeWritable: true, rules: RULES }),
      session(MATRIX, { withCg: true, storeWritable: true, rules: RULES }),
    ]);
    expect(withCg.results.length, withCg.stderr).toBe(MATRIX.length);
    const outcome = (t: string) =>
      /^exec_command failed/.test(t)
        ? t.replaceAll(raw.world.root, '').replaceAll(withCg.world.root, '')
        : `ran, exit ${exitOf(t)}`;
    expect(withCg.results.map(outcome)).toEqual(raw.results.map(outcome));
    expect(raw.results.map(outcome).filter((o) => o.startsWith('ran')).length).toBeGreaterThan(0);
    expect(
      raw.results.map(outcome).filter((o) => o.startsWith('exec_command failed')).length,
    ).toBeGreaterThan(1);
    // What Codex ran: the command no rule names went through cg; the allowed one ran as written.
    const ran = commandsRan(withCg.world);
    expect(ran).toContain('python3 -m pytest -q tests');
    expect(ran.some((c) => /^cd sub && .*cg\.js run -- pytest -q$/.test(c))).toBe(true);
  });
});
