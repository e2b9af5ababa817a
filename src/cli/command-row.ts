/**
 * One row per command of the CLI, as data: its name, description, arguments, options, help text
 * and an action that imports the command's module only when the command runs. `addCommand` is the
 * one loop that turns a row into a commander command; it is handed commander's classes (commander
 * is loaded only when argv needs a parser), so a rows module imports nothing heavy.
 */
import type { Argument, Command, Option } from 'commander';

/** A fixed list checked with cg's own message: `<label>: unknown <noun> "x" (did you mean …)`. */
export interface Checked {
  label: string;
  noun: string;
  values: readonly string[];
}

export interface ArgumentRow {
  /** As commander spells it: `<host>`, `[args...]`. */
  spec: string;
  description: string;
  checked?: Checked;
}

export interface OptionRow {
  /** As commander spells it: `-p, --preset <name>`, `--no-store`. */
  flags: string;
  description: string;
  checked?: Checked;
  /** Values shown in help and offered by completion; the command checks the value itself. */
  offered?: readonly string[];
  default?: string;
}

/** What an action is handed: the positional arguments in order, the parsed options, the program. */
export interface ActionCall {
  args: readonly unknown[];
  flags: Record<string, unknown>;
  program: Command;
}

export interface CommandRow {
  name: string;
  description: string;
  /** The command that runs when argv names none (compress). */
  isDefault?: boolean;
  arguments?: readonly ArgumentRow[];
  options?: readonly OptionRow[];
  /** Options after the first argument belong to it (`cg run -- ls -la`, `cg wrap claude -p …`). */
  passThroughOptions?: boolean;
  /** Shown after the generated help. */
  help?: string;
  /** Completion asks cg for names after these first arguments (commands/completion.ts namesFrom). */
  completesNames?: { after: readonly string[]; argv: readonly string[] };
  /** Runs the command; resolves to its exit code. */
  action(call: ActionCall): Promise<number>;
}

/**
 * The action of a command that is one function of its parsed options: the function's module is
 * loaded only when the command runs, and handed the options as commander parsed them (the row's
 * options are the function's flags type).
 */
export function flagsAction<F>(
  load: () => Promise<(flags: F) => number | Promise<number>>,
): CommandRow['action'] {
  return async ({ flags }) => (await load())(flags as F);
}

/** commander's classes and cg's choice checks, loaded by the caller when a parser is needed. */
export interface Builders {
  Option: typeof Option;
  Argument: typeof Argument;
  checkedChoices<T extends Argument | Option>(
    target: T,
    command: string,
    noun: string,
    choices: readonly string[],
  ): T;
  offered<T extends Argument | Option>(target: T, choices: readonly string[]): T;
  namesFrom(cmd: Command, after: readonly string[], argv: readonly string[]): Command;
}

function withChoices<T extends Argument | Option>(
  target: T,
  row: { checked?: Checked; offered?: readonly string[] },
  b: Builders,
): T {
  if (row.checked) b.checkedChoices(target, row.checked.label, row.checked.noun, row.checked.values);
  if (row.offered) b.offered(target, row.offered);
  return target;
}

/** Adds the row to the program as a commander command whose action sets the exit code. */
export function addCommand(
  program: Command,
  row: CommandRow,
  b: Builders,
  setExit: (code: number) => void,
): Command {
  const cmd = program
    .command(row.name, row.isDefault ? { isDefault: true } : {})
    .description(row.description);
  for (const a of row.arguments ?? [])
    cmd.addArgument(withChoices(new b.Argument(a.spec, a.description), a, b));
  for (const o of row.options ?? []) {
    const option = withChoices(new b.Option(o.flags, o.description), o, b);
    cmd.addOption(o.default !== undefined ? option.default(o.default) : option);
  }
  if (row.passThroughOptions) cmd.passThroughOptions();
  if (row.help !== undefined) cmd.addHelpText('after', row.help);
  if (row.completesNames) b.namesFrom(cmd, row.completesNames.after, row.completesNames.argv);
  cmd.action(async (...received: unknown[]) => {
    // commander hands the positional arguments, then the options, then the command itself.
    const args = received.slice(0, -2);
    const flags = received[received.length - 2] as Record<string, unknown>;
    setExit(await row.action({ args, flags, program }));
  });
  return cmd;
}
