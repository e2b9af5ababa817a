import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { BIN, cg, cgAsync, seq } from './run-cg.js';

const MARKER = /<<cg:([0-9a-f]{16})>>/g;
const keysIn = (text: string) => [...text.matchAll(MARKER)].map((m) => m[1]!);

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
}

describe('cg on a pipe', () => {
  it('folds seq 1 200000 to head, one folded template and tail, with a marker that expands to the exact input', () => {
    const store = tempDir();
    const input = seq(200_000);
    const r = cg([], { input, storeDir: store });
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines.slice(0, 3)).toEqual(['1', '[×200000] {1..200000}', '2']);
    expect(lines.at(-2)).toBe('200000');
    const [key] = keysIn(r.out);
    expect(lines.at(-1)).toBe(
      `[200000 lines, 10 shown, 1 templates folded] <<cg:${key}>> [full output: cg expand ${key}]`,
    );
    const back = cg(['expand', key!], { storeDir: store });
    expect(back.code).toBe(0);
    expect(back.stdout.equals(Buffer.from(input))).toBe(true);
  });

  it('folds what a filter kept when it is still long, under one marker that expands to the exact input', () => {
    const store = tempDir();
    // A filter that drops only the lines it knows, as a hand-written filter often does.
    writeFileSync(
      join(store, '..', 'keeps-all.yaml'),
      "schema_version: 1\nfilters:\n  keeps-all:\n    match: '^\\$ mytool'\n    strip_lines_matching: ['^noise$']\n",
    );
    const rows = Array.from({ length: 20_000 }, (_, i) => `row ${i} of the report, value ${i * 7}`);
    const input = `${rows.map((r, i) => (i % 10 === 0 ? `noise\n${r}` : r)).join('\n')}\n`;
    const args = ['--filters', join(store, '..', 'keeps-all.yaml'), '--command', 'mytool', '-v'];
    const r = cg(args, { input, storeDir: store });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\[cmdfilter\] stdin: rewrote/);
    expect(r.stderr).toMatch(/\[fold\] stdin: rewrote/);
    expect(r.out.length).toBeLessThan(input.length / 20);
    const keys = keysIn(r.out);
    expect(keys).toHaveLength(1);
    expect(cg(['expand', keys[0]!], { storeDir: store }).out).toBe(input);
    // And cg on that output changes nothing.
    expect(cg(args, { input: r.out, storeDir: store }).out).toBe(r.out);
  });

  it("names every file of a long grep: a grouping filter's headers are not folded again", () => {
    const store = tempDir();
    // 100 files of 6 hits: grouped at 3 hits a file that is far over fold's budget, yet every file
    // must stay named (fold would fold the headers into `[×N] {a|b|+K}`).
    const files = Array.from({ length: 100 }, (_, i) => `src/module_${i}/handler_${i}.ts`);
    const input = files
      .flatMap((f, i) => [3, 9, 14, 20, 31, 40].map((n) => `${f}:${n}:  return compute(${i}, ${n});`))
      .join('\n');
    const args = ['--command', 'grep -rn return src', '-v'];
    const r = cg(args, { input: `${input}\n`, storeDir: store });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\[cmdfilter\] stdin: rewrote .*filter grep: 600 → 500 lines\)/);
    expect(r.stderr).not.toMatch(/\[fold\] stdin: rewrote/);
    for (const f of files) expect(r.out).toContain(`${f} (6 hits):`);
    expect(r.out.length).toBeLessThan(input.length / 2);
    const keys = keysIn(r.out);
    expect(keys).toHaveLength(1);
    expect(cg(['expand', keys[0]!], { storeDir: store }).out).toBe(`${input}\n`);
    expect(cg(args, { input: r.out, storeDir: store }).out).toBe(r.out);
  });

  it("keeps every location of a long tsc run: a grouped error's list is not cut by fold", () => {
    const store = tempDir();
    // 400 errors of four kinds, as tsc 5 prints them: grouped, the lists are lines over fold's
    // max_line_chars, which fold would cut in the middle.
    const messages = [
      "error TS2322: Type 'string' is not assignable to type 'number'.",
      "error TS2304: Cannot find name 'undefinedName'.",
      'error TS2554: Expected 1 arguments, but got 2.',
      "error TS2362: The left-hand side of an arithmetic operation must be of type 'any', 'number', 'bigint' or an enum type.",
    ];
    const locations = Array.from({ length: 400 }, (_, i) => `src/a.ts(${i + 1},${7 + (i % 4) * 9})`);
    const input = `${locations.map((l, i) => `${l}: ${messages[i % 4]}`).join('\n')}\n`;
    const r = cg(['--command', 'npx tsc --noEmit', '-v'], { input, storeDir: store });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\[cmdfilter\] stdin: rewrote .*filter tsc: 400 → 4 lines/);
    expect(r.stderr).not.toMatch(/\[fold\] stdin: rewrote/);
    for (const l of locations) expect(r.out).toContain(l);
    expect(cg(['expand', keysIn(r.out)[0]!], { storeDir: store }).out).toBe(input);
  });

  it('keeps every changed line of a git diff the filter kept: fold does not template it', () => {
    const store = tempDir();
    // 12 files, a hunk each of 30 added and 10 removed lines: ~14 KB, over fold's 2,000 tokens and
    // under cmdfilter's max_tokens, so what the git-diff filter kept is final.
    const file = (f: number) => [
      `diff --git a/src/m${f}.ts b/src/m${f}.ts`,
      `index ${'1a2b3c4'}..${'5d6e7f8'} 100644`,
      `--- a/src/m${f}.ts`,
      `+++ b/src/m${f}.ts`,
      `@@ -10,12 +10,32 @@ export function run${f}() {`,
      '   const start = Date.now();',
      ...Array.from({ length: 10 }, (_, j) => `-  const old_${f}_${j} = legacy(${j});`),
      ...Array.from({ length: 30 }, (_, j) => `+  const value_${f}_${j} = compute(${f}, ${j});`),
      '   return start;',
    ];
    const input = `${Array.from({ length: 12 }, (_, f) => file(f).join('\n')).join('\n')}\n`;
    const r = cg(['--command', 'git diff', '-v'], { input, storeDir: store });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/\[fold\] stdin: rewrote/);
    for (const line of input.split('\n').filter((l) => /^[-+] /.test(l))) expect(r.out).toContain(line);
  });

  it('is idempotent: cg on its own output changes nothing', () => {
    const store = tempDir();
    const once = cg([], { input: seq(50_000), storeDir: store });
    const twice = cg([], { input: once.stdout, storeDir: store });
    expect(twice.out).toBe(once.out);
  });

  it('passes small output, /bin/ls and binary input through byte for byte', () => {
    const ls = execFileSync('/bin/ls', ['-la', '/']);
    expect(cg([], { input: ls }).stdout.equals(ls)).toBe(true);
    const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0xff, 0xfe, 10]);
    expect(cg([], { input: binary }).stdout.equals(binary)).toBe(true);
    const latin1 = Buffer.concat([Buffer.from(seq(100_000)), Buffer.from([0xe9, 10])]);
    expect(cg([], { input: latin1 }).stdout.equals(latin1)).toBe(true);
  });

  it('passes everything through with CG_DISABLE=1', () => {
    const input = seq(100_000);
    const r = cg([], { input, env: { CG_DISABLE: '1' } });
    expect(r.code).toBe(0);
    expect(r.out).toBe(input);
  });

  it('writes raw output when stdout is a regular file', () => {
    const dir = tempDir();
    const file = join(dir, 'out.txt');
    const input = seq(100_000);
    writeFileSync(join(dir, 'in.txt'), input);
    execFileSync('sh', ['-c', `node "${process.cwd()}/bin/cg.js" < in.txt > out.txt`], {
      cwd: dir,
      env: { ...process.env, CG_STORE_DIR: join(dir, 'store') },
    });
    expect(readFileSync(file, 'utf8')).toBe(input);
  });

  it('still exits 0 with an unwritable store and applies only lossless components', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), 'not a directory');
    const storeDir = join(dir, 'file', 'store');
    const input = `${JSON.stringify({ a: [1, 2, 3], b: { c: 'd' } }, null, 2)}\n${seq(100_000)}`;
    const r = cg(['--verbose'], { input, storeDir });
    expect(r.code).toBe(0);
    expect(keysIn(r.out)).toEqual([]);
    expect(r.out.startsWith('{"a":[1,2,3],"b":{"c":"d"}}\n1\n2\n')).toBe(true);
    expect(r.out.length).toBeLessThan(input.length);
    expect(r.stderr).toMatch(/store not writable/);
  });

  it('refuses a read-only store directory the same way when permissions apply to this user', () => {
    if (process.getuid?.() === 0) return; // root ignores permission bits; the ENOTDIR case above covers it
    const dir = tempDir();
    const storeDir = join(dir, 'store');
    mkdirSync(storeDir);
    chmodSync(storeDir, 0o555);
    const r = cg([], { input: seq(100_000), storeDir });
    expect(r.code).toBe(0);
    expect(keysIn(r.out)).toEqual([]);
  });

  it('keeps the store consistent with eight cg processes at once on different and identical inputs', async () => {
    const store = tempDir();
    const inputs = Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? seq(150_000) : seq(150_000 + i)));
    const runs = await Promise.all(inputs.map((input) => cgAsync([], { input, storeDir: store })));
    for (const [i, r] of runs.entries()) {
      expect(r.code).toBe(0);
      const [key] = keysIn(r.out);
      const back = cg(['expand', key!], { storeDir: store });
      expect(back.out).toBe(inputs[i]);
    }
    expect(walk(store).filter((f) => /tmp/.test(f.slice(store.length)))).toEqual([]);
  });
});

describe('cg expand', () => {
  it('refuses paths and malformed keys with a clear message and exit 2', () => {
    const a = cg(['expand', '../../etc/passwd']);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/^cg: expand: not a cg key: "\.\.\/\.\.\/etc\/passwd"/);
    const b = cg(['expand', 'cg:zz']);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/not a cg key/);
    expect(a.stdout.length + b.stdout.length).toBe(0);
  });

  it('says a missing key expired or was never stored, and exits 1', () => {
    const r = cg(['expand', '0123456789abcdef']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^cg: 0123456789abcdef: not in the store at .* \(it expired or was never stored here\); re-run the command/,
    );
  });

  it('accepts markers in text on stdin and prints one labelled section per key', () => {
    const store = tempDir();
    const a = cg([], { input: seq(60_000), storeDir: store });
    const b = cg([], { input: seq(70_000), storeDir: store });
    const r = cg(['expand'], { input: `${a.out}\n${b.out}`, storeDir: store });
    expect(r.code).toBe(0);
    const [ka] = keysIn(a.out);
    const [kb] = keysIn(b.out);
    expect(r.out).toBe(`=== cg expand ${ka} ===\n${seq(60_000)}=== cg expand ${kb} ===\n${seq(70_000)}`);
  });

  it('gives a slice with --lines and numbered matches with --grep', () => {
    const store = tempDir();
    const [key] = keysIn(cg([], { input: seq(100_000), storeDir: store }).out);
    expect(cg(['expand', `<<cg:${key!.toUpperCase()}>>`, '--lines', '99999-'], { storeDir: store }).out).toBe(
      '99999\n100000\n',
    );
    expect(cg(['expand', `cg:${key}`, '--grep', '^7777$'], { storeDir: store }).out).toBe('7777:7777\n');
  });
});

describe('cg CLI surface', () => {
  it('reads a non-blocking stdin pipe completely (falls back from sync reads on EAGAIN)', () => {
    const script = [
      'import os, fcntl, subprocess, sys, time',
      'r, w = os.pipe()',
      'fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_NONBLOCK)',
      'p = subprocess.Popen([sys.argv[1], sys.argv[2], "--no-store"], stdin=r, stdout=subprocess.PIPE)',
      'os.close(r)',
      'time.sleep(0.3)',
      "os.write(w, b'first\\n'); time.sleep(0.1); os.write(w, b'second\\n'); os.close(w)",
      'out, _ = p.communicate()',
      'sys.stdout.write(out.decode()); sys.exit(p.returncode)',
    ].join('\n');
    let out: string;
    try {
      // Its own state directory: a run's ledger is the test's, not the user's.
      const env = { ...process.env, CG_STATE_DIR: join(tempDir(), 'state') };
      out = execFileSync('python3', ['-c', script, process.execPath, BIN], { encoding: 'utf8', env });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // no python3 on this machine
      throw err;
    }
    expect(out).toBe('first\nsecond\n');
  });

  it('ends quietly with exit 0 when its reader closes the pipe early', () => {
    const err = join(tempDir(), 'stderr');
    const both = execFileSync(
      'bash',
      [
        '-c',
        `set -o pipefail; seq 1 300000 | node "${BIN}" -p off 2>"${err}" | head -n 1 >/dev/null; echo $?`,
      ],
      {
        encoding: 'utf8',
      },
    );
    expect(both.trim()).toBe('0');
    expect(readFileSync(err, 'utf8')).toBe('');
  });

  it('prints version and help with examples, exit 0', () => {
    expect(cg(['--version']).out.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const help = cg(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/Examples:/);
    expect(cg(['compress', '--help']).out).toMatch(/--no-store/);
  });

  it('exits 2 with one line for usage and config errors', () => {
    const a = cg(['--bogus']);
    expect(a.code).toBe(2);
    expect(a.stderr.trim().split('\n')).toHaveLength(1);
    expect(a.stderr).toMatch(/^cg: unknown option '--bogus'/);
    const b = cg(['--components', 'nope'], { input: 'x' });
    expect(b.code).toBe(2);
    // The list grows as components land: it names every registered one, starting with format.
    expect(b.stderr).toMatch(
      /^cg: unknown component "nope" \(available: format, toon, [a-z_, ]*collapse[a-z_, ]*\)\n$/,
    );
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.yaml'), 'components:\n  collapse:\n    head_lines: x\n');
    const c = cg(['--config', join(dir, 'bad.yaml')], { input: 'hello' });
    expect(c.code).toBe(2);
    expect(c.stderr).toBe(
      `cg: ${join(dir, 'bad.yaml')}: components.collapse.head_lines: expected an integer ≥ 0, got "x"\n`,
    );
    const d = cg(['--format', 'anthropic'], { input: 'plain text' });
    expect(d.code).toBe(2);
    expect(d.stderr.split('\n')[0]).toMatch(/^cg: input is not/);
  });

  it('says what each component did under --verbose and --explain', () => {
    const r = cg(['--verbose', '--explain'], { input: seq(100_000) });
    expect(r.stderr).toMatch(/text input; preset shell: toon, format, (?:[a-z_]+, )*fold, collapse\n/);
    expect(r.stderr).toMatch(/\[format\] stdin: skipped/);
    expect(r.stderr).toMatch(/\[fold\] stdin: rewrote \d+ → \d+ bytes, loss whole \(100000 lines → 13: /);
    expect(r.stderr).toMatch(/\[collapse\] stdin: skipped: already has a marker/);
    expect(r.stderr).toMatch(/component\s+rewrote\s+skipped/);
    expect(r.stderr).toMatch(/tokens \(o200k\): \d+ → \d+, saved \d+/);
  });

  it('does lossless work only with --no-store and writes nothing to the store', () => {
    const store = tempDir();
    const r = cg(['--no-store'], { input: seq(100_000), storeDir: join(store, 's') });
    expect(r.out).toBe(seq(100_000));
    expect(existsSync(join(store, 's'))).toBe(false);
  });

  it('reports the store location and contents', () => {
    const store = tempDir();
    cg([], { input: seq(100_000), storeDir: store });
    expect(cg(['store', 'path'], { storeDir: store }).out.trim()).toBe(store);
    const info = JSON.parse(cg(['store', 'info', '--json'], { storeDir: store }).out);
    expect(info.entries).toBe(1);
    expect(cg(['store', 'clear'], { storeDir: store }).code).toBe(0);
    expect(JSON.parse(cg(['store', 'info', '--json'], { storeDir: store }).out).entries).toBe(0);
    expect(cg(['store', 'bogus'], { storeDir: store }).code).toBe(2);
  });
});
