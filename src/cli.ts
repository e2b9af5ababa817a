/**
 * argv → command. The commands started most (`cmd | cg`, the hook, --version, plain expand and run)
 * take a fast path without commander; the rest are parsed by commander, loaded then. Each command
 * module is imported when chosen, and heavy modules (tokenizer, YAML, TOON) are imported deeper
 * still, only when a decision needs them. Usage and config errors print one line `cg: …` and exit 2; nothing prints a stack trace.
 * An unknown command word, or options written before the command, are sorted out by cli-route.ts.
 */
import type { Command } from 'commander';
import { routeArgv } from './cli-route.js';
import { type HostName, isHostName } from './hosts/names.js';
import { FORMAT_CHOICES } from './input/transcript.js';
import { TOKENIZERS } from './tokens.js';

export { writeStdoutDirectly } from './stdout.js';

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
  CG_STORE_URL     a shared Redis store instead: redis://[user[:pass]@]host[:port][/db], rediss:// (TLS)
  CG_CONFIG        config file to use (else a trusted .cg.yaml, then $XDG_CONFIG_HOME/cg/config.yaml)
  CG_SESSION       conversation id for replaying request bodies (like --session)
  CG_STATE_DIR     where session records and the stats ledger live (default $XDG_STATE_HOME/cg)
`;

const RUN_EXAMPLES = `
Examples:
  cg run -- pytest -q                       failures and the summary, the rest behind a marker
  cg run -- cargo build                     exit code is cargo's own
  cg run --shell 'make 2>&1 | tail -50'     a pipeline, run by sh -c
  cg run --raw -- git log                   unchanged output
`;

const FILTERS_EXAMPLES = `
Examples:
  cg filters list                           every filter, in the order they are tried
  cg filters show pytest                    the YAML of one filter
  cg filters test pytest out.txt            what it keeps of out.txt (summary on stderr)
  cg filters verify --require-all           run every inline test
  cg filters verify .cg/filters/mine.yaml   run the tests of one file
  cg filters trust                          use this project's filters (the same as cg trust)
`;

const HOOK_EXAMPLES = `
Examples:
  cg init claude                            install it (cg hook claude) in ~/.claude/settings.json
  cg doctor                                 check every installed integration
  seq 3000 | jq -Rs '{hook_event_name:"PostToolUse",tool_name:"Bash",tool_input:{command:"seq 3000"},
    tool_response:{stdout:.,stderr:"",interrupted:false,isImage:false}}' | cg hook claude

Claude Code (PostToolUse) and Gemini CLI (AfterTool): the tool runs as approved, then the hook hands
back a shorter output. Codex (PreToolUse): only commands no Codex rule names are wrapped in cg run.
Prints nothing (the call goes on unchanged) for small outputs, tools or commands cg leaves alone,
with CG_DISABLE=1, and on any problem of its own. CG_HOOK_DEBUG=1 says on stderr what it decided.
`;

const INIT_EXAMPLES = `
Examples:
  cg init claude --dry-run                  show the change to ~/.claude/settings.json
  cg init claude --project                  ./.claude/settings.json instead
  cg init codex                             ~/.codex/hooks.json
  cg init gemini                            ~/.gemini/settings.json (the hook and cg's MCP server)
  cg init claude --uninstall                take the hook out again
  cg init agents-md >> AGENTS.md            tell the agent about <<cg:KEY>> markers
`;

const PROXY_EXAMPLES = `
Examples:
  cg proxy                                  listen on 127.0.0.1:8787; prints the lines for Claude Code and Codex
  cg proxy --observe                        change nothing, record what would have been saved
  ANTHROPIC_BASE_URL=http://127.0.0.1:8787 claude

Routes: POST /v1/messages, /v1/chat/completions and /v1/responses are compacted (preset agent);
everything else passes through unchanged. Upstreams come from flags or the proxy: section of your
own config, never from the request. GET /_cg/health answers for cg doctor.
`;

const WRAP_EXAMPLES = `
Examples:
  cg wrap claude                            Claude Code through a cg proxy of its own, for this run
  cg wrap claude -p "fix the failing test"  the host's arguments follow the host's name
  cg wrap codex exec "run the tests"        Codex, with -c overrides for its model provider
  cg wrap gemini                            Gemini CLI (API key), with GOOGLE_GEMINI_BASE_URL
  cg wrap opencode run "run the tests"      OpenCode, its anthropic provider via OPENCODE_CONFIG_CONTENT
  eval "$(cg wrap --print-env claude)"      point this shell at the proxy of your config

A cg proxy already answering where the host or your config points is used as it is; else one is
started on a free loopback port and stopped after. It forwards where the host would have gone
(ANTHROPIC_BASE_URL, OPENAI_BASE_URL, GOOGLE_GEMINI_BASE_URL, else your config's proxy: upstreams). If it cannot start, the
host runs unwrapped; if it dies, it is restarted on the same port. The exit code is the host's.
`;

const COMPLETION_EXAMPLES = `
Examples:
  source <(cg completion bash)              bash, this shell
  cg completion zsh > ~/.zfunc/_cg          zsh, with ~/.zfunc on $fpath
  cg completion fish > ~/.config/fish/completions/cg.fish
`;

type FiltersCliFlags = { requireAll?: boolean; filters?: string; json?: boolean; names?: boolean };

export async function buildProgram(setExit: (code: number) => void): Promise<Command> {
  const [{ Command, Option, Argument }, { checkedChoices, offered }, { PRESET_NAMES }, actions] =
    await Promise.all([
      import('commander'),
      import('./cli-choices.js'),
      import('./presets.js'),
      import('./commands/actions.js'),
    ]);
  const [{ HOST_NAMES, WRAP_ONLY_HOST_NAMES, hostNamesSentence }, { SHELLS, namesFrom }] = await Promise.all([
    import('./hosts/names.js'),
    import('./commands/completion.js'),
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

  /** Options shared by every command that compacts output (compress and run). */
  const compactOptions = (cmd: Command): Command =>
    cmd
      .addOption(
        offered(
          new Option(
            '-p, --preset <name>',
            'component preset (default: shell for text, balanced for request bodies)',
          ),
          PRESET_NAMES,
        ),
      )
      .option('-c, --components <list>', 'explicit comma-separated component list, instead of a preset')
      .option(
        '--config <file>',
        'config file (default: $CG_CONFIG, a trusted .cg.yaml, $XDG_CONFIG_HOME/cg/config.yaml)',
      )
      .option('-q, --query <text>', 'what the agent is looking for (query-aware components)')
      .option('--lang <lang>', 'source language of the input (code components)')
      .addOption(
        checkedChoices(
          new Option('--tokenizer <name>', 'tokenizer for token decisions'),
          '--tokenizer',
          'tokenizer',
          TOKENIZERS,
        ),
      )
      .option('--no-store', 'do not stash originals: lossless components only')
      .option('-v, --verbose', 'one line per component decision on stderr')
      .option('--explain', 'a table of what each component did, on stderr')
      .option('--force', 'compact even when stdout is a regular file')
      .option('--for-model', 'the reader is a model: compact wherever stdout goes (also CG_READER=model)')
      .option('--quiet', 'say nothing when output goes raw into a regular file')
      .option('--filters <file>', 'a filter file tried before project, user and builtin filters');

  compactOptions(
    program
      .command('compress', { isDefault: true })
      .description(
        'read stdin (command output or an LLM request body), write the compacted version to stdout',
      )
      .addOption(
        checkedChoices(
          new Option('-f, --format <format>', 'input format'),
          '--format',
          'format',
          FORMAT_CHOICES,
        ).default('auto'),
      )
      .option('--command <cmd>', 'the command that produced the text (selects filters)')
      .option(
        '--session <id>',
        'conversation id for cache-stable replay of request bodies (default: $CG_SESSION, else derived)',
      )
      .option('--no-session', 'no replay: decide every tool output afresh and record nothing'),
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
    .command('filters')
    .description(
      'declarative output filters: list | show NAME | verify [FILE...] | test NAME [FILE|-] | trust | untrust',
    )
    .addArgument(
      checkedChoices(
        new Argument('<action>', 'list, show, verify, test, trust or untrust'),
        'filters',
        'action',
        actions.FILTER_ACTIONS,
      ),
    )
    .argument(
      '[args...]',
      'show/test: a filter name (test: then an input FILE, or - for stdin); verify: filter files',
    )
    .option('--require-all', 'verify: also fail filters that have no inline tests, and skipped project files')
    .option('--filters <file>', 'a filter file tried before project, user and builtin filters')
    .option('--json', 'list, verify: machine-readable (keys are only ever added, never renamed)')
    .option('--names', 'list: filter names only, one a line')
    .addHelpText('after', FILTERS_EXAMPLES)
    .action(async (action: string, args: string[], flags: FiltersCliFlags) => {
      const [{ filtersCommand }, { readStdin, writeOut }] = await Promise.all([
        import('./commands/filters.js'),
        import('./io.js'),
      ]);
      // stdout first, then stderr (test's summary comes after the output it describes).
      let out = '';
      let err = '';
      try {
        setExit(
          await filtersCommand(action, args, flags, {
            cwd: process.cwd(),
            env: process.env,
            out: (s) => {
              out += s;
            },
            err: (s) => {
              err += s;
            },
            stdin: async () => (await readStdin()).toString('utf8'),
            ...(process.stdout.isTTY && process.stdout.columns ? { columns: process.stdout.columns } : {}),
          }),
        );
      } finally {
        await writeOut(out);
        process.stderr.write(err);
      }
    });

  // `cg filters show <TAB>`: the filters of this project and user too, asked of cg when completing.
  namesFrom(
    program.commands.find((c) => c.name() === 'filters')!,
    ['show', 'test'],
    ['filters', 'list', '--names'],
  );

  program
    .command('trust')
    .description(
      "consent to this project's .cg.yaml and .cg/filters (found from here up to the repository root)",
    )
    .option('--show', 'list the files, say whether they are trusted and what their config may do')
    .option('--untrust', 'withdraw consent: the files are ignored again')
    .option('--json', 'with --show: machine-readable (keys are only ever added, never renamed)')
    .addHelpText(
      'after',
      `
Until trusted, a project's .cg.yaml and .cg/filters/*.yaml are ignored (one line on stderr says so).
Trusting records a hash of them in $XDG_CONFIG_HOME/cg/trusted.json; any edit needs cg trust again.
It is yours to give: it needs a terminal, and refuses inside an agent's tool call (--show and
--untrust work anywhere).

Examples:
  cg trust --show                           what is there, and what its config may do
  cg trust                                  check the files and use them from now on
  cg trust --untrust                        ignore them again
`,
    )
    .action(async (flags: { show?: boolean; untrust?: boolean; json?: boolean }) => {
      const [{ trustCommand }, { writeOut }] = await Promise.all([
        import('./commands/trust.js'),
        import('./io.js'),
      ]);
      let out = '';
      try {
        setExit(
          await trustCommand(flags, {
            cwd: process.cwd(),
            env: process.env,
            out: (s) => {
              out += s;
            },
          }),
        );
      } finally {
        await writeOut(out);
      }
    });

  program
    .command('store')
    .description('the store of originals: path | info | prune | clear')
    .addArgument(
      checkedChoices(
        new Argument('<action>', 'path, info, prune or clear'),
        'store',
        'action',
        actions.STORE_ACTIONS,
      ),
    )
    .option('--json', 'machine-readable output (info, prune, clear)')
    .option('--yes', 'clear without asking (it asks only on a terminal)')
    .option('--config <file>', 'config file (for store settings)')
    .action(async (action: string, flags: { json?: boolean; yes?: boolean; config?: string }) => {
      const [{ storeCommand, askOnTerminal }, { loadConfig }, { openStore }] = await Promise.all([
        import('./commands/store.js'),
        import('./config.js'),
        import('./store/open.js'),
      ]);
      const config = await loadConfig(flags.config);
      const text = await storeCommand(action, openStore(config.store), {
        json: !!flags.json,
        yes: !!flags.yes,
        ...(process.stdin.isTTY && process.stderr.isTTY ? { ask: askOnTerminal } : {}),
      });
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      setExit(0);
    });

  program
    .command('stats')
    .description('tokens saved, from the ledger: totals, by component and command, net of cg expand')
    .option('--since <when>', 'only events since a duration ago (30m, 24h, 7d) or a date (2026-11-01)')
    .option('--session <id>', 'only events of this session ($CG_SESSION when they were recorded)')
    .option('--top <n>', 'rows per table (default: what fits one screen; 10 in --json and --html)')
    .option('--json', 'machine-readable report (keys are only ever added, never renamed)')
    .option('--graph', 'daily saved tokens as a bar chart')
    .option('--html <file>', 'the report as one self-contained HTML page, with charts (- for stdout)')
    .option('--reset', 'delete the ledger and pending records, and say what was removed')
    .option('--observed', 'what cg proxy --observe would have saved (its own ledger), not what was saved')
    .addHelpText(
      'after',
      `
The first figures are measured against what the agent host would have shown without cg (Claude
Code keeps ≤30,000 chars of a command's output inline, Codex 40,000 bytes, Gemini CLI 40,000
chars), the raw ones beside them. The host is recorded per run: CG_HOST=claude-code|codex|gemini
(none: raw), else the variable the host sets in its shells; CG_VIA=hook|proxy|pipe says the door.
Filters whose markers come back through cg expand too often are flagged "too aggressive".
`,
    )
    .action(async (flags) => {
      const { statsCommand } = await import('./commands/stats.js');
      setExit(await statsCommand(flags));
    });

  program
    .command('discover')
    .description('commands that went through with no filter, by tokens: the filters worth writing next')
    .option('--since <when>', 'only events since a duration ago (30m, 24h, 7d) or a date (2026-11-01)')
    .option('--session <id>', 'only events of this session ($CG_SESSION when they were recorded)')
    .option('--top <n>', 'rows (default 20)')
    .option('--json', 'machine-readable list (keys are only ever added, never renamed)')
    .action(async (flags) => {
      const { discoverCommand } = await import('./commands/discover.js');
      setExit(await discoverCommand(flags));
    });

  // Agent integrations: the hooks, their installer and doctor, the MCP server, shell completions.
  program
    .command('hook')
    .description(
      "an agent host's hook: reads the hook JSON on stdin; replaces tool output (claude, gemini) or wraps shell commands in cg run (codex)",
    )
    .addArgument(checkedChoices(new Argument('<host>', hostNamesSentence()), 'hook', 'host', HOST_NAMES))
    .option('--mcp-tool <name>', "the host's name for cg's MCP cg_expand tool: marker hints name it")
    .addHelpText('after', HOOK_EXAMPLES)
    .action(async (host: HostName, flags: { mcpTool?: string }) => {
      const { hookSubcommand } = await import('./commands/hook.js');
      setExit(await hookSubcommand(host, flags.mcpTool ? { mcpTool: flags.mcpTool } : {}));
    });

  program
    .command('init')
    .description(
      "add cg's hook to an agent host's settings (claude, codex, gemini), or print agent instructions (agents-md)",
    )
    .addArgument(
      checkedChoices(new Argument('<target>', hostNamesSentence(['agents-md'])), 'init', 'target', [
        ...HOST_NAMES,
        'agents-md',
      ]),
    )
    .option('--global', 'user-wide settings (~/.claude, ~/.codex, ~/.gemini; the default)')
    .option('--project', "this project's settings (./.claude, ./.codex, ./.gemini)")
    .option('--dry-run', 'print the change as a diff; write nothing')
    .option('--uninstall', "remove cg's hook, leaving everything else as it was")
    .option('--proxy [url]', 'point the agent at cg proxy instead (default http://127.0.0.1:8787)')
    .addHelpText('after', INIT_EXAMPLES)
    .action(async (target: string, flags) => {
      const [{ initCommand }, { writeOut }] = await Promise.all([
        import('./commands/init.js'),
        import('./io.js'),
      ]);
      let out = '';
      setExit(
        await initCommand(target, flags, {
          env: process.env,
          cwd: process.cwd(),
          out: (s) => {
            out += s;
          },
          err: (s) => process.stderr.write(s),
        }),
      );
      await writeOut(out);
    });

  program
    .command('doctor')
    .description(
      'check every installed agent integration: installed, trusted, host version, and the hook answering as the host expects',
    )
    .option('--json', 'machine-readable report (keys are only ever added, never renamed)')
    .action(async (flags: { json?: boolean }) => {
      const [{ doctorCommand }, { writeOut }] = await Promise.all([
        import('./commands/doctor.js'),
        import('./io.js'),
      ]);
      let out = '';
      setExit(
        await doctorCommand({
          json: !!flags.json,
          env: process.env,
          cwd: process.cwd(),
          out: (s) => {
            out += s;
          },
        }),
      );
      await writeOut(out);
    });

  program
    .command('proxy')
    .description('a local HTTP proxy that compacts agent request bodies on their way to the provider')
    .option('--port <n>', 'port to listen on (default 8787; 0 picks a free one)')
    .option('--host <addr>', 'address to listen on (default 127.0.0.1)')
    .option('--allow-remote', 'allow a --host that is not a loopback address (prints a warning)')
    .option(
      '--observe',
      'forward every body unchanged; record what would have been saved (cg stats --observed)',
    )
    .addOption(
      offered(
        new Option('-p, --preset <name>', 'component preset for request bodies (default agent)'),
        PRESET_NAMES,
      ),
    )
    .option('--anthropic-upstream <url>', 'where Anthropic requests go (default https://api.anthropic.com)')
    .option('--openai-upstream <url>', 'where OpenAI requests go (default https://api.openai.com)')
    .option(
      '--gemini-upstream <url>',
      'where Gemini API requests go (default https://generativelanguage.googleapis.com)',
    )
    .option('--timeout-ms <n>', 'a compaction taking longer forwards the original body (default 20000)')
    .option(
      '--retrieval <mode>',
      'answer cg_expand for clients with no shell: auto, always or never (default auto)',
    )
    .option('--config <file>', 'config file (its proxy: section counts only if it is your own)')
    .option('--no-store', 'do not stash originals: lossless components only')
    .option('-v, --verbose', 'one line per request on stderr (auth headers redacted, never bodies)')
    .addHelpText('after', PROXY_EXAMPLES)
    .action(async (flags) => {
      const { proxyCommand } = await import('./commands/proxy.js');
      setExit(await proxyCommand(flags));
    });

  program
    .command('wrap')
    .description(
      'run an agent (claude, codex, opencode) through cg proxy for this run: no settings file changed',
    )
    .argument('<host>', hostNamesSentence(WRAP_ONLY_HOST_NAMES))
    .argument('[args...]', "the host's own arguments")
    .option('--print-env', 'print the shell lines that point the host at the configured proxy, and exit')
    .option('--config <file>', 'config file (its proxy: section counts only if it is your own)')
    .passThroughOptions()
    .addHelpText('after', WRAP_EXAMPLES)
    .action(async (host: string, args: string[], flags: { printEnv?: boolean; config?: string }) => {
      const { wrapCommand } = await import('./commands/wrap.js');
      setExit(await wrapCommand(host, args, flags));
    });

  program
    .command('mcp')
    .description('serve cg_expand, cg_compress and cg_stats to an MCP client over stdio')
    .option('--config <file>', 'config file (store settings, store.hint)')
    .action(async (flags: { config?: string }) => {
      const { mcpCommand } = await import('./commands/mcp.js');
      setExit(await mcpCommand(flags));
    });

  program
    .command('completion')
    .description('print a shell completion script: bash, zsh or fish')
    .addArgument(checkedChoices(new Argument('<shell>', 'bash, zsh or fish'), 'completion', 'shell', SHELLS))
    .addHelpText('after', COMPLETION_EXAMPLES)
    .action(async (shell: string) => {
      const [{ completionScript }, { writeOut }] = await Promise.all([
        import('./commands/completion.js'),
        import('./io.js'),
      ]);
      await writeOut(completionScript(shell, program));
      setExit(0);
    });

  program.addHelpText('after', EXAMPLES);
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
