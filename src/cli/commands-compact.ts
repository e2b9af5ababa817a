/**
 * The rows of the commands that compact and give back: the filter itself (compress, the default
 * command), `cg run` and `cg expand`. Each action imports its command's module when it runs.
 */
import type { ExpandFlags } from '../commands/expand.js';
import type { RunFlags } from '../commands/run.js';
import { FORMAT_CHOICES } from '../input/transcript.js';
import { PRESET_NAMES } from '../presets.js';
import { TOKENIZERS } from '../tokens.js';
import { type CommandRow, flagsAction, type OptionRow } from './command-row.js';

/** After the help of the program and of compress. */
export const EXAMPLES = `
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

/** Options shared by every command that compacts output (compress and run), after their own. */
const COMPACT_OPTIONS: readonly OptionRow[] = [
  {
    flags: '-p, --preset <name>',
    description: 'component preset (default: shell for text, balanced for request bodies)',
    offered: PRESET_NAMES,
  },
  {
    flags: '-c, --components <list>',
    description: 'explicit comma-separated component list, instead of a preset',
  },
  {
    flags: '--config <file>',
    description: 'config file (default: $CG_CONFIG, a trusted .cg.yaml, $XDG_CONFIG_HOME/cg/config.yaml)',
  },
  { flags: '-q, --query <text>', description: 'what the agent is looking for (query-aware components)' },
  { flags: '--lang <lang>', description: 'source language of the input (code components)' },
  {
    flags: '--tokenizer <name>',
    description: 'tokenizer for token decisions',
    checked: { label: '--tokenizer', noun: 'tokenizer', values: TOKENIZERS },
  },
  { flags: '--no-store', description: 'do not stash originals: lossless components only' },
  { flags: '-v, --verbose', description: 'one line per component decision on stderr' },
  { flags: '--explain', description: 'a table of what each component did, on stderr' },
  { flags: '--force', description: 'compact even when stdout is a regular file' },
  {
    flags: '--for-model',
    description: 'the reader is a model: compact wherever stdout goes (also CG_READER=model)',
  },
  { flags: '--quiet', description: 'say nothing when output goes raw into a regular file' },
  { flags: '--filters <file>', description: 'a filter file tried before project, user and builtin filters' },
];

export const COMPACT_COMMANDS: readonly CommandRow[] = [
  {
    name: 'compress',
    isDefault: true,
    description: 'read stdin (command output or an LLM request body), write the compacted version to stdout',
    options: [
      {
        flags: '-f, --format <format>',
        description: 'input format',
        checked: { label: '--format', noun: 'format', values: FORMAT_CHOICES },
        default: 'auto',
      },
      { flags: '--command <cmd>', description: 'the command that produced the text (selects filters)' },
      {
        flags: '--session <id>',
        description:
          'conversation id for cache-stable replay of request bodies (default: $CG_SESSION, else derived)',
      },
      { flags: '--no-session', description: 'no replay: decide every tool output afresh and record nothing' },
      ...COMPACT_OPTIONS,
    ],
    help: EXAMPLES,
    action: flagsAction(async () => (await import('../commands/compress.js')).compressCommand),
  },
  {
    name: 'run',
    description: "run a command and compact its output; the command's exit code is kept",
    arguments: [{ spec: '[command...]', description: 'the command and its arguments (after --)' }],
    options: [
      {
        flags: '--shell <script>',
        description: 'run a shell script instead (sh -c), e.g. --shell "make 2>&1 | tee log"',
      },
      { flags: '--raw', description: 'print the output unchanged' },
      ...COMPACT_OPTIONS,
    ],
    passThroughOptions: true,
    help: RUN_EXAMPLES,
    async action({ args: [argv], flags }) {
      const { runSubcommand } = await import('../commands/run.js');
      return runSubcommand(argv as string[], flags as RunFlags);
    },
  },
  {
    name: 'expand',
    description:
      'print the original behind a marker (key, <<cg:KEY>>, cg:KEY, JSON, or text with markers on stdin)',
    arguments: [{ spec: '[keys...]', description: 'keys or markers; read from stdin when none are given' }],
    options: [
      { flags: '--lines <range>', description: 'only lines A-B (1-based; also A-, -B, A)' },
      { flags: '--grep <regex>', description: 'only lines matching the regular expression, as N:line' },
      { flags: '--config <file>', description: 'config file (for store.dir)' },
    ],
    async action({ args: [keys], flags }) {
      const { expandCommand } = await import('../commands/expand.js');
      return expandCommand(keys as string[], flags as ExpandFlags);
    },
  },
];
