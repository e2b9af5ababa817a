import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli.js';
import { commandSpecs, completionScript, SHELLS } from '../../../src/commands/completion.js';
import { tempDir } from '../../helpers.js';

const program = await buildProgram(() => {});
const commands = program.commands.map((c) => c.name()).filter((n) => n !== 'help');

const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

/** What bash completes for the words typed so far (the last one is the word being completed). */
function bashComplete(script: string, words: string[]): string[] {
  const file = join(tempDir(), 'cg.bash');
  writeFileSync(file, script);
  const quoted = words.map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(' ');
  const out = execFileSync(
    'bash',
    [
      '-c',
      `source ${file}; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _cg_completion; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { encoding: 'utf8' },
  );
  return out.split('\n').filter(Boolean);
}

describe('cg completion', () => {
  it('knows every command of the program, and their options', () => {
    expect(commands).toEqual(
      expect.arrayContaining(['compress', 'run', 'expand', 'store', 'hook', 'init', 'mcp', 'completion']),
    );
    const specs = commandSpecs(program);
    expect(specs.map((s) => s.path)).toEqual(['cg', ...commands.map((c) => `cg ${c}`)]);
    const init = specs.find((s) => s.path === 'cg init')!;
    expect(init.argChoices).toEqual(['claude', 'codex', 'gemini', 'opencode', 'agents-md']);
    expect(init.options.flatMap((o) => o.flags)).toEqual(
      expect.arrayContaining(['--global', '--project', '--dry-run', '--uninstall', '--help']),
    );
  });

  for (const shell of SHELLS) {
    it(`names every command and every long option in the ${shell} script`, () => {
      const script = completionScript(shell, program);
      for (const c of commands) expect(script, c).toMatch(new RegExp(`\\b${c}\\b`));
      for (const cmd of program.commands)
        for (const o of cmd.options)
          if (o.long)
            expect(script, `${cmd.name()} ${o.long}`).toContain(
              shell === 'fish' ? `-l ${o.long.slice(2)}` : o.long,
            );
    });
  }

  it('writes a bash script bash accepts, which completes commands, options, choices and files', () => {
    const script = completionScript('bash', program);
    expect(spawnSync('bash', ['-n'], { input: script }).status).toBe(0);
    expect(bashComplete(script, ['cg', ''])).toEqual(expect.arrayContaining(commands));
    expect(bashComplete(script, ['cg', 'ex'])).toEqual(['expand']);
    expect(bashComplete(script, ['cg', 'init', ''])).toEqual(
      expect.arrayContaining(['claude', 'codex', 'gemini', 'agents-md']),
    );
    expect(bashComplete(script, ['cg', 'init', 'claude', '--d'])).toEqual(['--dry-run']);
    expect(bashComplete(script, ['cg', 'compress', '--format', ''])).toEqual([
      'auto',
      'text',
      'openai',
      'anthropic',
      'responses',
      'gemini',
    ]);
    expect(bashComplete(script, ['cg', '--tokenizer', 'o'])).toEqual(['o200k']);
    expect(bashComplete(script, ['cg', 'completion', 'z'])).toEqual(['zsh']);
    expect(bashComplete(script, ['cg', 'run', '--', 'bas'])).toContain('bash');
  });

  it.skipIf(!has('zsh'))(
    'writes a zsh script zsh accepts, which completes commands, choices and files',
    () => {
      const file = join(tempDir(), '_cg');
      writeFileSync(file, completionScript('zsh', program));
      expect(spawnSync('zsh', ['-n', file]).status).toBe(0);
      // The completion system's helpers, stubbed to print what they are given.
      const stubs = [
        'compdef() { :; }',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: zsh code
        '_describe() { local arr=${@[-1]}; print -l -- ${(P)arr} }',
        'compadd() { shift; print -l -- "$@" }',
        '_files() { print FILES }',
        '_message() { print MESSAGE }',
        '_command_names() { print COMMANDS }',
        `source ${file}`,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: zsh code
        't() { words=("$@"); CURRENT=$#words; PREFIX=${words[-1]}; _cg }',
      ].join('\n');
      const complete = (...words: string[]) =>
        execFileSync('zsh', ['-c', `${stubs}\nt ${words.map((w) => `'${w}'`).join(' ')}`], {
          encoding: 'utf8',
        })
          .split('\n')
          .filter(Boolean)
          .map((l) => l.replace(/:.*/, ''));
      expect(complete('cg', '')).toEqual(expect.arrayContaining(commands));
      expect(complete('cg', 'init', '')).toEqual(['claude', 'codex', 'gemini', 'agents-md']);
      expect(complete('cg', 'compress', '--format', '')).toEqual([
        'auto',
        'text',
        'openai',
        'anthropic',
        'responses',
        'gemini',
      ]);
      expect(complete('cg', '--config', '')).toEqual(['FILES']);
      expect(complete('cg', 'run', '--', 'ba')).toEqual(['COMMANDS']);
    },
  );

  it.skipIf(!has('fish'))(
    'writes a fish script fish accepts, which completes commands, choices and options',
    () => {
      const file = join(tempDir(), 'cg.fish');
      writeFileSync(file, completionScript('fish', program));
      expect(spawnSync('fish', ['-n', file]).status).toBe(0);
      const complete = (line: string) =>
        execFileSync('fish', ['-c', `source ${file}; complete -C '${line}'`], { encoding: 'utf8' })
          .split('\n')
          .filter(Boolean)
          .map((l) => l.replace(/\t.*/, ''));
      expect(complete('cg ')).toEqual(expect.arrayContaining(commands));
      expect(complete('cg init ')).toEqual(['agents-md', 'claude', 'codex', 'gemini']);
      expect(complete('cg init claude --d')).toEqual(['--dry-run']);
      expect(complete('cg compress --format ')).toEqual([
        'anthropic',
        'auto',
        'gemini',
        'openai',
        'responses',
        'text',
      ]);
    },
  );
});
