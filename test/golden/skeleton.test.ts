/**
 * skeleton on the real source files of the shared corpus (15 languages): for every file,
 * `--components skeleton --lang <ext>` keeps every top-level function/method/class name the file
 * declares (both parsed with tree-sitter), cuts at least half of the tokens of a file over 300
 * lines, and its marker expands to the exact file — through the engine with a memory store, and for
 * a few files through the built CLI. One outline per language is kept as a golden file.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findLanguage } from '../../src/code/languages.js';
import { compactText } from '../../src/engine.js';
import { markerKeys } from '../../src/store/marker.js';
import { createTokens } from '../../src/tokens.js';
import { cg } from '../e2e/run-cg.js';
import { CORPUS, corpusPath, HAS_CORPUS, tempDir } from '../helpers.js';
import { MemoryStore } from '../memory-store.js';
import { declaredNames, missingNames } from '../unit/code/names.js';

const tokens = createTokens('o200k');
const MARKER_LINE = /\n?<<cg:[0-9a-f]{16}>>[^\n]*\n?$/;

function files(): { dir: string; name: string; ext: string }[] {
  if (!HAS_CORPUS) return [];
  return readdirSync(corpusPath('code'))
    .sort()
    .flatMap((dir) =>
      readdirSync(corpusPath('code', dir))
        .sort()
        .map((name) => ({ dir, name, ext: name.slice(name.lastIndexOf('.') + 1) })),
    );
}

describe.skipIf(!HAS_CORPUS)(`skeleton on the source files of ${CORPUS}/code`, () => {
  const all = files();

  it('covers the 15 languages', () => {
    expect(new Set(all.map((f) => findLanguage(f.ext)?.name)).size).toBe(15);
  });

  for (const { dir, name, ext } of all) {
    it(`${dir}/${name}: keeps every top-level name, cuts ≥ 50% of a file over 300 lines, expands exactly`, async () => {
      const text = readFileSync(corpusPath('code', dir, name), 'utf8');
      const store = new MemoryStore();
      const r = await compactText(text, { components: 'skeleton', lang: ext, store, tokens, format: 'text' });
      expect(r.changed).toBe(true);
      const keys = markerKeys(r.output);
      expect(keys).toHaveLength(1);
      expect(store.entries.get(keys[0]!)?.toString('utf8')).toBe(text);

      const lang = findLanguage(ext)!;
      const outline = r.output.replace(MARKER_LINE, '');
      const before = await declaredNames(lang, text);
      expect(before.length).toBeGreaterThan(0);
      expect(missingNames(before, await declaredNames(lang, outline))).toEqual([]);

      const lines = text.split('\n').length;
      const [a, b] = [await tokens.count(text), await tokens.count(r.output)];
      if (lines > 300) expect(b, `${b} of ${a} tokens kept`).toBeLessThanOrEqual(a / 2);
      else expect(b).toBeLessThan(a);
    });
  }

  it('outlines files cut off mid-function by head and sed -n, every kept line as it was', async () => {
    const cases = [
      ['rust', 'rtk_gain.rs', 'head -n 200 src/gain.rs', 200],
      ['go', 'errorformat.go', "sed -n '1,300p' errorformat.go", 300],
      ['php', 'psr7_Uri.php', 'head -300 src/Uri.php', 300],
      ['csharp', 'Newtonsoft_JsonConvert.cs', 'head -n 300 JsonConvert.cs', 300],
      ['java', 'gson_Gson.java', "sed -n '1,400p' Gson.java", 400],
      ['cpp', 'fmt_os.cc', 'head -n 200 src/os.cc', 200],
    ] as const;
    for (const [dir, name, command, n] of cases) {
      const full = readFileSync(corpusPath('code', dir, name), 'utf8');
      const text = `${full.split('\n').slice(0, n).join('\n')}\n`;
      const store = new MemoryStore();
      const r = await compactText(text, { components: 'skeleton', command, store, tokens });
      expect(r.changed, name).toBe(true);
      expect(store.entries.get(markerKeys(r.output)[0]!)?.toString('utf8')).toBe(text);
      expect(await tokens.count(r.output)).toBeLessThan((await tokens.count(text)) * 0.7);
      const original = new Set(text.split('\n'));
      for (const line of r.output.replace(MARKER_LINE, '').split('\n')) {
        if (!original.has(line)) expect(line, name).toMatch(/\{ … \}|…/);
      }
    }
  });

  it('keeps one outline per language as a golden file', async () => {
    const seen = new Set<string>();
    for (const { dir, name, ext } of all) {
      if (seen.has(dir)) continue;
      seen.add(dir);
      const text = readFileSync(corpusPath('code', dir, name), 'utf8');
      const r = await compactText(text, {
        components: 'skeleton',
        lang: ext,
        store: new MemoryStore(),
        tokens,
      });
      await expect(r.output.replace(MARKER_LINE, '\n')).toMatchFileSnapshot(
        `./__golden__/skeleton/${name}.txt`,
      );
    }
  });

  it('gives the same outline through the built CLI, and `cg expand` gives the file back byte for byte', async () => {
    const storeDir = tempDir('cg-skeleton-');
    for (const [dir, name, args] of [
      ['python', 'gitpython_diff.py', ['--lang', 'py']],
      ['rust', 'rtk_gain.rs', ['--command', 'cat src/gain.rs']],
      ['go', 'errorformat.go', ['--command', "sed -n '1,700p' errorformat.go"]],
    ] as const) {
      const text = readFileSync(corpusPath('code', dir, name), 'utf8');
      const run = cg(['--components', 'skeleton', ...args], { input: text, storeDir });
      expect(run.code, run.stderr).toBe(0);
      const engine = await compactText(text, {
        components: 'skeleton',
        store: new MemoryStore(),
        tokens,
        ...(args[0] === '--lang' ? { lang: args[1] } : { command: args[1] }),
      });
      expect(run.out).toBe(engine.output);
      const [key] = markerKeys(run.out);
      const back = cg(['expand', key!], { storeDir });
      expect(back.code).toBe(0);
      expect(back.stdout.equals(Buffer.from(text, 'utf8'))).toBe(true);
    }
  });
});

describe('tree-sitter stays unloaded until code is met, and outlining loads no tokenizer', () => {
  // A module-resolution hook that reports every tree-sitter and tokenizer import on stderr.
  const dir = tempDir('cg-sk-probe-');
  const probe = join(dir, 'probe.mjs');
  writeFileSync(
    probe,
    "export async function resolve(s, c, next) { if (/tree-sitter|gpt-tokenizer/.test(s)) process.stderr.write('LOADED ' + s + '\\n'); return next(s, c); }\n",
  );
  const env = { NODE_OPTIONS: `--no-warnings --experimental-loader=${pathToFileURL(probe).href}` };

  it('`echo hi | cg` and the coding preset on plain text never import web-tree-sitter (so no grammar)', () => {
    for (const args of [[], ['--preset', 'coding']]) {
      const r = cg(args, { input: 'hi\n', env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.out).toBe('hi\n');
      expect(r.stderr).not.toContain('LOADED');
    }
  });

  it('loads web-tree-sitter once code is there to outline', () => {
    const code = `package p\n\nfunc F(xs []int) int {\n${'\tprintln("a long enough body for the default threshold", xs)\n'.repeat(8)}\treturn 0\n}\n`;
    const r = cg(['--components', 'skeleton', '--lang', 'go'], { input: code, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('LOADED web-tree-sitter');
    expect(r.out).toContain('func F(xs []int) int { … }');
  });

  it.skipIf(!HAS_CORPUS)(
    'outlines a source file without loading the tokenizer vocabulary: decisions count its pieces',
    () => {
      const text = readFileSync(corpusPath('code', 'go', 'errorformat.go'), 'utf8');
      const r = cg(['--components', 'skeleton', '--lang', 'go'], { input: text, env });
      expect(r.code, r.stderr).toBe(0);
      expect(markerKeys(r.out)).toHaveLength(1);
      expect(r.stderr).toContain('LOADED web-tree-sitter');
      expect(r.stderr).not.toMatch(/LOADED gpt-tokenizer\/encoding\//);
    },
  );
});
