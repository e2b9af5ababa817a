/**
 * argv → command. Only commander is loaded eagerly; each command module is imported when chosen,
 * and heavy modules (tokenizer, YAML, TOON) are imported deeper still, only when a decision needs
 * them. Usage and config errors print one line `cg: …` and exit 2; nothing prints a stack trace.
 */
import type { Command } from 'commander';
import { FORMAT_CHOICES } from './input/transcript.js';
import { TOKENIZERS } from './tokens.js';

declare const CG_VERSION: string;
const VERSION = typeof CG_VERSION === 'string' ? CG_VERSION : '0.0.0-dev';

const EXAMPLES = `
Examples:
  seq 1 200000 | cg                         collapse a long output, keep head and tail
  gh api repos/o/r/issues | cg              compact JSON (TOON for uniform arrays)
  cg --preset safe < request.json           compact the tool outputs of an LLM request body
  cg expand 0123456789abcdef                print a stashed original, byte for byte
  cg expand 0123456789abcdef --lines 100-   a slice of it
  cg store info                             where originals are kept, and how much

Environment:
  CG_DISABLE=1     every command passes its input through verbatim
  CG_STORE_DIR     where originals are stashed (default $XDG_CACHE_HOME/cg/store)
  CG_CONFIG        config file to use (else ./.cg.yaml, then $XDG_CONFIG_HOME/cg/config.yaml)
`;

const RUN_EXAMPLES = `
Examples:
  cg run -- pytest -q                       failures and the summary, the rest behind a marker
  cg run -- cargo build                     exit code is cargo's own
  cg run --shell 'make 2>&1 | tail -50'     a pipeline, run by sh -c
  cg run --raw -- git log                   unchanged output
`;

export async function buildProgram(setExit: (code: number) => void): Promise<Command> {
  const { Command, Option } = await import('commander');
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

  /** Options shared by every command that compacts output (compress and run). */
  const compactOptions = (cmd: Command): Command =>
    cmd
      .option(
        '-p, --preset <name>',
        'component preset (default: shell for text, balanced for request bodies)',
      )
      .option('-c, --components <list>', 'explicit comma-separated component list, instead of a preset')
      .option(
        '--config <file>',
        'config file (default: $CG_CONFIG, ./.cg.yaml, $XDG_CONFIG_HOME/cg/config.yaml)',
      )
      .option('-q, --query <text>', 'what the agent is looking for (query-aware components)')
      .option('--lang <lang>', 'source language of the input (code components)')
      .addOption(new Option('--tokenizer <name>', 'tokenizer for token decisions').choices(TOKENIZERS))
      .option('--no-store', 'do not stash originals: lossless components only')
      .option('-v, --verbose', 'one line per component decision on stderr')
      .option('--explain', 'a table of what each component did, on stderr')
      .option('--force', 'compact even when stdout is a regular file');

  compactOptions(
    program
      .command('compress', { isDefault: true })
      .description(
        'read stdin (command output or an LLM request body), write the compacted version to stdout',
      )
      .addOption(new Option('-f, --format <format>', 'input format').choices(FORMAT_CHOICES).default('auto'))
      .option('--command <cmd>', 'the command that produced the text (selects filters)'),
  )
    .addHelpText('after', EXAMPLES)
    .action(async (flags) => {
      const { compressCommand } = await import('./commands/compress.js');
      setExit(await compressCommand(flags));
    });

  compactOptions(
    program
      .command('run')
      .description("run a command and compact its output; the command's exit code is kept")
      .argument('[command...]', 'the command and its arguments (after --)')
      .option('--shell <script>', 'run a shell script instead (sh -c), e.g. --shell "make 2>&1 | tee log"')
      .option('--raw', 'print the output unchanged'),
  )
    .passThroughOptions()
    .addHelpText('after', RUN_EXAMPLES)
    .action(async (argv: string[], flags) => {
      const { runSubcommand } = await import('./commands/run.js');
      setExit(await runSubcommand(argv, flags));
    });

  program
    .command('expand')
    .description(
      'print the original behind a marker (key, <<cg:KEY>>, cg:KEY, JSON, or text with markers on stdin)',
    )
    .argument('[keys...]', 'keys or markers; read from stdin when none are given')
    .option('--lines <range>', 'only lines A-B (1-based; also A-, -B, A)')
    .option('--grep <regex>', 'only lines matching the regular expression, as N:line')
    .option('--config <file>', 'config file (for store.dir)')
    .action(async (keys: string[], flags) => {
      const { expandCommand } = await import('./commands/expand.js');
      setExit(await expandCommand(keys, flags));
    });

  program
    .command('store')
    .description('the store of originals: path | info | prune | clear')
    .argument('<action>', 'path, info, prune or clear')
    .option('--json', 'machine-readable output (info, prune, clear)')
    .option('--config <file>', 'config file (for store settings)')
    .action(async (action: string, flags: { json?: boolean; config?: string }) => {
      const [{ storeCommand }, { loadConfig }, { openStore }] = await Promise.all([
        import('./commands/store.js'),
        import('./config.js'),
        import('./store/open.js'),
      ]);
      const config = await loadConfig(flags.config);
      const text = await storeCommand(action, openStore(config.store), { json: !!flags.json });
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      setExit(0);
    });

  program.addHelpText('after', EXAMPLES);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  let code = 0;
  try {
    if (argv.length === 0) {
      // `cmd | cg`, the hot path: the default command with its defaults needs no argument parser.
      const { compressCommand } = await import('./commands/compress.js');
      return await compressCommand({ format: 'auto' });
    }
    const program = await buildProgram((c) => {
      code = c;
    });
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (err) {
    if (isCommanderError(err)) {
      if (
        err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        err.code === 'commander.help'
      ) {
        return 0;
      }
      return 2; // commander already printed its one-line message
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`cg: ${message}\n`);
    return err instanceof Error && 'exitCode' in err && typeof err.exitCode === 'number' ? err.exitCode : 1;
  }
}

function isCommanderError(err: unknown): err is { code: string; exitCode: number } {
  // By its code, not its class: the bundler may rename the class.
  const code = err instanceof Error ? (err as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('commander.');
}
