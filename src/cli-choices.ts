/**
 * Values an argument or option takes from a fixed list, checked with cg's own one-line message and
 * a did-you-mean (`cg init claud` → `init: unknown target "claud" (did you mean claude?) …`) in
 * place of commander's "Allowed choices are …". The list stays on the argument (argChoices), so
 * help and the completion scripts still show it. `offered` lists values for help and completion
 * only, for a value the command checks itself (a preset: `cg run` must still run the command and
 * compress still pass its input through when the name is wrong).
 */
import type { Argument, Option } from 'commander';
import { didYouMean } from './config/nearest.js';
import { UsageError } from './errors.js';

/** `command` and `noun` name it in the message: `init: unknown target "claud" …`. */
export function checkedChoices<T extends Argument | Option>(
  target: T,
  command: string,
  noun: string,
  choices: readonly string[],
): T {
  target.choices(choices);
  target.argParser((value: string) => {
    if (choices.includes(value)) return value;
    throw new UsageError(
      `${command}: unknown ${noun} "${value}"${didYouMean(value, choices)} (expected ${choices.join(', ')})`,
    );
  });
  return target;
}

/** Values shown in help and offered by completion; any value is passed on to the command. */
export function offered<T extends Argument | Option>(target: T, choices: readonly string[]): T {
  target.argChoices = [...choices];
  return target;
}
