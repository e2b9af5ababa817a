/**
 * Claude Code's side of the scripted sessions, shared by its suites: the session's steps as Claude
 * Code's calls, a run of the real binary against the scripted Anthropic server without cg, with
 * cg's hooks (`cg init claude`) or through `cg wrap claude`, and what its model read (the tool
 * results of the last main-conversation request the model server received).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { expect } from 'vitest';
import { contentText, type FakeModel, startFakeModel } from './fake-model.js';
import { CG, cg, client, makeWorld, markersIn, run, type World } from './harness.js';
import { makeProject } from './project.js';
import { type HostCalls, normaliseTimings, type Step, scriptFor } from './session.js';

export const CALLS: HostCalls = {
  shell: (command) => ({ name: 'Bash', input: { command, description: 'scripted step' } }),
  read: (path) => ({ name: 'Read', input: { file_path: path } }),
  expand: (key) => ({ name: 'mcp__cg__cg_expand', input: { key } }),
};

export interface StepResult {
  text: string;
  isError: boolean;
}

export interface Session {
  world: World;
  results: StepResult[];
  stderr: string;
}

/**
 * A result with what differs between two worlds by construction taken out: their paths (also as
 * Claude Code's dashed project directory names), session ids, pytest's timings and column padding (and so the count Claude Code gives of the characters it cut).
 */
export function same(s: Session, r: StepResult): string {
  const name = basename(s.world.root);
  return normaliseTimings(r.text.replaceAll(s.world.root, '<root>').replaceAll(name, '<world>'))
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    .replace(/tool-results\/[\w-]+\.txt/g, 'tool-results/<id>.txt')
    .replace(/\[\d+ characters truncated\]/g, '[N characters truncated]')
    .replace(/ {2,}/g, ' ');
}

export function firstDifference(a: string, b: string): string {
  const x = a.split('\n');
  const y = b.split('\n');
  const i = x.findIndex((l, k) => l !== y[k]);
  return `line ${i + 1}: ${JSON.stringify(x[i])} vs ${JSON.stringify(y[i])}`;
}

/**
 * What a tool result gave the model: its text, or, when Claude Code persisted a large result
 * (`<persisted-output>` … `Full output saved to: FILE`, a preview in the context), the text of the
 * file it saved — the model reads that file for the rest. Whether Claude Code persists depends on
 * its own size limits (and remote flags), so the check follows the file rather than the preview.
 */
export function shownOrPersisted(text: string): string {
  if (!text.startsWith('<persisted-output>')) return text;
  const file = /Full output saved to: (\S+)/.exec(text)?.[1];
  if (file === undefined) return text;
  const saved = readFileSync(file, 'utf8');
  try {
    const blocks = JSON.parse(saved) as { type: string; text?: string }[];
    return blocks.map((b) => b.text ?? '').join('');
  } catch {
    return saved;
  }
}

/** The tool results of the last main-conversation request, in call order. */
export function toolResults(model: FakeModel): StepResult[] {
  const main = model.requests.filter(
    (r) => Array.isArray(r.tools) && (r.tools as { name?: string }[]).some((t) => t.name === 'Bash'),
  );
  const last = main.at(-1);
  const messages = (last?.messages ?? []) as { role: string; content: unknown }[];
  return messages.flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as { type?: string; content?: unknown; is_error?: boolean }[])
          .filter((b) => b.type === 'tool_result')
          .map((b) => ({ text: contentText(b.content), isError: b.is_error === true }))
      : [],
  );
}

export async function session(
  steps: readonly Step[],
  o: {
    withCg: boolean;
    /** The door cg goes in by when withCg: its hooks (default) or `cg wrap claude` (the proxy). */
    door?: 'hooks' | 'wrap';
    allow: string[];
    ask?: string[];
    deny?: string[];
    /** Claude Code's command-line flags besides the session's own (a permission mode). */
    args?: string[];
    /** Where the rules go: the --settings file (default) or the project's .claude/settings.local.json. */
    layer?: 'flag' | 'local';
    env?: Record<string, string>;
  },
): Promise<Session> {
  const wrap = o.withCg && o.door === 'wrap';
  const world = makeWorld(!o.withCg ? 'claude-raw-' : wrap ? 'claude-wrap-' : 'claude-cg-');
  makeProject(world.work);
  if (o.withCg && !wrap) {
    const init = cg(world, ['init', 'claude']);
    expect(init.code, init.stderr).toBe(0);
  }
  const settings =
    o.layer === 'local'
      ? join(world.work, '.claude', 'settings.local.json')
      : join(world.root, 'permissions.json');
  mkdirSync(join(settings, '..'), { recursive: true });
  writeFileSync(
    settings,
    JSON.stringify({ permissions: { allow: o.allow, ask: o.ask ?? [], deny: o.deny ?? [] } }),
  );
  const mcp = join(world.root, 'mcp.json');
  writeFileSync(
    mcp,
    JSON.stringify({
      mcpServers: {
        cg: {
          command: process.execPath,
          args: [CG, 'mcp'],
          env: { CG_STORE_DIR: world.store, CG_STATE_DIR: world.env.CG_STATE_DIR },
        },
      },
    }),
  );
  const model = await startFakeModel('anthropic', scriptFor(steps, CALLS, world.work));
  try {
    const bin = client('claude').bin!;
    const args = [
      '-p',
      'Run the scripted steps.',
      '--output-format',
      'stream-json',
      '--verbose',
      ...(o.layer === 'local' ? [] : ['--settings', settings]),
      '--mcp-config',
      mcp,
      ...(o.args ?? []),
    ];
    // cg wrap finds `claude` on PATH and forwards to where it would have gone (ANTHROPIC_BASE_URL).
    const r = await run(wrap ? process.execPath : bin, wrap ? [CG, 'wrap', 'claude', ...args] : args, {
      cwd: world.work,
      env: {
        ...world.env,
        ...(wrap ? { PATH: `${dirname(bin)}:${world.env.PATH}` } : {}),
        ANTHROPIC_API_KEY: 'sk-ant-test',
        ANTHROPIC_BASE_URL: model.url,
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        ...o.env,
      },
    });
    const results = toolResults(model);
    writeFileSync(join(world.root, 'results.json'), JSON.stringify(results, null, 1));
    return { world, results, stderr: r.stderr };
  } finally {
    await model.close();
  }
}

export const ALLOW = [
  'Bash(python3 -m pytest:*)',
  'Bash(git status:*)',
  'Bash(git log:*)',
  'Bash(cd sub && pytest -q)',
  'Bash(grep:*)',
  'Bash(cat:*)',
  'Read',
  'mcp__cg__cg_expand',
];

/**
 * An outlined Read of src/big.py as the model reads it: behind a marker, each kept line once with
 * its true file line number (never numbered twice), the file's first line among them.
 */
export function expectTrueOutline(world: World, text: string): void {
  const file = readFileSync(join(world.work, 'src/big.py'), 'utf8').split('\n');
  const shown = text.split('\n').filter((l) => /^\d+\t/.test(l));
  expect(markersIn(text).length).toBeGreaterThan(0);
  expect(shown[0]).toBe(`1\t${file[0]}`);
  let kept = 0;
  for (const l of shown) {
    const [, n, line] = /^(\d+)\t(.*)$/.exec(l)!;
    expect(/^\d+\t/.test(line!), l).toBe(false);
    if (line === '' || line!.includes('<<cg:') || /^\s*(\.\.\.|…)/.test(line!)) continue;
    // A kept line is the file's line of that number (a signature may have its arguments elided).
    const own = file[Number(n) - 1]!;
    expect(line === own || own.startsWith(line!.replace(/\(\.\.\.\).*$/, '(')), l).toBe(true);
    kept++;
  }
  expect(kept).toBeGreaterThan(5);
}
