/**
 * `cg wrap opencode` and cg's plugin hook (`cg init opencode`) with the real OpenCode (clients.json)
 * against the scripted Anthropic server.
 * The user's own opencode.json points OpenCode's anthropic provider at the model server, so the
 * session run twice — as OpenCode runs it, then through cg wrap — shows that cg wrap forwards where
 * OpenCode would have gone and that its inline config wins over the file for this run. The model
 * asks for one bash command with a long output, then answers; the tool result in the last request
 * is what the model read: compacted through the proxy, with a marker that expands to exactly what
 * OpenCode sent without cg; the exit code and the config file are what OpenCode alone leaves.
 * The third run is plain `opencode run` with cg's plugin installed: the plugin's hook compacts the
 * same output in OpenCode itself, and `cg init opencode --uninstall` leaves its plugins folder as
 * the user had it.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  type Spawned,
  skipReason,
  type World,
} from './harness.js';

const skip = skipReason('opencode');

function log(): string {
  let text = '';
  for (let i = 0; i < 300; i++)
    text += `2026-11-02T10:${String(i % 60).padStart(2, '0')}:00Z INFO [worker-${i % 7}] request ${i * 7919} handled in ${i % 97} ms\n`;
  return text;
}

interface Session {
  world: World;
  model: FakeModel;
  configFile: string;
  ran: Spawned;
  /** The tool results of the last main request: what the model read. */
  results: string[];
  /** OpenCode's global plugins folder. */
  plugins: string;
}

/** A plugin of the user's own, beside which cg's is installed and removed. */
const USER_PLUGIN = 'export const Mine = async () => ({});\n';

type Door = 'none' | 'wrap' | 'plugin';

/** One OpenCode session in a fresh world: `opencode run …`, through `cg wrap opencode`, or with cg's plugin. */
async function session(door: Door): Promise<Session> {
  const wrapped = door === 'wrap';
  const world = makeWorld(`opencode-${door}-`);
  writeFileSync(join(world.work, 'app.log'), log());
  const model = await startFakeModel('anthropic', (step) =>
    step === 0 ? { name: 'bash', input: { command: 'cat app.log', description: 'read the log' } } : undefined,
  );
  const configFile = join(world.home, '.config', 'opencode', 'opencode.json');
  mkdirSync(dirname(configFile), { recursive: true });
  const configText = `${JSON.stringify(
    {
      provider: { anthropic: { options: { baseURL: `${model.url}/v1` } } },
      permission: { bash: 'allow' },
    },
    null,
    2,
  )}\n`;
  writeFileSync(configFile, configText);
  const plugins = join(dirname(configFile), 'plugins');
  mkdirSync(plugins);
  writeFileSync(join(plugins, 'mine.js'), USER_PLUGIN);
  if (door === 'plugin') {
    const init = cg(world, ['init', 'opencode']);
    if (init.code !== 0) throw new Error(`cg init opencode: ${init.stderr}`);
  }
  const bin = client('opencode').bin!;
  const args = ['run', '--model', 'anthropic/claude-sonnet-4-5', 'Read the log.'];
  const ran = await run(
    wrapped ? process.execPath : bin,
    wrapped ? [CG, 'wrap', 'opencode', ...args] : args,
    {
      cwd: world.work,
      env: {
        ...world.env,
        PATH: `${dirname(bin)}:${world.env.PATH}`,
        ANTHROPIC_API_KEY: 'sk-ant-test',
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_AUTOUPDATE: '1',
      },
    },
  );
  const main = model.requests.filter(
    (b) => Array.isArray(b.tools) && (b.tools as { name?: string }[]).some((t) => t.name === 'bash'),
  );
  const messages = (main.at(-1)?.messages ?? []) as { content: unknown }[];
  const results = messages.flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as { type?: string; content?: unknown }[])
          .filter((b) => b.type === 'tool_result')
          .map((b) => contentText(b.content))
      : [],
  );
  return { world, model, configFile, ran, results, plugins };
}

describe.skipIf(skip !== undefined)(
  `OpenCode ${client('opencode').version ?? ''} through cg wrap opencode`,
  () => {
    let raw: Session;
    let wrapped: Session;
    let plugged: Session;

    beforeAll(async () => {
      raw = await session('none');
      wrapped = await session('wrap');
      plugged = await session('plugin');
    });
    afterAll(async () => {
      await raw?.model.close();
      await wrapped?.model.close();
      await plugged?.model.close();
    });

    it('runs the session through the proxy with the exit code OpenCode has alone, the config file untouched', () => {
      expect(raw.ran.code, raw.ran.stderr.slice(-2000)).toBe(0);
      expect(wrapped.ran.code, wrapped.ran.stderr.slice(-2000)).toBe(raw.ran.code);
      expect(wrapped.ran.stderr).not.toMatch(/cg: wrap:/);
      expect(raw.results).toHaveLength(1);
      expect(wrapped.results).toHaveLength(1);
      // OpenCode itself adds a $schema key to the file it loads: cg wrap changes nothing more.
      const leftAlone = readFileSync(raw.configFile, 'utf8').replace(raw.model.url, wrapped.model.url);
      expect(readFileSync(wrapped.configFile, 'utf8')).toBe(leftAlone);
    });

    it('gives the model the bash output compacted, its marker expanding to what OpenCode sent without cg', async () => {
      const [before] = raw.results;
      const [seen] = wrapped.results;
      expect(before).toContain(log().trimEnd());
      const tokensBefore = await countTokens([before!]);
      const tokensSeen = await countTokens([seen!]);
      console.log(
        `cg wrap opencode: the bash output ${tokensBefore} tokens alone, ${tokensSeen} as the model read it`,
      );
      expect(tokensSeen).toBeLessThan(tokensBefore / 2);
      const keys = markersIn(seen!);
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) expect(expand(wrapped.world, key)).toBe(before);
    });

    it("compacts the bash output in OpenCode itself through cg's plugin, its marker expanding to what OpenCode sent alone", async () => {
      expect(plugged.ran.code, plugged.ran.stderr.slice(-2000)).toBe(raw.ran.code);
      expect(plugged.results).toHaveLength(1);
      const [before] = raw.results;
      const [seen] = plugged.results;
      const tokensBefore = await countTokens([before!]);
      const tokensSeen = await countTokens([seen!]);
      console.log(
        `cg init opencode (plugin): the bash output ${tokensBefore} tokens alone, ${tokensSeen} as the model read it`,
      );
      expect(tokensSeen).toBeLessThan(tokensBefore / 2);
      const keys = markersIn(seen!);
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) expect(expand(plugged.world, key)).toBe(before);
    });

    it('cg init opencode --uninstall leaves the plugins folder as the user had it', () => {
      expect(readdirSync(plugged.plugins).sort()).toEqual(['cg.js', 'mine.js']);
      const removed = cg(plugged.world, ['init', 'opencode', '--uninstall']);
      expect(removed.code, removed.stderr).toBe(0);
      expect(readdirSync(plugged.plugins)).toEqual(['mine.js']);
      expect(readFileSync(join(plugged.plugins, 'mine.js'), 'utf8')).toBe(USER_PLUGIN);
    });
  },
);
