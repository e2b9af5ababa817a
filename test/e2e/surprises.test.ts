/**
 * No silent surprises (issue 28): each case here used to succeed quietly or fail in a way that said
 * nothing useful. Every one now says what happened in one line, with the exit code a usage or
 * config error has (2) whatever the input, and a filter never eats its input.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { BIN, cg, seq } from './run-cg.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dir(): string {
  const d = tempDir('cg-surprise-');
  made.push(d);
  return d;
}

/** A shell command line in `cwd`, with cg as "$CG" and a home, store and ledger of its own. */
function sh(command: string, cwd: string) {
  const r = spawnSync('sh', ['-c', command], {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: cwd,
      XDG_CONFIG_HOME: join(cwd, '.config'),
      CG_STORE_DIR: join(cwd, 'store'),
      CG_STATE_DIR: join(cwd, 'state'),
      CG: BIN,
    },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A command run with a terminal on stdin (script(1)); its output and exit code, or undefined without script. */
function onTerminal(command: string, cwd: string): { text: string; code: number } | undefined {
  if (spawnSync('sh', ['-c', 'command -v script']).status !== 0) return undefined;
  const r = spawnSync('script', ['-qec', `${command}; echo "rc=$?"`, '/dev/null'], {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '',
      HOME: cwd,
      CG_STORE_DIR: join(cwd, 'store'),
      CG_STATE_DIR: join(cwd, 'state'),
    },
    // Only a guard against a hang (the behaviour under test is not waiting at all); never a measure.
    timeout: 120_000,
  });
  const text = (r.stdout ?? '').replace(/\r/g, '');
  return { text, code: Number(/rc=(\d+)/.exec(text)?.[1] ?? -1) };
}

const opts = () => ({ storeDir: join(dir(), 'store') });

describe('output into a regular file', () => {
  it('says in one stderr line that it went raw and how to compact anyway, unless --quiet', () => {
    const d = dir();
    writeFileSync(join(d, 'in.txt'), seq(100_000));
    const r = sh('node "$CG" < in.txt > out.txt', d);
    expect(r.code).toBe(0);
    expect(readFileSync(join(d, 'out.txt'), 'utf8')).toBe(seq(100_000));
    expect(r.stderr).toMatch(
      /^cg: stdout is a regular file: writing it raw, .*--for-model or CG_READER=model.*--quiet[^\n]*\n$/,
    );
    expect(sh('node "$CG" --quiet < in.txt > out.txt', d).stderr).toBe('');
    expect(sh('node "$CG" < /dev/null > out.txt', d).stderr).toBe('');
    expect(sh('node "$CG" --for-model < in.txt > out.txt', d).stderr).toBe('');
  });

  it('says the same for cg run, whose exit code stays the command’s', () => {
    const d = dir();
    const r = sh('node "$CG" run -- sh -c "seq 1 100000; exit 3" > out.txt', d);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^cg: stdout is a regular file: writing it raw, [^\n]*--quiet[^\n]*\n$/);
    expect(sh('node "$CG" run --quiet -- seq 1 100000 > out.txt', d).stderr).toBe('');
    expect(readFileSync(join(d, 'out.txt'), 'utf8')).toBe(seq(100_000));
  });
});

describe('a terminal on stdin', () => {
  it('bare cg prints a short usage and exits 2 instead of waiting for input', () => {
    const r = onTerminal(`node "${BIN}"`, dir());
    if (!r) return;
    expect(r.code).toBe(2);
    expect(r.text).toMatch(/^cg: nothing is piped in \(stdin is a terminal\)/);
    expect(r.text).toContain('cmd | cg');
    expect(r.text).toContain('cg run -- cmd');
  });

  it('cg mcp says how to register it with each client instead of waiting', () => {
    const r = onTerminal(`node "${BIN}" mcp`, dir());
    if (!r) return;
    expect(r.code).toBe(2);
    expect(r.text).toMatch(/^cg mcp: an MCP server on stdio/);
    expect(r.text).toMatch(/Claude Code: +claude mcp add --scope user cg -- .*\bmcp\n/);
    expect(r.text).toMatch(/Codex: +codex mcp add cg -- .*\bmcp\n/);
    expect(r.text).toMatch(/Gemini CLI: +gemini mcp add --scope user cg .*\bmcp\n/);
  });
});

describe('errors that must not depend on the input or on where stdout goes', () => {
  const mistakes: [string, string[], RegExp][] = [
    ['an unknown preset', ['--preset', 'nosuch'], /^cg: unknown preset "nosuch" \(known: /],
    ['a missing config file', ['--config', '/nonexist.yaml'], /^cg: config file not found: \/nonexist\.yaml/],
    ['a missing filter file', ['--filters', '/nonexist.yaml'], /^cg: --filters: filter file not found/],
    [
      'an unknown tokenizer',
      ['--tokenizer', 'o20k'],
      /^cg: --tokenizer: unknown tokenizer "o20k" \(did you mean o200k\?\)/,
    ],
    ['an unknown option', ['--bogus'], /^cg: unknown option '--bogus'/],
  ];
  for (const [what, args, message] of mistakes) {
    it(`${what}: exit 2 with the input passed through, small or large, into a pipe or a file`, () => {
      for (const n of [2, 100_000]) {
        const r = cg(args, { input: seq(n), ...opts() });
        expect([r.code, r.out === seq(n)], `${n} lines`).toEqual([2, true]);
        expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
        expect(r.stderr).toMatch(message);
      }
      const d = dir();
      writeFileSync(join(d, 'in.txt'), seq(2));
      const f = sh(`node "$CG" ${args.join(' ')} < in.txt > out.txt`, d);
      expect(f.code).toBe(2);
      expect(f.stderr).toMatch(message);
      expect(readFileSync(join(d, 'out.txt'), 'utf8')).toBe(seq(2));
    });
  }

  it('cg run with a missing filter file still prints the command’s output and keeps its code', () => {
    const r = cg(['run', '--filters', '/nonexist.yaml', '--', 'sh', '-c', 'seq 3; exit 4'], opts());
    expect(r.code).toBe(4);
    expect(r.out).toBe(seq(3));
    expect(r.stderr).toMatch(/filter file not found/);
  });
});

describe('cg expand --lines past the end', () => {
  it('says how many lines the original has, exit 1, instead of printing nothing', () => {
    const o = opts();
    const key = /<<cg:([0-9a-f]{16})>>/.exec(cg(['--for-model'], { input: seq(100_000), ...o }).out)?.[1];
    expect(key).toBeDefined();
    const past = cg(['expand', key!, '--lines', '999999-'], o);
    expect([past.code, past.out]).toEqual([1, '']);
    expect(past.stderr).toBe('cg: --lines 999999-: the original has 100000 lines\n');
    const tail = cg(['expand', key!, '--lines', '99999-200000'], o);
    expect([tail.code, tail.out]).toEqual([0, '99999\n100000\n']);
  });
});

describe('cg filters test with an input that cannot be read', () => {
  it('says why in one line, exit 2', () => {
    const r = cg(['filters', 'test', 'pytest', '/nonexist'], opts());
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('cg: filters test: cannot read /nonexist: no such file\n');
    const d = cg(['filters', 'test', 'pytest', '/'], opts());
    expect(d.stderr).toBe('cg: filters test: cannot read /: it is a directory\n');
  });
});

describe('CG_HOOK_DEBUG', () => {
  it('says what a payload lacked', () => {
    const say = (input: string, host = 'claude') =>
      cg(['hook', host], { input, env: { CG_HOOK_DEBUG: '1' }, ...opts() });
    const r = say('{}');
    expect([r.code, r.out]).toEqual([0, '']);
    expect(r.stderr).toBe(
      'cg hook: left alone: the payload has no hook_event_name (cg hook claude answers PostToolUse or PreToolUse)\n',
    );
    expect(say('{"hook_event_name":"PreToolUse"}').stderr).toBe(
      'cg hook: left alone: not a foreground Bash call\n',
    );
    expect(say('{"hook_event_name":"PostToolUse","tool_name":"Bash"}').stderr).toBe(
      'cg hook: left alone: the PostToolUse payload has no tool_response\n',
    );
    expect(say('not json').stderr).toMatch(/^cg hook: left alone: the payload is not JSON \(/);
    expect(say('').stderr).toBe(
      'cg hook: left alone: no payload on stdin (the host sends one JSON object per call)\n',
    );
  });
});

describe('a mistyped name', () => {
  it.each([
    [
      ['init', 'claud'],
      'init: unknown target "claud" (did you mean claude?) (expected claude, codex, gemini, opencode, agents-md)',
    ],
    [
      ['hook', 'gemni'],
      'hook: unknown host "gemni" (did you mean gemini?) (expected claude, codex, gemini, opencode)',
    ],
    [['completion', 'zhs'], 'completion: unknown shell "zhs" (did you mean zsh?) (expected bash, zsh, fish)'],
    [
      ['store', 'inf'],
      'store: unknown action "inf" (did you mean info?) (expected path, info, prune, clear)',
    ],
    [
      ['filters', 'lst'],
      'filters: unknown action "lst" (did you mean list?) (expected list, show, verify, test, trust, untrust)',
    ],
    [['filters', 'show', 'pytst'], 'no filter named "pytst" (did you mean pytest?) (see cg filters list)'],
    [['stast'], "unknown command 'stast' (did you mean stats?)"],
  ])('cg %j gets a did-you-mean and exit 2', (args, message) => {
    const r = cg(args, opts());
    expect([r.code, r.stderr]).toEqual([2, `cg: ${message}\n`]);
  });

  it('a preset or component name gets one too, and the input still passes through', () => {
    const preset = cg(['--preset', 'saf'], { input: 'hello\n', ...opts() });
    expect([preset.code, preset.out]).toEqual([2, 'hello\n']);
    expect(preset.stderr).toMatch(/^cg: unknown preset "saf" \(did you mean safe\?\) \(known: /);
    const component = cg(['-c', 'colapse'], { input: 'hello\n', ...opts() });
    expect([component.code, component.out]).toEqual([2, 'hello\n']);
    expect(component.stderr).toMatch(
      /^cg: unknown component "colapse" \(did you mean collapse\?\) \(available: /,
    );
  });
});
