/**
 * What a start-up loads (issue 19, the start-up figures): the launcher compiles the CLI bundle from
 * the code cache the build trained, and falls back to compiling it when that cache is missing, made
 * for another bundle, or refused by V8; the commands started most skip commander; output goes to
 * the descriptor without Node's stream machinery.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers.js';
import { BIN, cg, seq } from './run-cg.js';
import { threadsAtExit, traceLoads } from './trace-loads.js';

const BUNDLE = join(ROOT, 'dist', 'cli.cjs');

/** A copy of bin/ and dist/ (no node_modules: enough for commands that import no package). */
function installCopy(): { bin: string; cache: string } {
  const dir = tempDir('cg-e2e-install-');
  cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
  return { bin: join(dir, 'bin', 'cg.js'), cache: join(dir, 'dist', 'cli.cjs.cache') };
}

function run(bin: string, args: string[], input: string, env: Record<string, string> = {}) {
  const dir = tempDir();
  const r = spawnSync(process.execPath, [bin, ...args], {
    input,
    env: {
      PATH: process.env.PATH ?? '',
      XDG_CONFIG_HOME: join(dir, 'cfg'),
      CG_STORE_DIR: join(dir, 'store'),
      CG_STATE_DIR: join(dir, 'state'),
      ...env,
    },
  });
  return { code: r.status, out: r.stdout.toString(), err: r.stderr.toString() };
}

/** A Claude Code PostToolUse payload of a 200-line log: a hook call that compacts (filters, tokenizer). */
function logHookPayload(): string {
  const log = Array.from(
    { length: 200 },
    // Seconds of two digits: `08:00:5 ` would read as grep's `path:line:` to the grep-hits shape.
    (_, i) => `2026-11-01T08:00:${String(i % 60).padStart(2, '0')} INFO [w-${i % 8}] id=${i * 7919}`,
  );
  return bashPayload('cat app.log', log.join('\n'));
}
/** A Claude Code PostToolUse payload of one Bash call. */
function bashPayload(command: string, stdout: string): string {
  return JSON.stringify({
    session_id: 's',
    cwd: ROOT,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command },
    tool_response: { stdout, stderr: '', interrupted: false, isImage: false },
  });
}
/** A PostToolUse payload of a failing pytest -v run: a hook call a builtin filter is for (re2js loads). */
function pytestHookPayload(): string {
  const lines = [
    '============================= test session starts ==============================',
    'collected 120 items',
    '',
  ];
  for (let i = 0; i < 120; i++)
    lines.push(
      `tests/test_calc.py::test_case_${i} ${i % 37 === 0 ? 'FAILED' : 'PASSED'}  [ ${Math.round((i / 120) * 100)}%]`,
    );
  lines.push('=========================== short test summary info ============================');
  lines.push('FAILED tests/test_calc.py::test_case_0 - AssertionError: record 0 differs');
  lines.push('========================= 4 failed, 116 passed in 0.31s =========================');
  return bashPayload('python3 -m pytest -v', lines.join('\n'));
}

describe('start-up', () => {
  it('cg --version, cg expand KEY and cg run -- CMD start without loading commander', () => {
    const store = join(tempDir(), 'store');
    const key = /<<cg:([0-9a-f]{16})>>/.exec(cg([], { input: seq(20000), storeDir: store }).out)?.[1];
    expect(key).toBeDefined();
    const version = traceLoads(['--version']);
    expect(version.stdout).toBe(`${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`);
    const expand = traceLoads(['expand', key!], '', { CG_STORE_DIR: store });
    expect(expand.stdout).toBe(seq(20000));
    const runs = traceLoads(['run', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
    expect(runs).toMatchObject({ code: 3, stdout: 'out\nerr\n' });
    for (const r of [version, expand, runs]) expect(r.loaded).not.toMatch(/commander/);
    // The tracer would have seen it: a command with an option is parsed by commander.
    expect(traceLoads(['expand', key!, '--lines', '1'], '', { CG_STORE_DIR: store }).loaded).toMatch(
      /node_modules\/commander\//,
    );
  });

  it("writes its output to a pipe without loading Node's stream, socket or fs/promises modules when nothing needs them", () => {
    const pipe = traceLoads([], 'hi\n', {}, true);
    expect(pipe.stdout).toBe('hi\n');
    const version = traceLoads(['--version'], '', {}, true);
    expect(version.code).toBe(0);
    // stderr on /dev/null (a character device, but never a terminal): answered without node:tty.
    const quiet = traceLoads([], 'hi\n', {}, true, true);
    expect(quiet.stdout).toBe('hi\n');
    expect(quiet.builtins).toContain('fs');
    expect(quiet.builtins).not.toContain('tty');
    for (const r of [pipe, version, quiet]) {
      for (const name of ['net', 'stream', 'fs/promises']) expect(r.builtins).not.toContain(name);
    }
    // The list would show them: cg run spawns through child_process, which loads net and stream.
    const run = traceLoads(['run', '--', 'echo', 'hi'], '', {}, true);
    expect(run.stdout).toBe('hi\n');
    expect(run.builtins).toEqual(expect.arrayContaining(['net', 'stream']));
  });

  it('echo hi | cg starts no thread beyond those of Node itself (no libuv thread pool for its few file operations)', () => {
    const node = threadsAtExit(['-e', '']);
    if (node === undefined) return; // no /proc here to count threads
    expect(threadsAtExit([BIN], 'hi\n')).toBe(node);
    // The count would show them: a file read through fs/promises starts the pool.
    expect(threadsAtExit(['-e', "require('node:fs/promises').stat('.')"])).toBeGreaterThan(node);
  });

  it('cg expand KEY reads, unpacks and records a small original without starting the thread pool', () => {
    const node = threadsAtExit(['-e', '']);
    if (node === undefined) return;
    const dir = tempDir();
    const env = { CG_STORE_DIR: join(dir, 'store'), CG_STATE_DIR: join(dir, 'state') };
    const key = /<<cg:([0-9a-f]{16})>>/.exec(
      cg([], { input: seq(20000), storeDir: env.CG_STORE_DIR }).out,
    )?.[1];
    expect(key).toBeDefined();
    expect(run(BIN, ['expand', key!], '', env).out).toBe(seq(20000));
    expect(threadsAtExit([BIN, 'expand', key!], '', env)).toBe(node);
    // It still records the expand for cg stats (a pending record, counted by the next reader).
    expect(readdirSync(join(dir, 'state', 'pending')).some((n) => n.endsWith('.pend'))).toBe(true);
  });

  it('a compacting hook call loads re2js only when a filter may match, compiled by the launcher, and no package through the ES module loader', () => {
    // No filter is for a plain log: no pattern's prefilter passes, so re2js is not even loaded
    // (a training run writes re2js.cache beside the bundle's cache only when it compiled re2js).
    for (const [payload, re2] of [
      [logHookPayload(), false],
      [pytestHookPayload(), true],
    ] as const) {
      const out = join(tempDir(), 'cache');
      expect(run(BIN, ['hook', 'claude'], payload, { CG_BUILD_CODE_CACHE: out }).code).toBe(0);
      expect(existsSync(join(out, '..', 're2js.cache'))).toBe(re2);
    }
    for (const payload of [logHookPayload(), pytestHookPayload()]) {
      const r = traceLoads(['hook', 'claude'], payload);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).hookSpecificOutput.updatedToolOutput.stdout).toMatch(/<<cg:[0-9a-f]{16}>>/);
      // re2js is compiled by the launcher with its own code cache (the test below), not by require.
      expect(r.loaded).not.toContain('LOAD re2js');
      // Piece bounds need no package (bpe/split-regex.ts); the vocabulary loads only for an exact
      // count, through require (REQUIRED in bin/cg.js).
      expect(r.loaded).not.toContain('LOAD gpt-tokenizer');
      expect(r.loaded).not.toMatch(/LOAD file:.*node_modules/);
    }
  });

  it('the launcher compiles the bundle from the code caches the build made, which V8 accepts', () => {
    const id = /^\/\*cg-bundle:([0-9a-f]{16})\*\//.exec(readFileSync(BUNDLE, 'latin1'))?.[1];
    expect(id).toBeDefined();
    // The general cache, and each command's own (smaller: trained on that command alone).
    const general = readFileSync(`${BUNDLE}.cache`);
    const kinds: [string, string[], string][] = [
      ['pipe', [], 'hi\n'],
      ['version', ['--version'], ''],
      ['run', ['run', '--', 'true'], ''],
      ['hook', ['hook', 'claude'], logHookPayload()],
      ['', ['--help'], ''],
    ];
    for (const [kind, args, input] of kinds) {
      const file = kind ? `${BUNDLE}.${kind}.cache` : `${BUNDLE}.cache`;
      const cache = readFileSync(file);
      expect(cache.toString('latin1', 0, 17), file).toBe(`${id}\n`);
      if (kind) expect(cache.length, file).toBeLessThan(general.length);
      // The build's own training knob: the launcher reads the cache there and writes it back, and
      // says if V8 refused it.
      const out = join(tempDir(), 'cache');
      writeFileSync(out, cache);
      const r = run(BIN, args, input, { CG_BUILD_CODE_CACHE: out });
      expect(r, file).toMatchObject({ code: 0, err: '' });
      expect(readFileSync(out, 'latin1').startsWith(`${id}\n`)).toBe(true);
    }
  });

  it('a code cache made for another bundle, a damaged one and none at all leave cg working the same', () => {
    const install = installCopy();
    const good = readFileSync(install.cache);
    const id = good.subarray(0, 17).toString('latin1');
    // The general cache and the commands' own: each variant replaces all of them, or (kind
    // missing) only the commands' own, which then fall back to the general one.
    const dist = join(install.bin, '..', '..', 'dist');
    const kindFiles = readdirSync(dist)
      .filter((n) => /^cli\.cjs\.\w+\.cache$/.test(n))
      .map((n) => join(dist, n));
    expect(kindFiles.length).toBeGreaterThan(0);
    const variants: [string, Buffer | undefined, boolean][] = [
      ['another bundle', Buffer.concat([Buffer.from('0123456789abcdef\n'), good.subarray(17)]), true],
      ['damaged', Buffer.concat([Buffer.from(id), Buffer.alloc(good.length - 17, 7)]), true],
      ['kind missing', undefined, false],
      ['missing', undefined, true],
    ];
    for (const [name, cache, general] of variants) {
      for (const file of general ? [install.cache, ...kindFiles] : kindFiles) {
        if (cache) writeFileSync(file, cache);
        else rmSync(file, { force: true });
      }
      const pipe = run(install.bin, [], 'hi\n');
      expect(pipe, name).toMatchObject({ code: 0, out: 'hi\n', err: '' });
      expect(run(install.bin, ['--version'], '').code, name).toBe(0);
    }
    // V8 itself refuses the damaged one (the header matched): the launcher compiled the source.
    const out = join(tempDir(), 'cache');
    writeFileSync(out, Buffer.concat([Buffer.from(id), Buffer.alloc(good.length - 17, 7)]));
    expect(run(install.bin, [], 'hi\n', { CG_BUILD_CODE_CACHE: out }).err).toBe('cg: code cache rejected\n');
  });

  it('re2js compiles from the code cache the build made for it; one for another release, a damaged one and none change nothing', () => {
    const payload = pytestHookPayload();
    const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules', 're2js', 'package.json'), 'utf8'));
    const length = readFileSync(join(ROOT, 'node_modules', 're2js', 'build', 'index.cjs'), 'utf8').length;
    const header = `re2js@${pkg.version}:${length}\n`;
    const good = readFileSync(join(ROOT, 'dist', 're2js.cache'));
    expect(good.toString('latin1', 0, header.length)).toBe(header);
    const expected = run(BIN, ['hook', 'claude'], payload);
    expect(expected.code).toBe(0);
    expect(JSON.parse(expected.out).hookSpecificOutput.updatedToolOutput.stdout).toMatch(
      /<<cg:[0-9a-f]{16}>>/,
    );

    const install = installCopy();
    symlinkSync(join(ROOT, 'node_modules'), join(install.bin, '..', '..', 'node_modules'));
    const cache = join(install.bin, '..', '..', 'dist', 're2js.cache');
    const damaged = Buffer.concat([Buffer.from(header), Buffer.alloc(good.length - header.length, 7)]);
    const variants: [string, Buffer | undefined][] = [
      [
        'another release',
        Buffer.concat([Buffer.from(`re2js@0.0.1:${length}\n`), good.subarray(header.length)]),
      ],
      ['damaged', damaged],
      ['missing', undefined],
    ];
    for (const [name, data] of variants) {
      if (data) writeFileSync(cache, data);
      else rmSync(cache);
      const r = run(install.bin, ['hook', 'claude'], payload);
      expect(r.code, name).toBe(0);
      expect(r.err, name).toBe('');
      // The marker's key depends on the store only: the same original, the same key.
      expect(r.out, name).toBe(expected.out);
    }
    // V8 itself refuses the damaged one (the header matched): the launcher compiled the source.
    writeFileSync(cache, damaged);
    const out = join(tempDir(), 'cache');
    const trained = run(install.bin, ['hook', 'claude'], payload, { CG_BUILD_CODE_CACHE: out });
    expect(trained.err).toBe('cg: code cache rejected (re2js)\n');
    expect(readFileSync(join(out, '..', 're2js.cache'), 'latin1').startsWith(header)).toBe(true);
  });
});
