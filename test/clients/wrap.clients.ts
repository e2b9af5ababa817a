/**
 * `cg wrap claude` with the real Claude Code (clients.json) against the scripted Anthropic server:
 * the user's own settings.json points Claude Code at the model server (no ANTHROPIC_BASE_URL in the
 * environment), so the run shows both that cg wrap forwards where the host would have gone and
 * that its `--settings` override wins over the settings file's env map for this run. The tool
 * results in the last request are what the model read: compacted, with markers that expand to the
 * exact outputs; and the settings file is byte for byte as it was. Codex and Gemini CLI go the
 * same way (Gemini CLI through GOOGLE_GEMINI_BASE_URL, its own value the upstream), Gemini's last
 * step a failing command whose exit code reaches the model as Gemini CLI wrote it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentText, type FakeModel, startFakeModel } from './fake-model.js';
import {
  CG,
  client,
  countTokens,
  expand,
  makeWorld,
  markersIn,
  run,
  skipReason,
  type World,
} from './harness.js';

const skip = skipReason('claude');
const LOGS = 3;

function log(k: number): string {
  let text = '';
  for (let i = 0; i < 260; i++)
    text += `2026-11-0${1 + k}T10:${String(i % 60).padStart(2, '0')}:00Z INFO [worker-${i % 7}] step ${k} request ${i * 7919} handled in ${i % 97} ms\n`;
  return text;
}

describe.skipIf(skip !== undefined)(
  `Claude Code ${client('claude').version ?? ''} through cg wrap claude`,
  () => {
    let world: World;
    let model: FakeModel;
    let settingsFile = '';
    let settingsText = '';
    let status: number | null = null;
    let stderr = '';
    let results: string[] = [];

    beforeAll(async () => {
      world = makeWorld('claude-wrap-');
      for (let k = 0; k < LOGS; k++) writeFileSync(join(world.work, `log${k}.txt`), log(k));
      model = await startFakeModel('anthropic', (step) =>
        step < LOGS
          ? { name: 'Bash', input: { command: `cat log${step}.txt`, description: 'read a log' } }
          : undefined,
      );
      settingsFile = join(world.home, '.claude', 'settings.json');
      mkdirSync(dirname(settingsFile), { recursive: true });
      settingsText = `${JSON.stringify({ env: { ANTHROPIC_BASE_URL: model.url } }, null, 2)}\n`;
      writeFileSync(settingsFile, settingsText);
      const r = await run(
        process.execPath,
        [CG, 'wrap', 'claude', '-p', 'Read the logs.', '--output-format', 'json', '--allowedTools', 'Bash'],
        {
          cwd: world.work,
          env: {
            ...world.env,
            PATH: `${dirname(client('claude').bin!)}:${world.env.PATH}`,
            ANTHROPIC_API_KEY: 'sk-ant-test',
            DISABLE_TELEMETRY: '1',
            DISABLE_AUTOUPDATER: '1',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          },
        },
      );
      status = r.code;
      stderr = r.stderr;
      const main = model.requests.filter(
        (b) => Array.isArray(b.tools) && (b.tools as { name?: string }[]).some((t) => t.name === 'Bash'),
      );
      const messages = (main.at(-1)?.messages ?? []) as { content: unknown }[];
      results = messages.flatMap((m) =>
        Array.isArray(m.content)
          ? (m.content as { type?: string; content?: unknown }[])
              .filter((b) => b.type === 'tool_result')
              .map((b) => contentText(b.content))
          : [],
      );
    });
    afterAll(async () => {
      await model?.close();
    });

    it('runs the whole session through the proxy, and leaves the settings file as it was', () => {
      expect(status, stderr).toBe(0);
      expect(stderr).not.toMatch(/cg: wrap:/);
      expect(results).toHaveLength(LOGS);
      expect(readFileSync(settingsFile, 'utf8')).toBe(settingsText);
    });

    it('gives the model compacted tool outputs whose markers expand to the exact outputs', async () => {
      const raw = Array.from({ length: LOGS }, (_, k) => log(k));
      const seen = await countTokens(results);
      const without = await countTokens(raw);
      console.log(`cg wrap claude: tool results ${without} tokens as run, ${seen} as the model read them`);
      expect(seen).toBeLessThan(without / 2);
      const keys = results.flatMap(markersIn);
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        const original = expand(world, key);
        expect(original).toBeDefined();
        expect(raw.some((r) => r.trimEnd() === original!.trimEnd())).toBe(true);
      }
    });
  },
);

describe.skipIf(skipReason('codex') !== undefined)(
  `Codex ${client('codex').version ?? ''} through cg wrap codex`,
  () => {
    let world: World;
    let model: FakeModel;
    let status: number | null = null;
    let stderr = '';
    let results: string[] = [];

    beforeAll(async () => {
      world = makeWorld('codex-wrap-');
      for (let k = 0; k < LOGS; k++) writeFileSync(join(world.work, `log${k}.txt`), log(k));
      model = await startFakeModel('responses', (step) =>
        step < LOGS ? { name: 'exec_command', input: { cmd: `cat log${step}.txt` } } : undefined,
      );
      const codexHome = join(world.home, '.codex');
      mkdirSync(codexHome, { recursive: true });
      writeFileSync(join(codexHome, 'config.toml'), 'model = "gpt-test"\n');
      const r = await run(
        process.execPath,
        [
          CG,
          'wrap',
          'codex',
          'exec',
          '--skip-git-repo-check',
          '--dangerously-bypass-approvals-and-sandbox',
          'Read the logs.',
        ],
        {
          cwd: world.work,
          env: {
            ...world.env,
            PATH: `${dirname(client('codex').bin!)}:${world.env.PATH}`,
            CODEX_HOME: codexHome,
            OPENAI_BASE_URL: `${model.url}/v1`,
            OPENAI_API_KEY: 'sk-test',
          },
        },
      );
      status = r.code;
      stderr = r.stderr;
      const main = model.requests.filter((b) => Array.isArray(b.input));
      const input = (main.at(-1)?.input ?? []) as { type?: string; output?: unknown }[];
      results = input.filter((i) => i.type === 'function_call_output').map((i) => contentText(i.output));
    });
    afterAll(async () => {
      await model?.close();
    });

    it('runs the session through the proxy: the model reads compacted outputs whose markers expand', async () => {
      expect(status, stderr.slice(-2000)).toBe(0);
      expect(stderr).not.toMatch(/cg: wrap:/);
      expect(results).toHaveLength(LOGS);
      const raw = Array.from({ length: LOGS }, (_, k) => log(k));
      const seen = await countTokens(results);
      const without = await countTokens(raw);
      console.log(
        `cg wrap codex: the logs ${without} tokens (Codex itself keeps a head and tail), ${seen} as the model read them`,
      );
      expect(seen).toBeLessThan(without / 2);
      const keys = results.flatMap(markersIn);
      expect(keys.length).toBeGreaterThan(0);
      // A marker stands for Codex's whole output item: its header (chunk id, wall time, exit code), then
      // the output as Codex kept it (its own head and tail of a long one): the log's first and last lines.
      for (const key of keys) {
        const original = expand(world, key) ?? '';
        expect(original).toMatch(/^Chunk ID: /);
        const lines = raw.map((x) => x.trimEnd().split('\n'));
        expect(lines.some((l) => original.includes(l[0]!) && original.includes(l.at(-1)!))).toBe(true);
      }
    });
  },
);

describe.skipIf(skipReason('gemini') !== undefined)(
  `Gemini CLI ${client('gemini').version ?? ''} through cg wrap gemini`,
  () => {
    let world: World;
    let model: FakeModel;
    let status: number | null = null;
    let stderr = '';
    let results: string[] = [];

    beforeAll(async () => {
      world = makeWorld('gemini-wrap-');
      for (let k = 0; k < LOGS; k++) writeFileSync(join(world.work, `log${k}.txt`), log(k));
      // The last step fails: its exit code must reach the model as Gemini CLI wrote it.
      model = await startFakeModel('gemini', (step) =>
        step < LOGS
          ? { name: 'run_shell_command', input: { command: `cat log${step}.txt` } }
          : step === LOGS
            ? { name: 'run_shell_command', input: { command: 'ls no-such-file' } }
            : undefined,
      );
      mkdirSync(join(world.home, '.gemini'), { recursive: true });
      writeFileSync(
        join(world.home, '.gemini', 'settings.json'),
        JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }),
      );
      const r = await run(
        process.execPath,
        [
          CG,
          'wrap',
          'gemini',
          '-p',
          'Read the logs.',
          '--output-format',
          'stream-json',
          '--yolo',
          '--skip-trust',
        ],
        {
          cwd: world.work,
          env: {
            ...world.env,
            PATH: `${dirname(client('gemini').bin!)}:${world.env.PATH}`,
            GEMINI_API_KEY: 'AIzaSyD-test0123456789abcdefghijkl',
            // Where Gemini CLI would go without cg: the proxy forwards there.
            GOOGLE_GEMINI_BASE_URL: model.url,
            GEMINI_CLI_NO_RELAUNCH: 'true',
          },
        },
      );
      status = r.code;
      stderr = r.stderr;
      const main = model.requests.filter((b) => Array.isArray(b.tools) && Array.isArray(b.contents));
      const contents = (main.at(-1)?.contents ?? []) as {
        parts?: { functionResponse?: { response?: { output?: unknown; error?: unknown } } }[];
      }[];
      results = contents.flatMap((c) =>
        (c.parts ?? [])
          .filter((p) => p.functionResponse)
          .map((p) =>
            contentText(p.functionResponse!.response?.output ?? p.functionResponse!.response?.error),
          ),
      );
    });
    afterAll(async () => {
      await model?.close();
    });

    it('runs the session through the proxy: compacted outputs whose markers expand, the exit code kept', async () => {
      expect(status, stderr.slice(-2000)).toBe(0);
      expect(stderr).not.toMatch(/cg: wrap:/);
      expect(results).toHaveLength(LOGS + 1);
      const logs = results.slice(0, LOGS);
      const raw = Array.from({ length: LOGS }, (_, k) => log(k));
      const seen = await countTokens(logs);
      const without = await countTokens(raw);
      console.log(`cg wrap gemini: the logs ${without} tokens as run, ${seen} as the model read them`);
      expect(seen).toBeLessThan(without / 2);
      const keys = logs.flatMap(markersIn);
      expect(keys.length).toBeGreaterThan(0);
      // A marker stands for Gemini CLI's whole functionResponse output: the log inside its wrapper.
      for (const key of keys) {
        const original = expand(world, key) ?? '';
        expect(raw.some((r) => original.includes(`Output: ${r.trimEnd()}\n`))).toBe(true);
      }
      expect(results[LOGS]).toMatch(/^Exit Code: 2$/m);
      expect(markersIn(results[LOGS]!)).toEqual([]);
    });
  },
);
