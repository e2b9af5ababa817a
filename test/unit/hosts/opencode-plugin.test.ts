import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hookAnswer } from '../../../src/commands/hook.js';
import { type InitFlags, initCommand } from '../../../src/commands/init.js';
import { ConfigError } from '../../../src/errors.js';
import { pluginCommand, pluginText } from '../../../src/hosts/opencode/plugin.js';
import { shellQuote } from '../../../src/run/quote.js';
import { createFsStore } from '../../../src/store/fs-store.js';
import { tempDir } from '../../helpers.js';

const CG = "'/usr/bin/node' '/opt/cg/bin/cg.js'";
const seq = (n: number) => `${Array.from({ length: n }, (_, i) => String(i + 1)).join('\n')}\n`;

function setup() {
  const home = tempDir('cg-oc-home-');
  const cwd = tempDir('cg-oc-proj-');
  let out = '';
  const ctx = {
    env: { HOME: home, PATH: '' },
    cwd,
    invocation: CG,
    out: (s: string) => {
      out += s;
    },
    err() {},
  };
  const run = async (flags: InitFlags = {}, env: NodeJS.ProcessEnv = {}) => {
    out = '';
    const code = await initCommand('opencode', flags, { ...ctx, env: { ...ctx.env, ...env } });
    return { code, out };
  };
  return { home, cwd, run };
}

describe('cg init opencode', () => {
  it("writes one plugin file of cg's into OpenCode's plugins folder, twice changes nothing, uninstall leaves the folder as it was", async () => {
    const { home, run } = setup();
    const plugins = join(home, '.config', 'opencode', 'plugins');
    mkdirSync(plugins, { recursive: true });
    writeFileSync(join(plugins, 'mine.js'), 'export const Mine = async () => ({});\n');
    const file = join(plugins, 'cg.js');

    const dry = await run({ dryRun: true });
    expect(dry.out).toContain(`+++ b/${file}`);
    expect(existsSync(file)).toBe(false);

    expect((await run()).code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(pluginCommand(text)).toBe(`${CG} hook opencode`);
    expect((await run()).out).toMatch(/already in .*nothing to do/);
    expect(readFileSync(file, 'utf8')).toBe(text);

    expect((await run({ uninstall: true, dryRun: true })).out).toContain('+++ /dev/null');
    expect(existsSync(file)).toBe(true);
    expect((await run({ uninstall: true })).code).toBe(0);
    expect(readdirSync(plugins)).toEqual(['mine.js']);
    expect((await run({ uninstall: true })).out).toMatch(/nothing to do/);
  });

  it("puts the project's plugin in .opencode/plugins and the global one under XDG_CONFIG_HOME", async () => {
    const { cwd, home, run } = setup();
    await run({ project: true });
    expect(existsSync(join(cwd, '.opencode', 'plugins', 'cg.js'))).toBe(true);
    await run({}, { XDG_CONFIG_HOME: join(home, 'xdg') });
    expect(existsSync(join(home, 'xdg', 'opencode', 'plugins', 'cg.js'))).toBe(true);
  });

  it('never writes over or removes a cg.js that cg did not write', async () => {
    const { home, run } = setup();
    const file = join(home, '.config', 'opencode', 'plugins', 'cg.js');
    mkdirSync(join(home, '.config', 'opencode', 'plugins'), { recursive: true });
    writeFileSync(file, 'export const Theirs = async () => ({});\n');
    await expect(run()).rejects.toBeInstanceOf(ConfigError);
    await expect(run({ uninstall: true })).rejects.toBeInstanceOf(ConfigError);
    expect(readFileSync(file, 'utf8')).toBe('export const Theirs = async () => ({});\n');
  });
});

/** The plugin as OpenCode loads it, with its command answering `answer` (a shell snippet). */
async function loadPlugin(answer: string) {
  const dir = tempDir('cg-oc-plugin-');
  const script = join(dir, 'answer.sh');
  writeFileSync(script, `cat > ${shellQuote(join(dir, 'payload.json'))}\n${answer}\n`);
  const file = join(dir, 'cg.js');
  // The invocation is followed by `hook opencode`, which the stand-in script ignores.
  writeFileSync(file, pluginText(`sh ${shellQuote(script)}`));
  const mod = (await import(pathToFileURL(file).href)) as {
    CgPlugin(ctx: { directory: string }): Promise<Record<string, (i: unknown, o: unknown) => Promise<void>>>;
  };
  const hooks = await mod.CgPlugin({ directory: dir });
  const after = async (tool: string, text: string) => {
    const output = { title: 'x', output: text, metadata: { exit: 0, truncated: false } };
    await hooks['tool.execute.after']!(
      { tool, sessionID: 'ses_1', callID: 'c1', args: { command: 'seq 9' } },
      output,
    );
    return output.output;
  };
  return { dir, after };
}

describe("cg's OpenCode plugin", () => {
  it('hands a bash call to cg as one payload and sets what cg answers as the output the model reads', async () => {
    const p = await loadPlugin(`printf '%s\\n' '{"output":"short"}'`);
    expect(await p.after('bash', 'long')).toBe('short');
    const sent = JSON.parse(readFileSync(join(p.dir, 'payload.json'), 'utf8'));
    expect(sent).toEqual({
      hook_event_name: 'tool.execute.after',
      session_id: 'ses_1',
      cwd: p.dir,
      tool_name: 'bash',
      tool_input: { command: 'seq 9' },
      tool_response: { output: 'long', metadata: { exit: 0, truncated: false } },
    });
  });

  it('fails open: a failing cg, an empty or malformed answer, and other tools leave the output as it was', async () => {
    for (const answer of [
      'exit 1',
      'true',
      "echo 'not json'",
      `echo '{"output":""}'`,
      `echo '{"out":"x"}'`,
    ]) {
      const p = await loadPlugin(answer);
      expect(await p.after('bash', 'as it was'), answer).toBe('as it was');
    }
    const p = await loadPlugin(`echo '{"output":"short"}'`);
    expect(await p.after('read', 'as it was')).toBe('as it was');
    expect(existsSync(join(p.dir, 'payload.json'))).toBe(false);
  });
});

function hookWorld() {
  const dir = tempDir('cg-oc-hook-');
  const env = {
    CG_STORE_DIR: join(dir, 'store'),
    CG_STATE_DIR: join(dir, 'state'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    HOME: dir,
    CG_STATS: '0',
  };
  const answer = async (output: string, metadata: Record<string, unknown>, command = 'seq 3000') => {
    const text = await hookAnswer(
      'opencode',
      JSON.stringify({
        hook_event_name: 'tool.execute.after',
        cwd: dir,
        tool_name: 'bash',
        tool_input: { command },
        tool_response: { output, metadata },
      }),
      { env },
    );
    return text === undefined ? undefined : (JSON.parse(text) as { output: string }).output;
  };
  const expand = async (shown: string) => {
    const key = /<<cg:([0-9a-f]{16})>>/.exec(shown)![1]!;
    const store = createFsStore({ dir: env.CG_STORE_DIR, ttlDays: 1, maxBytes: 1 << 30, compress: false });
    return (await store.get(key))?.toString();
  };
  return { dir, answer, expand };
}

describe('cg hook opencode', () => {
  it('answers a long bash output with a shorter one whose marker expands to the exact output', async () => {
    const w = hookWorld();
    const shown = await w.answer(seq(3000), { exit: 0, truncated: false });
    expect(shown!.length).toBeLessThan(seq(3000).length / 10);
    expect(await w.expand(shown!)).toBe(seq(3000));
  });

  it('compacts the whole output OpenCode saved to a file when it cut its own, keeping its metadata note as it was', async () => {
    const w = hookWorld();
    const whole = join(w.dir, 'tool_1');
    writeFileSync(whole, seq(30000));
    const note = '\n\n<shell_metadata>\nUser aborted the command\n</shell_metadata>';
    const cut = `...output truncated...\n\nFull output saved to: ${whole}\n\n${seq(30000).slice(-51200)}${note}`;
    const shown = await w.answer(cut, { exit: null, truncated: true, outputPath: whole }, 'seq 30000');
    // A killed run is a failing one: seq has no filter proven to keep failure lines, so it stays.
    expect(shown).toBeUndefined();
    const ok = await w.answer(cut, { exit: 0, truncated: true, outputPath: whole }, 'seq 30000');
    expect(ok!.endsWith(note)).toBe(true);
    expect(await w.expand(ok!)).toBe(seq(30000));
  });

  it('leaves a failing run (exit ≠ 0) whole when no filter proven to keep its failure lines matches', async () => {
    const w = hookWorld();
    expect(await w.answer(seq(3000), { exit: 1, truncated: false })).toBeUndefined();
    expect(await w.answer(seq(3000), { truncated: false })).toBeUndefined();
  });

  it('shortens a failing pytest run through the filter proven to keep every failure line', async () => {
    const w = hookWorld();
    const run = [
      '============================= test session starts ==============================',
      'collecting ... collected 400 items',
      '',
      ...Array.from(
        { length: 400 },
        (_, i) =>
          `tests/test_math.py::test_case_${i} ${i === 137 ? 'FAILED' : 'PASSED'} [${String(Math.floor(((i + 1) * 100) / 400)).padStart(3)}%]`,
      ),
      '',
      '=================================== FAILURES ===================================',
      '________________________________ test_case_137 _________________________________',
      '',
      '    def test_case_137():',
      '>       assert add(2, 2) == 5',
      'E       assert 4 == 5',
      '',
      'tests/test_math.py:412: AssertionError',
      '=========================== short test summary info ============================',
      'FAILED tests/test_math.py::test_case_137 - assert 4 == 5',
      '======================== 1 failed, 399 passed in 0.84s =========================',
      '',
    ].join('\n');
    const shown = await w.answer(run, { exit: 1, truncated: false }, 'pytest -v');
    expect(shown!.length).toBeLessThan(run.length / 5);
    for (const line of run.split('\n').filter((l) => /FAILED|^E |AssertionError|1 failed/.test(l)))
      expect(shown).toContain(line);
    expect(await w.expand(shown!)).toBe(run);
  });
});
