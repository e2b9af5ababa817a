/**
 * Which command an argv names, before commander parses it. `compress` is the default command, so
 * commander hands any word it does not know to compress as an operand and says "too many arguments
 * for 'compress'" — for a typo (`cg expnad KEY`), for `cg version`, and for options written before
 * the command (`cg -v run -- ls`). Here the first word that is not an option or an option's value
 * decides: a command name is moved to the front, with the options before it after it, so
 * `cg -v run -- ls` runs as `cg run -v -- ls`, and an option moved to a command that does not take
 * it is a usage error that says options go after the command; any other word is an unknown command,
 * with the nearest command name suggested.
 */
import type { Command } from 'commander';
import { didYouMean } from './config/nearest.js';

export type Route = { argv: string[] } | { error: string };

/** Options of `cmd` (and its parent's) that take a value, by every spelling: -p, --preset. */
function valueOptions(cmd: Command): Set<string> {
  const names = new Set<string>();
  for (const c of [cmd, cmd.parent].filter((x): x is Command => x !== null)) {
    for (const o of c.options) {
      if (!o.required && !o.optional) continue;
      if (o.short) names.add(o.short);
      if (o.long) names.add(o.long);
    }
  }
  return names;
}

/** Whether an option token (-v, --verbose, --preset=x, -psafe) names an option of cmd or the program. */
function isOptionOf(token: string, cmd: Command): boolean {
  const flag = token.startsWith('--') ? token.split('=')[0]! : token.slice(0, 2);
  if (flag === '-h' || flag === '--help') return true; // every command has help (not in .options)
  return [cmd, cmd.parent]
    .filter((c): c is Command => c !== null)
    .some((c) => c.options.some((o) => o.short === flag || o.long === flag));
}

/** Index of the first operand in argv, skipping options and their values; -1 when there is none. */
function firstOperand(argv: readonly string[], takesValue: Set<string>): number {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return -1;
    if (!a.startsWith('-') || a === '-') return i;
    if (a.startsWith('--')) {
      if (!a.includes('=') && takesValue.has(a)) i++;
    } else if (a.length === 2 && takesValue.has(a)) {
      i++; // -p safe (but -psafe carries its value)
    }
  }
  return -1;
}

/** Words people type for an option. */
const OPTION_WORDS: Record<string, string> = { version: '--version' };

/** A did-you-mean for a mistyped command, else the list of commands. */
function suggestion(word: string, names: readonly string[]): string {
  const option = OPTION_WORDS[word];
  if (option) return ` (did you mean cg ${option}?)`;
  return didYouMean(word, names) || ` (commands: ${names.join(', ')})`;
}

/** The argv to parse, or a one-line usage error. */
export function routeArgv(argv: readonly string[], program: Command): Route {
  const fallback = program.commands.find((c) => c.name() === 'compress');
  if (!fallback) return { argv: [...argv] };
  const at = firstOperand(argv, valueOptions(fallback));
  if (at === -1) return { argv: [...argv] };
  const word = argv[at]!;
  const names = program.commands.flatMap((c) => [c.name(), ...c.aliases()]);
  if (!names.includes('help')) names.push('help');
  if (names.includes(word)) {
    if (at === 0) return { argv: [...argv] };
    const before = argv.slice(0, at);
    const target = program.commands.find((c) => c.name() === word || c.aliases().includes(word));
    const foreign = target ? before.find((a) => a.startsWith('-') && !isOptionOf(a, target)) : undefined;
    if (foreign !== undefined) {
      return {
        error: `${foreign.split('=')[0]} is not an option of 'cg ${word}' (options go after the command; see cg ${word} --help)`,
      };
    }
    return { argv: [word, ...before, ...argv.slice(at + 1)] };
  }
  return { error: `unknown command '${word}'${suggestion(word, names)}` };
}
