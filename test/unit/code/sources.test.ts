import { describe, expect, it } from 'vitest';
import { findLanguage } from '../../../src/code/languages.js';
import { fencedRegions, fileOfCommand, wholeFile, wholeRegion } from '../../../src/code/sources.js';
import { output } from '../../helpers.js';

const python = findLanguage('python')!;

describe('fileOfCommand', () => {
  it('finds the one file a printing command prints', () => {
    const cases: [string, string | undefined][] = [
      ['cat src/x.py', 'src/x.py'],
      ["sed -n '1,200p' x.go", 'x.go'],
      ['sed -n -e 10,20p x.go', 'x.go'],
      ['head -n 300 x.rs', 'x.rs'],
      ['head -300 x.rs', 'x.rs'],
      ['tail --lines 40 "dir with space/x.rb"', 'dir with space/x.rb'],
      ['cd repo && cat lib/a.ts', 'lib/a.ts'],
      ['cat x.py | head -50', 'x.py'],
      ['/bin/cat -n x.c 2>/dev/null', 'x.c'],
      ['LC_ALL=C cat x.java', 'x.java'],
      ['bat --plain -l rust x.rs', 'x.rs'],
    ];
    for (const [command, file] of cases) expect(fileOfCommand(command), command).toBe(file);
  });

  it('refuses commands that print something else or several files', () => {
    for (const command of [
      'cat a.py b.py',
      'grep -n def x.py',
      'cat x.py | grep def',
      'python x.py',
      'cat',
      'sed -n 1,20p',
      'head -n 5 x.py | cat y.py',
    ]) {
      expect(fileOfCommand(command), command).toBeUndefined();
    }
  });
});

describe('wholeFile', () => {
  it('takes --lang first, then a read tool path, then the command', () => {
    expect(wholeFile(output('x'), 'py')).toMatchObject({ kind: 'file', via: '--lang', lang: python });
    expect(wholeFile(output('x'), 'elixir')).toEqual({ kind: 'unknown', word: 'elixir' });
    expect(wholeFile(output('x', { path: '/a/b.go', toolName: 'Read' }), undefined)).toMatchObject({
      kind: 'file',
      via: 'path',
    });
    expect(wholeFile(output('     1→package main', { path: '/a/b.go' }), undefined)).toMatchObject({
      via: 'path',
    });
    expect(wholeFile(output('x', { command: 'cat m.kt' }), undefined)).toMatchObject({ via: 'command' });
  });

  it('does not take a path alone for a file read: an Edit or Grep result names one too', () => {
    expect(
      wholeFile(
        output('The file /a/b.go has been updated.', { path: '/a/b.go', toolName: 'Edit' }),
        undefined,
      ),
    ).toBe(undefined);
    expect(wholeFile(output('x', { path: '/a/notes.md', toolName: 'Read' }), undefined)).toBeUndefined();
  });
});

describe('wholeRegion', () => {
  it('splits a numbered read into prefixes and code, leaving what follows it outside', () => {
    const text =
      '     1→def f():\n     2→    return 1\n     3→\n\n<system-reminder>\nbe careful\n</system-reminder>\n';
    const r = wholeRegion(text, python);
    expect(r.numbered).toBe(true);
    expect(r.prefixes).toEqual(['     1→', '     2→', '     3→']);
    expect(r.code).toBe('def f():\n    return 1\n');
    expect(text.slice(r.start, r.end)).toBe(r.source);
    expect(text.slice(r.end)).toBe('\n\n<system-reminder>\nbe careful\n</system-reminder>\n');
  });

  it("reads cat -n's tab-separated numbers too", () => {
    const r = wholeRegion('     1\tx = 1\n     2\ty = 2', python);
    expect(r.prefixes).toEqual(['     1\t', '     2\t']);
    expect(r.code).toBe('x = 1\ny = 2');
  });

  it('takes a plain output whole, prefixes empty', () => {
    const r = wholeRegion('a\nb\n', python);
    expect(r).toMatchObject({ start: 0, end: 4, code: 'a\nb\n', numbered: false, prefixes: ['', '', ''] });
  });
});

describe('fencedRegions', () => {
  it('finds fenced blocks of known languages and names the unknown ones', () => {
    const text = [
      'Here:',
      '```python',
      'def f():',
      '    pass',
      '```',
      '```elixir',
      'defmodule A do end',
      '```',
      '~~~go title="x"',
      'package p',
      '~~~',
      '```',
      'plain',
      '```',
    ].join('\n');
    const { regions, unknown } = fencedRegions(text);
    expect(regions.map((r) => [r.lang.name, r.code])).toEqual([
      ['python', 'def f():\n    pass'],
      ['go', 'package p'],
    ]);
    expect(unknown).toEqual(['elixir']);
    for (const r of regions) expect(text.slice(r.start, r.end)).toBe(r.source);
  });

  it('parses a fence indented in a list item without that indentation, and gives it back', () => {
    const text = '- step\n  ```py\n  def f():\n      pass\n  ```\n';
    const [r] = fencedRegions(text).regions;
    expect(r!.code).toBe('def f():\n    pass');
    expect(r!.prefixes).toEqual(['  ', '  ']);
  });

  it('ignores a fence that is never closed', () => {
    expect(fencedRegions('```python\ndef f(): pass\n').regions).toEqual([]);
  });
});
