/**
 * The rows of the commands over what cg keeps: declarative filters, project trust, the store of
 * originals and the stats ledger (stats, discover). Each action imports its command's module when
 * it runs; the action lists come from one light module so help and completion need no command.
 */

import { FILTER_ACTIONS, STORE_ACTIONS } from '../commands/actions.js';
import type { FiltersFlags } from '../commands/filters.js';
import type { TrustFlags } from '../commands/trust.js';
import { type CommandRow, flagsAction, type OptionRow } from './command-row.js';

const FILTERS_EXAMPLES = `
Examples:
  cg filters list                           every filter, in the order they are tried
  cg filters show pytest                    the YAML of one filter
  cg filters test pytest out.txt            what it keeps of out.txt (summary on stderr)
  cg filters verify --require-all           run every inline test
  cg filters verify .cg/filters/mine.yaml   run the tests of one file
  cg filters trust                          use this project's filters (the same as cg trust)
`;

const TRUST_HELP = `
Until trusted, a project's .cg.yaml and .cg/filters/*.yaml are ignored (one line on stderr says so).
Trusting records a hash of them in $XDG_CONFIG_HOME/cg/trusted.json; any edit needs cg trust again.
It is yours to give: it needs a terminal, and refuses inside an agent's tool call (--show and
--untrust work anywhere).

Examples:
  cg trust --show                           what is there, and what its config may do
  cg trust                                  check the files and use them from now on
  cg trust --untrust                        ignore them again
`;

const STATS_HELP = `
The first figures are measured against what the agent host would have shown without cg (Claude
Code keeps ≤30,000 chars of a command's output inline, Codex 40,000 bytes, Gemini CLI 40,000
chars), the raw ones beside them. The host is recorded per run: CG_HOST=claude-code|codex|gemini
(none: raw), else the variable the host sets in its shells; CG_VIA=hook|proxy|pipe says the door.
Filters whose markers come back through cg expand too often are flagged "too aggressive".
`;

/** What stats and discover filter the ledger by. */
const LEDGER_OPTIONS: readonly OptionRow[] = [
  {
    flags: '--since <when>',
    description: 'only events since a duration ago (30m, 24h, 7d) or a date (2026-11-01)',
  },
  {
    flags: '--session <id>',
    description: 'only events of this session ($CG_SESSION when they were recorded)',
  },
];

/** Output collected, then written: stdout first, then stderr (a summary after what it describes). */
function collector() {
  const parts = { out: '', err: '' };
  return {
    parts,
    out: (s: string) => {
      parts.out += s;
    },
    err: (s: string) => {
      parts.err += s;
    },
  };
}

export const DATA_COMMANDS: readonly CommandRow[] = [
  {
    name: 'filters',
    description:
      'declarative output filters: list | show NAME | verify [FILE...] | test NAME [FILE|-] | trust | untrust',
    arguments: [
      {
        spec: '<action>',
        description: 'list, show, verify, test, trust or untrust',
        checked: { label: 'filters', noun: 'action', values: FILTER_ACTIONS },
      },
      {
        spec: '[args...]',
        description:
          'show/test: a filter name (test: then an input FILE, or - for stdin); verify: filter files',
      },
    ],
    options: [
      {
        flags: '--require-all',
        description: 'verify: also fail filters that have no inline tests, and skipped project files',
      },
      {
        flags: '--filters <file>',
        description: 'a filter file tried before project, user and builtin filters',
      },
      {
        flags: '--json',
        description: 'list, verify: machine-readable (keys are only ever added, never renamed)',
      },
      { flags: '--names', description: 'list: filter names only, one a line' },
    ],
    help: FILTERS_EXAMPLES,
    // `cg filters show <TAB>`: the filters of this project and user too, asked of cg when completing.
    completesNames: { after: ['show', 'test'], argv: ['filters', 'list', '--names'] },
    async action({ args: [action, args], flags }) {
      const [{ filtersCommand }, { readStdin, writeOut }] = await Promise.all([
        import('../commands/filters.js'),
        import('../io.js'),
      ]);
      const io = collector();
      try {
        return await filtersCommand(action as string, args as string[], flags as FiltersFlags, {
          cwd: process.cwd(),
          env: process.env,
          out: io.out,
          err: io.err,
          stdin: async () => (await readStdin()).toString('utf8'),
          ...(process.stdout.isTTY && process.stdout.columns ? { columns: process.stdout.columns } : {}),
        });
      } finally {
        await writeOut(io.parts.out);
        process.stderr.write(io.parts.err);
      }
    },
  },
  {
    name: 'trust',
    description:
      "consent to this project's .cg.yaml and .cg/filters (found from here up to the repository root)",
    options: [
      {
        flags: '--show',
        description: 'list the files, say whether they are trusted and what their config may do',
      },
      { flags: '--untrust', description: 'withdraw consent: the files are ignored again' },
      {
        flags: '--json',
        description: 'with --show: machine-readable (keys are only ever added, never renamed)',
      },
    ],
    help: TRUST_HELP,
    async action({ flags }) {
      const [{ trustCommand }, { writeOut }] = await Promise.all([
        import('../commands/trust.js'),
        import('../io.js'),
      ]);
      const io = collector();
      try {
        return await trustCommand(flags as TrustFlags, { cwd: process.cwd(), env: process.env, out: io.out });
      } finally {
        await writeOut(io.parts.out);
      }
    },
  },
  {
    name: 'store',
    description: 'the store of originals: path | info | prune | clear',
    arguments: [
      {
        spec: '<action>',
        description: 'path, info, prune or clear',
        checked: { label: 'store', noun: 'action', values: STORE_ACTIONS },
      },
    ],
    options: [
      { flags: '--json', description: 'machine-readable output (info, prune, clear)' },
      { flags: '--yes', description: 'clear without asking (it asks only on a terminal)' },
      { flags: '--config <file>', description: 'config file (for store settings)' },
    ],
    async action({ args: [action], flags }) {
      const [{ storeCommand, askOnTerminal }, { loadConfig }, { openStore }] = await Promise.all([
        import('../commands/store.js'),
        import('../config.js'),
        import('../store/open.js'),
      ]);
      const config = await loadConfig(flags.config as string | undefined);
      const text = await storeCommand(action as string, openStore(config.store), {
        json: !!flags.json,
        yes: !!flags.yes,
        ...(process.stdin.isTTY && process.stderr.isTTY ? { ask: askOnTerminal } : {}),
      });
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      return 0;
    },
  },
  {
    name: 'stats',
    description: 'tokens saved, from the ledger: totals, by component and command, net of cg expand',
    options: [
      ...LEDGER_OPTIONS,
      {
        flags: '--top <n>',
        description: 'rows per table (default: what fits one screen; 10 in --json and --html)',
      },
      { flags: '--json', description: 'machine-readable report (keys are only ever added, never renamed)' },
      { flags: '--graph', description: 'daily saved tokens as a bar chart' },
      {
        flags: '--html <file>',
        description: 'the report as one self-contained HTML page, with charts (- for stdout)',
      },
      { flags: '--reset', description: 'delete the ledger and pending records, and say what was removed' },
      {
        flags: '--observed',
        description: 'what cg proxy --observe would have saved (its own ledger), not what was saved',
      },
    ],
    help: STATS_HELP,
    action: flagsAction(async () => (await import('../commands/stats.js')).statsCommand),
  },
  {
    name: 'discover',
    description: 'commands that went through with no filter, by tokens: the filters worth writing next',
    options: [
      ...LEDGER_OPTIONS,
      { flags: '--top <n>', description: 'rows (default 20)' },
      { flags: '--json', description: 'machine-readable list (keys are only ever added, never renamed)' },
    ],
    action: flagsAction(async () => (await import('../commands/discover.js')).discoverCommand),
  },
];
