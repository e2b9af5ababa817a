import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';
import { cg } from './run-cg.js';

/** The manual with roff escapes undone, so `\-\-lines` reads as `--lines`. */
const manual = readFileSync(join(ROOT, 'man', 'cg.1'), 'utf8')
  .replace(/\\-/g, '-')
  .replace(/\\f[BIRP]/g, '');

function commandsAndOptions(help: string): { commands: string[]; options: string[] } {
  const commands = [...help.matchAll(/^ {2}([a-z][\w-]*)(?: \[options\])?(?: |$)/gm)]
    .map((m) => m[1]!)
    .filter((c) => c !== 'help');
  const options = [...help.matchAll(/--[a-z][\w-]*/g)].map((m) => m[0]);
  return { commands, options };
}

describe('the manual page', () => {
  it('documents every command and every option that --help lists', () => {
    const top = cg(['--help']).out;
    const topCommands = top.slice(top.indexOf('Commands:'), top.indexOf('Examples:'));
    const { commands } = commandsAndOptions(topCommands);
    expect(commands).toEqual(expect.arrayContaining(['compress', 'expand', 'store']));
    const missing: string[] = [];
    for (const command of commands) {
      if (!new RegExp(`\\b${command}\\b`).test(manual)) missing.push(command);
      const help = cg([command, '--help']).out;
      for (const option of commandsAndOptions(help).options)
        if (!manual.includes(option)) missing.push(`${command} ${option}`);
    }
    for (const option of commandsAndOptions(top.slice(0, top.indexOf('Commands:'))).options) {
      if (!manual.includes(option)) missing.push(option);
    }
    expect(missing).toEqual([]);
  });

  it('is shipped with the package', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.man).toContain('./man/cg.1');
    expect(pkg.files).toContain('man');
  });
});
