/**
 * Lossless claims are checked, not trusted (DESIGN §1.7), end to end: `format` compacts only whole
 * JSON documents, so a `{ … }` in code, a diff or prose comes out of cg byte for byte, and anything
 * else cg changes carries a marker that expands to the exact input. Checked on the repros, a
 * real git repository's 30-commit diff (which must still apply), and the shared corpus: every
 * source file and every git output, raw and as a Claude Code Read result in an Anthropic body.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTranscript } from '../../src/input/read.js';
import { corpusPath, HAS_CORPUS, tempDir } from '../helpers.js';
import { cg } from './run-cg.js';

const MARKER = /<<cg:([0-9a-f]{16})>>/g;

/** Output equals input, or every change is backed: some marker in it expands to the exact input. */
function expectLosslessOrMarked(input: string, output: string, storeDir: string, what: string) {
  if (output === input) return;
  const keys = [...output.matchAll(MARKER)].map((m) => m[1]!);
  expect(keys.length, `${what}: changed without a marker`).toBeGreaterThan(0);
  const originals = keys.map((k) => cg(['expand', k], { storeDir }).out);
  expect(originals.includes(input), `${what}: no marker expands to the exact input`).toBe(true);
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '',
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'cg',
      GIT_AUTHOR_EMAIL: 'cg@example.com',
      GIT_COMMITTER_NAME: 'cg',
      GIT_COMMITTER_EMAIL: 'cg@example.com',
    },
    maxBuffer: 1 << 28,
  });
}

/** A Claude Code Read result: every line numbered, `     7→text`. */
function numbered(text: string): string {
  return text
    .split('\n')
    .map((l, i) => `${String(i + 1).padStart(6)}→${l}`)
    .join('\n');
}

function anthropicReads(files: { path: string; text: string }[]): string {
  const messages: unknown[] = [{ role: 'user', content: 'read these files' }];
  files.forEach((f, i) => {
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Read', input: { file_path: f.path } }],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: f.text }],
    });
  });
  return JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages });
}

describe('format leaves { … } outside whole JSON documents alone (issue repros)', () => {
  it('passes a diff hunk whose header holds `{` through byte for byte', () => {
    const input = '@@ -1,3 +1,3 @@ function f() {\n }\n-a\n+b\n';
    const r = cg([], { input });
    expect(r.code).toBe(0);
    expect(r.out).toBe(input);
  });

  it('passes a source file read with cg run -- cat through byte for byte', () => {
    const dir = tempDir();
    const source = 'class A {\n}\nfunction g() {\n}\nconst x = [\n];\n';
    writeFileSync(join(dir, 'a.ts'), source);
    const r = cg(['run', '--', 'cat', 'a.ts'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.out).toBe(source);
  });

  it('leaves the same code inside a tool_result alone with --preset safe', () => {
    const source = 'class A {\n}\nfunction g() {\n}\nconst x = [\n];\n';
    const body = anthropicReads([{ path: '/repo/a.ts', text: source }]);
    const plain = anthropicReads([{ path: '/repo/a.ts', text: source }]).replace('"Read"', '"Bash"');
    for (const input of [body, plain]) {
      const r = cg(['--preset', 'safe'], { input });
      expect(r.code).toBe(0);
      expect(readTranscript(r.out, 'anthropic', {}).outputs[0]!.text).toBe(source);
    }
  });

  it('still compacts a whole pretty-printed JSON output (a marker-free, proven rewrite)', () => {
    const input = `${JSON.stringify({ a: [1, 2], b: { c: 'd' } }, null, 2)}\n`;
    const r = cg([], { input });
    expect(r.out).toBe('{"a":[1,2],"b":{"c":"d"}}\n');
  });
});

describe('git diff of a real repository through cg', () => {
  it('comes out marker-free and applying, or with a marker that expands to the exact diff', () => {
    const repo = tempDir();
    git(repo, 'init', '-q');
    const pkg = (i: number) => ({
      name: 'demo',
      version: `1.0.${i}`,
      scripts: { test: 'vitest', build: 'tsc' },
      dependencies: Object.fromEntries(Array.from({ length: 8 }, (_, k) => [`dep-${k}`, `^${k}.${i}.0`])),
      files: ['dist', 'bin'],
    });
    const ts = (i: number) =>
      [
        'export class A {',
        '}',
        `export function g${i}() {`,
        '}',
        'export const xs = [',
        '];',
        `export const config = {`,
        `  "version": ${i},`,
        '  "items": [',
        ...Array.from({ length: 5 }, (_, k) => `    { "id": ${k}, "seen": ${i % (k + 2) === 0} },`),
        '    { "id": 99 }',
        '  ]',
        '};',
        '',
      ].join('\n');
    const allman = (i: number) => `void f${i}()\n{\n}\n\nint main()\n{\n    return ${i};\n}\n`;
    for (let i = 0; i <= 30; i++) {
      writeFileSync(join(repo, 'package.json'), `${JSON.stringify(pkg(i), null, 2)}\n`);
      writeFileSync(join(repo, 'a.ts'), ts(i));
      writeFileSync(join(repo, 'main.c'), allman(i));
      writeFileSync(
        join(repo, `notes-${i % 5}.md`),
        `# Notes ${i}\n\n\`\`\`json\n{\n  "n": ${i}\n}\n\`\`\`\n`,
      );
      git(repo, 'add', '-A');
      git(repo, 'commit', '-q', '-m', `change ${i}`);
    }
    const diff = git(repo, 'diff', 'HEAD~30');
    expect(diff).toContain('@@');
    for (const args of [[], ['--preset', 'safe']]) {
      const storeDir = tempDir();
      const r = cg(args, { input: diff, storeDir });
      expect(r.code).toBe(0);
      if (r.out.match(MARKER)) {
        expectLosslessOrMarked(diff, r.out, storeDir, `git diff | cg ${args.join(' ')}`);
        continue;
      }
      const patch = join(tempDir(), 'out.diff');
      writeFileSync(patch, r.out);
      git(repo, 'checkout', '-q', 'HEAD~30');
      try {
        git(repo, 'apply', '--check', patch);
      } finally {
        git(repo, 'checkout', '-q', '-');
      }
    }
  });
});

describe.skipIf(!HAS_CORPUS)(
  'the corpus through cg: byte-identical, or markers that expand to the input',
  () => {
    const walk = (dir: string): string[] =>
      readdirSync(dir).flatMap((n) => {
        const p = join(dir, n);
        return statSync(p).isDirectory() ? walk(p) : [p];
      });
    const files = HAS_CORPUS
      ? [...walk(corpusPath('code')), ...walk(corpusPath('commands', 'git'))].sort()
      : [];

    it('has source files and git outputs to check', () => {
      expect(files.length).toBeGreaterThan(20);
      expect(files.some((f) => f.includes('/git/'))).toBe(true);
    });

    it.each(files.map((f) => [f.slice(corpusPath().length + 1), f]))('%s as raw text', (_name, file) => {
      const storeDir = tempDir();
      const input = readFileSync(file, 'utf8');
      const r = cg([], { input, storeDir });
      expect(r.code).toBe(0);
      expectLosslessOrMarked(input, r.out, storeDir, file);
    });

    it('every file as a Claude Code Read result in one Anthropic body', () => {
      const storeDir = tempDir();
      const reads = files.map((path) => ({ path, text: numbered(readFileSync(path, 'utf8')) }));
      for (const args of [[], ['--preset', 'safe']]) {
        const r = cg(args, { input: anthropicReads(reads), storeDir });
        expect(r.code).toBe(0);
        const outputs = readTranscript(r.out, 'anthropic', {}).outputs;
        expect(outputs).toHaveLength(reads.length);
        outputs.forEach((o, i) => {
          expectLosslessOrMarked(reads[i]!.text, o.text, storeDir, reads[i]!.path);
        });
      }
    });
  },
);
