import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findLanguage, LANGUAGE_NAMES, LANGUAGES, languageOfPath } from '../../../src/code/languages.js';

const require = createRequire(import.meta.url);
const grammars = join(dirname(require.resolve('tree-sitter-wasms/package.json')), 'out');

describe('the language table', () => {
  it('lists the 15 languages, each with a grammar file that tree-sitter-wasms ships', () => {
    expect(LANGUAGE_NAMES).toEqual([
      'go',
      'python',
      'javascript',
      'typescript',
      'tsx',
      'rust',
      'java',
      'c',
      'cpp',
      'ruby',
      'php',
      'csharp',
      'kotlin',
      'swift',
      'scala',
    ]);
    for (const lang of LANGUAGES) {
      expect(existsSync(join(grammars, `tree-sitter-${lang.grammar}.wasm`)), lang.name).toBe(true);
      expect(lang.functions.length, lang.name).toBeGreaterThan(0);
      expect(lang.bodies.length, lang.name).toBeGreaterThan(0);
    }
  });

  it('gives every word (name, alias, extension) to at most one language', () => {
    const owner = new Map<string, string>();
    for (const lang of LANGUAGES) {
      for (const word of new Set([lang.name, lang.grammar, ...lang.aliases])) {
        expect(owner.get(word) ?? lang.name, word).toBe(lang.name);
        owner.set(word, lang.name);
      }
    }
    const ext = new Map<string, string>();
    for (const lang of LANGUAGES) {
      for (const e of lang.extensions) {
        expect(ext.has(e), e).toBe(false);
        ext.set(e, lang.name);
      }
    }
  });

  it('finds a language by name, alias or extension, in any case, with or without a dot', () => {
    const cases: [string, string][] = [
      ['py', 'python'],
      ['golang', 'go'],
      ['rs', 'rust'],
      ['c++', 'cpp'],
      ['cs', 'csharp'],
      ['C#', 'csharp'],
      ['kt', 'kotlin'],
      ['ts', 'typescript'],
      ['js', 'javascript'],
      ['jsx', 'javascript'],
      ['TSX', 'tsx'],
      ['.rb', 'ruby'],
      ['h', 'cpp'],
      ['cc', 'cpp'],
      ['scala', 'scala'],
      ['swift', 'swift'],
      ['php', 'php'],
      ['java', 'java'],
      ['c', 'c'],
    ];
    for (const [word, name] of cases) expect(findLanguage(word)?.name, word).toBe(name);
    expect(findLanguage('elixir')).toBeUndefined();
    expect(findLanguage('')).toBeUndefined();
  });

  it('reads the language of a path from its last extension', () => {
    expect(languageOfPath('/repo/src/x.test.ts')?.name).toBe('typescript');
    expect(languageOfPath('C:\\proj\\Program.cs')?.name).toBe('csharp');
    expect(languageOfPath('lib/spotter.ex')).toBeUndefined();
    expect(languageOfPath('Makefile')).toBeUndefined();
    expect(languageOfPath('.py')).toBeUndefined();
  });
});
