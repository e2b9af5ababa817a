/**
 * argv → command. The commands started most (`cmd | cg`, the hook, --version, plain expand and run)
 * take a fast path without commander; the rest are parsed by commander, loaded then and built from
 * the table of commands in src/cli/ (one row per command: commands-*.ts). Each command
 * module is imported when chosen, and heavy modules (tokenizer, YAML, TOON) are imported deeper
 * still, only when a decision needs them. Usage and config errors print one line `cg: …` and exit 2; nothing prints a stack trace.
 * An unknown command word, or options written before the command, are sorted out by cli-route.ts.
 */
import type { Command } from 'commander';
import { routeArgv } from './cli-route.js';
import { isHostName } from './hosts/names.js';

export { writeStdoutDirectly } from './stdout.js';

declare const CG_VERSION: string;
const VERSION = typeof CG_VERSION === 'string' ? CG_VERSION : '0.0.0-dev';

/** Builds the commander program from the rows of src/cli/ (one row per command). */
export async function buildProgram(setExit: (code: number) => void): Promise<Command> {
  const [{ Command, Option, Argument }, choices, { namesFrom }, { addCommand }, compact, data, agents] =
    await Promise.all([
      import('commander'),
      import('./cli-choices.js'),
      import('./commands/completion.js'),
      import('./cli/command-row.js'),
      import('./cli/commands-compact.js'),
      import('./cli/commands-data.js'),
      import('./cli/commands-agents.js'),
    ]);
  const program = new Command('cg')
    .description(
      'Shrink what an AI coding agent reads; every dropped byte stays recoverable with `cg expand`.',
    )
    .version(VERSION, '-V, --version')
    .showSuggestionAfterError(true)
    .configureOutput({
      outputError: (str, write) => write(`cg: ${str.replace(/^error: /, '')}`),
    })
    .enablePositionalOptions()
    .exitOverride();
  const builders = { Option, Argument, ...choices, namesFrom };
  for (const row of [...compact.COMPACT_COMMANDS, ...data.DATA_COMMANDS, ...agents.AGENT_COMMANDS])
    addCommand(program, row, builders, setExit);
  program.addHelpText('after', compact.EXAMPLES);
  return program;
}

/**
 * The commands an agent or a script starts most, in the plain forms that need no argument parser:
 * `cg --version`, `cg expand KEY…` (no options) and `cg run -- CMD…` (no options). Loading and
 * building commander costs more than these commands themselves; each gets exactly what commander
 * would have handed it (run: `store: true`, the --no-store default). Anything else: undefined.
 */
async function fastPath(argv: readonly string[]): Promise<number | undefined> {
  const [first, ...rest] = argv;
  if (argv.length === 1 && (first === '--version' || first === '-V')) {
    const { writeOut } = await import('./io.js');
    await writeOut(`${VERSION}\n`);
    return 0;
  }
  if (first === 'expand' && rest.every((a) => !a.startsWith('-'))) {
    const { expandCommand } = await import('./commands/expand.js');
    return await expandCommand(rest, {});
  }
  // After `--`, or from the first word that is not an option, commander passes everything through.
  const command = rest[0] === '--' ? rest.slice(1) : rest[0]?.startsWith('-') === false ? rest : [];
  if (first === 'run' && command.length > 0) {
    const { runSubcommand } = await import('./commands/run.js');
    return await runSubcommand(command, { store: true });
  }
  return undefined;
}

export async function main(argv: string[]): Promise<number> {
  let code = 0;
  // Set while the argv names the filter (compress) and its options have not yet parsed: a usage
  // error then still passes the input through, as every later error of the filter does.
  let filterInput = false;
  try {
    if (argv.length === 0) {
      // `cmd | cg`, the hot path: the default command with its defaults needs no argument parser.
      const { compressCommand } = await import('./commands/compress.js');
      return await compressCommand({ format: 'auto' });
    }
    if (argv[0] === 'hook' && isHostName(argv[1])) {
      // The agent's hook runs on every tool call: it too skips the argument parser when it can.
      const { hookSubcommand, parseHookArgs } = await import('./commands/hook.js');
      const flags = parseHookArgs(argv.slice(2));
      if (flags) return await hookSubcommand(argv[1], flags);
    }
    const fast = await fastPath(argv);
    if (fast !== undefined) return fast;
    const program = await buildProgram((c) => {
      code = c;
    });
    // A word commander would hand to the default command: a typo, or options before the command.
    const route = routeArgv(argv, program);
    if ('error' in route) {
      process.stderr.write(`cg: ${route.error}\n`);
      return 2;
    }
    filterInput = namesFilter(route.argv, program);
    program.hook('preAction', () => {
      filterInput = false;
    });
    await program.parseAsync(route.argv, { from: 'user' });
    return code;
  } catch (err) {
    const usage = isCommanderError(err) ? !HELP_CODES.includes(err.code) : isUsageError(err);
    if (filterInput && usage) await passStdinThrough();
    if (isCommanderError(err)) {
      if (HELP_CODES.includes(err.code)) return 0;
      return 2; // commander already printed its one-line message
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`cg: ${message}\n`);
    return err instanceof Error && 'exitCode' in err && typeof err.exitCode === 'number' ? err.exitCode : 1;
  }
}

const HELP_CODES = ['commander.helpDisplayed', 'commander.version', 'commander.help'];

function isUsageError(err: unknown): boolean {
  return err instanceof Error && (err as { exitCode?: unknown }).exitCode === 2;
}

/**
 * Whether a routed argv runs the default command, the filter: routeArgv has put any command word
 * first, so options first (or nothing) mean compress.
 */
function namesFilter(argv: readonly string[], program: Command): boolean {
  const first = argv[0];
  return first === undefined || first === 'compress' || !program.commands.some((c) => c.name() === first);
}

/** The piped input, unchanged, to stdout (never from a terminal: that would wait for a person). */
async function passStdinThrough(): Promise<void> {
  const [{ isTerminal }, { readStdin, writeOut }] = await Promise.all([
    import('./terminal.js'),
    import('./io.js'),
  ]);
  if (isTerminal(0)) return;
  try {
    await writeOut(await readStdin());
  } catch {
    // The usage error is what the user needs to hear; a reader gone away changes nothing.
  }
}

function isCommanderError(err: unknown): err is { code: string; exitCode: number } {
  // By its code, not its class: the bundler may rename the class.
  const code = err instanceof Error ? (err as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('commander.');
}
