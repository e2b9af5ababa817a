/**
 * Gemini CLI, the real package (clients.json), against the scripted Gemini API server: the session
 * of issue 15 with and without `cg init gemini` (its AfterTool hook and cg's MCP server).
 */
import { readFileSync, writeFileSync } from 'node:fs';
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
import { type HostCalls, normaliseTimings, SESSION, type Step, scriptFor } from './session.js';

const skip = skipReason('gemini');

const CALLS: HostCalls = {
  shell: (command) => ({ name: 'run_shell_command', input: { command } }),
  read: (path) => ({ name: 'read_file', input: { file_path: path } }),
  expand: (key) => ({ name: 'mcp_cg_cg_expand', input: { key } }),
};

interface StepResult {
  text: string;
  isError: boolean;
}

interface Session {
  world: World;
  results: StepResult[];
  stderr: string;
}

function toolResults(model: FakeModel): StepResult[] {
  const main = model.requests.filter(
    (r) => Array.isArray(r.tools) && r.tools.length > 0 && Array.isArray(r.contents),
  );
  const contents = (main.at(-1)?.contents ?? []) as {
    parts?: { functionResponse?: { response?: { output?: unknown; error?: unknown } } }[];
  }[];
  return contents.flatMap((c) =>
    (c.parts ?? [])
      .filter((p) => p.functionResponse)
      .map((p) => {
        const r = p.functionResponse!.response ?? {};
        return r.error !== undefined
          ? { text: contentText(r.error), isError: true }
          : { text: contentText(r.output), isError: false };
      }),
  );
}

function same(s: Session, r: StepResult): string {
  return normaliseTimings(
    r.text.replaceAll(s.world.root, '<root>').replaceAll(basename(s.world.root), '<world>'),
  )
    .replace(/Process Group PGID: \d+/g, 'Process Group PGID: <n>')
    .replace(/ {2,}/g, ' ');
}

const exitOf = (t: string) => /^Exit Code: (\d+)$/m.exec(t)?.[1] ?? '0';

async function session(steps: readonly Step[], withCg: boolean): Promise<Session> {
  const world = makeWorld(withCg ? 'gemini-cg-' : 'gemini-raw-');
  makeProject(world.work);
  const file = join(world.home, '.gemini', 'settings.json');
  if (withCg) {
    const init = cg(world, ['init', 'gemini']);
    expect(init.code, init.stderr).toBe(0);
  } else {
    // The same MCP server without the hook: the cg_expand step reaches the same tool.
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(world.home, '.gemini'), { recursive: true });
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { cg: { command: process.execPath, args: [CG, 'mcp'], trust: true } } }),
    );
  }
  const settings = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  writeFileSync(
    file,
    JSON.stringify({ ...settings, security: { auth: { selectedType: 'gemini-api-key' } } }, null, 2),
  );
  const model = await startFakeModel('gemini', scriptFor(steps, CALLS, world.work));
  try {
    const r = await run(
      client('gemini').bin!,
      ['-p', 'Run the scripted steps.', '--output-format', 'stream-json', '--yolo', '--skip-trust'],
      {
        cwd: world.work,
        env: {
          ...world.env,
          GEMINI_API_KEY: 'test-key',
          GOOGLE_GEMINI_BASE_URL: model.url,
          GEMINI_CLI_NO_RELAUNCH: 'true',
        },
      },
    );
    const results = toolResults(model);
    writeFileSync(join(world.root, 'results.json'), JSON.stringify(results, null, 1));
    return { world, results, stderr: r.stderr };
  } finally {
    await model.close();
  }
}

describe.skipIf(skip !== undefined)(
  `Gemini CLI ${client('gemini').version ?? ''} with cg init gemini`,
  () => {
    let raw: Session;
    let withCg: Session;

    beforeAll(async () => {
      [raw, withCg] = await Promise.all([session(SESSION, false), session(SESSION, true)]);
    });

    it('gets a tool result for every step of the session', () => {
      expect(raw.results.length, raw.stderr).toBe(SESSION.length);
      expect(withCg.results.length, withCg.stderr).toBe(SESSION.length);
    });

    it('keeps every error status and exit code', () => {
      for (const [i, s] of SESSION.entries()) {
        if (s.kind === 'expand') continue;
        expect(withCg.results[i]!.isError, s.label).toBe(raw.results[i]!.isError);
        expect(exitOf(withCg.results[i]!.text), s.label).toBe(exitOf(raw.results[i]!.text));
      }
    });

    it('shortens the tool results, with a marker in each one it shortened; every marker expands', async () => {
      const rows = [];
      const seen = new Set<string>();
      for (const [i, s] of SESSION.entries()) {
        if (s.kind === 'expand') continue;
        const a = same(raw, raw.results[i]!);
        const b = same(withCg, withCg.results[i]!);
        if (a !== b) {
          const keys = markersIn(b);
          expect(keys.length, s.label).toBeGreaterThan(0);
          for (const k of keys) seen.add(k);
        }
        rows.push({ label: s.label, without: await countTokens([a]), with: await countTokens([b]) });
      }
      const without = rows.reduce((n, r) => n + r.without, 0);
      const withTotal = rows.reduce((n, r) => n + r.with, 0);
      process.stdout.write(
        `Gemini CLI ${client('gemini').version}: tool-result tokens without → with cg\n${table(rows)}\n  total ${without} → ${withTotal} (${Math.round((100 * (without - withTotal)) / without)} % fewer)\n`,
      );
      expect(withTotal).toBeLessThan(without);
      expect(seen.size).toBeGreaterThan(0);
      for (const key of seen) expect(expand(withCg.world, key), key).toBeDefined();
    });
  },
);
