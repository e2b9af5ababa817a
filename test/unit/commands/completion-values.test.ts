/**
 * Completion offers the values people type after a command word: the actions of store and
 * filters, presets after -p/--preset, and the filter names cg itself knows after `filters show`
 * and `filters test` (asked of cg when completing, so a project's own filters are there too).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli.js';
import { commandSpecs, completionScript } from '../../../src/commands/completion.js';
import { PRESET_NAMES } from '../../../src/presets.js';
import { tempDir } from '../../helpers.js';

const program = await buildProgram(() => {});
const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A directory with the bash script and a stub `cg` that lists two filter names. */
function setup(shell: 'bash' | 'zsh' | 'fish'): { dir: string; script: string } {
  const dir = tempDir('cg-completion-');
  made.push(dir);
  const stub = join(dir, 'cg');
  writeFileSync(stub, '#!/bin/sh\n[ "$*" = "filters list --names" ] && printf "alpha\\nbeta-filter\\n"\n');
  chmodSync(stub, 0o755);
  const script = join(dir, `cg.${shell}`);
  writeFileSync(script, completionScript(shell, program));
  return { dir, script };
}

function bashComplete(words: string[]): string[] {
  const { dir, script } = setup('bash');
  const quoted = words.map((w) => `'${w}'`).join(' ');
  return execFileSync(
    'bash',
    [
      '-c',
      `source ${script}; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _cg_completion; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { encoding: 'utf8', env: { PATH: `${dir}:${process.env.PATH}` } },
  )
    .split('\n')
    .filter(Boolean);
}

describe('completion values', () => {
  it('knows the actions of store and filters, and the presets of every --preset', () => {
    const specs = commandSpecs(program);
    expect(specs.find((s) => s.path === 'cg store')!.argChoices).toEqual(['path', 'info', 'prune', 'clear']);
    expect(specs.find((s) => s.path === 'cg filters')!.argChoices).toEqual(
      expect.arrayContaining(['list', 'show', 'verify', 'test', 'trust', 'untrust']),
    );
    for (const path of ['cg', 'cg compress', 'cg run', 'cg proxy']) {
      const preset = specs.find((s) => s.path === path)!.options.find((o) => o.flags.includes('--preset'));
      expect(preset?.choices, path).toEqual(PRESET_NAMES);
    }
  });

  it('completes them in bash, filter names from cg itself', () => {
    expect(bashComplete(['cg', 'store', 'p'])).toEqual(['path', 'prune']);
    expect(bashComplete(['cg', 'filters', 've'])).toEqual(['verify']);
    expect(bashComplete(['cg', '--preset', 'ag'])).toEqual(['aggressive', 'agent']);
    expect(bashComplete(['cg', 'run', '-p', 'sa'])).toEqual(['safe']);
    expect(bashComplete(['cg', 'filters', 'show', ''])).toEqual(['alpha', 'beta-filter']);
    expect(bashComplete(['cg', 'filters', 'test', 'b'])).toEqual(['beta-filter']);
  });

  it.skipIf(!has('zsh'))('completes filter names in zsh', () => {
    const { dir, script } = setup('zsh');
    const out = execFileSync(
      'zsh',
      [
        '-c',
        [
          'compdef() { :; }',
          'compadd() { shift; print -l -- "$@" }',
          `source ${script}`,
          "words=(cg filters show ''); CURRENT=$#words; PREFIX=''; _cg",
        ].join('\n'),
      ],
      { encoding: 'utf8', env: { PATH: `${dir}:${process.env.PATH}` } },
    );
    expect(out.split('\n').filter(Boolean)).toEqual(['alpha', 'beta-filter']);
  });

  it.skipIf(!has('fish'))('completes filter names in fish', () => {
    const { dir, script } = setup('fish');
    const out = execFileSync('fish', ['-c', `source ${script}; complete -C 'cg filters show '`], {
      encoding: 'utf8',
      env: { PATH: `${dir}:${process.env.PATH}` },
    });
    expect(out.split('\n').map((l) => l.replace(/\t.*/, ''))).toEqual(
      expect.arrayContaining(['alpha', 'beta-filter']),
    );
  });
});
