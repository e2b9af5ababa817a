/**
 * `cg filters ACTION`: look at, check and consent to declarative filters.
 *   list [--json|--names]     every usable filter in selection order: name, priority, source,
 *                             description (filters-list.ts)
 *   show NAME                 the filter's YAML
 *   verify [--require-all] [--json] [FILE...]
 *                             run inline tests (of FILEs, or of every loaded filter incl. builtins;
 *                             filters-verify.ts); exit 1 on any failure
 *   test NAME [FILE|-]        what the filter does to an input: the output on stdout, a summary of
 *                             what it dropped on stderr
 *   trust / untrust           the same as `cg trust` / `cg trust --untrust`: consent (or withdraw it)
 *                             for the project's .cg/filters/*.yaml and .cg.yaml together — one
 *                             consent, since either can change what the agent sees
 * list, show and test load filters without running their inline tests, so a filter being written
 * can be looked at and tried before its tests pass; verify is where tests are judged.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { didYouMean } from '../config/nearest.js';
import { type FilterSourceOptions, type LoadedFilters, loadFilters } from '../dsl/registry.js';
import { splitLines, stripAnsiText } from '../dsl/stages.js';
import type { CompiledFilter } from '../dsl/types.js';
import { UsageError } from '../errors.js';
import type { Presence } from '../trust/person.js';
import { FILTER_ACTIONS } from './actions.js';
import { listFilters } from './filters-list.js';
import { filtersOfFiles, verifyFilters } from './filters-verify.js';
import { trustCommand } from './trust.js';

export interface FiltersFlags {
  requireAll?: boolean;
  /** A filter file tried before all others (as for compress). */
  filters?: string;
  /** list, verify: one JSON object instead of text. */
  json?: boolean;
  /** list: the names alone, one a line. */
  names?: boolean;
}

export interface FiltersIO {
  cwd: string;
  env: NodeJS.ProcessEnv;
  out: (s: string) => void;
  err: (s: string) => void;
  /** All of stdin, for `test NAME -`. */
  stdin: () => Promise<string>;
  /** Who runs the command, for `trust` (see commands/trust.ts); this process when not given. */
  presence?: Presence;
  /** The terminal's width when stdout is one (list fits its lines to it). */
  columns?: number;
}

export { FILTER_ACTIONS };

export async function filtersCommand(
  action: string,
  args: readonly string[],
  flags: FiltersFlags,
  io: FiltersIO,
): Promise<number> {
  const opts: FilterSourceOptions = {
    cwd: io.cwd,
    env: io.env,
    ...(flags.filters !== undefined ? { filtersFile: flags.filters } : {}),
  };
  const arity = (min: number, max: number, usage: string) => {
    if (args.length < min || args.length > max)
      throw new UsageError(`filters ${action}: usage: cg filters ${usage}`);
  };
  switch (action) {
    case 'list':
      arity(0, 0, 'list');
      io.out(
        listFilters(await loaded(opts, io), {
          cwd: io.cwd,
          ...(flags.json ? { json: true } : {}),
          ...(flags.names ? { names: true } : {}),
          ...(io.columns !== undefined ? { columns: io.columns } : {}),
        }),
      );
      return 0;
    case 'show': {
      arity(1, 1, 'show NAME');
      const f = find(await loaded(opts, io), args[0]!);
      io.out(`# ${f.source}${f.sourceKind === 'builtin' ? ' (builtin)' : ''}\n${f.yaml}`);
      return 0;
    }
    case 'verify': {
      const l = args.length > 0 ? undefined : await loaded(opts, io);
      const filters = l ? l.filters : await filtersOfFiles(args, io.cwd);
      return verifyFilters(filters, l, {
        cwd: io.cwd,
        out: io.out,
        ...(flags.requireAll ? { requireAll: true } : {}),
        ...(flags.json ? { json: true } : {}),
      });
    }
    case 'test': {
      arity(1, 2, 'test NAME [FILE|-]');
      const f = find(await loaded(opts, io), args[0]!);
      const file = args[1];
      const input =
        file === undefined || file === '-' ? await io.stdin() : readInput(resolve(io.cwd, file), file);
      return tryFilter(f, input, io);
    }
    case 'trust':
      arity(0, 0, 'trust');
      return trustCommand({}, io);
    case 'untrust':
      arity(0, 0, 'untrust');
      return trustCommand({ untrust: true }, io);
    default:
      throw new UsageError(
        `filters: unknown action "${action}"${didYouMean(action, FILTER_ACTIONS)} (expected ${FILTER_ACTIONS.join(', ')})`,
      );
  }
}

async function loaded(opts: FilterSourceOptions, io: FiltersIO): Promise<LoadedFilters> {
  const l = await loadFilters(opts, { runTests: false });
  for (const n of l.notes) io.err(`cg: ${n}\n`);
  return l;
}

function find(l: LoadedFilters, name: string): CompiledFilter {
  const f = l.filters.find((x) => x.name === name);
  const names = l.filters.map((x) => x.name);
  if (!f) throw new UsageError(`no filter named "${name}"${didYouMean(name, names)} (see cg filters list)`);
  return f;
}

/** What an errno means to a person, for the errors an input file gives most. */
const READ_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many symbolic links',
};

function readInput(path: string, shown: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = (code && READ_ERRORS[code]) ?? (err as Error).message;
    throw new UsageError(`filters test: cannot read ${shown}: ${why}`);
  }
}

function tryFilter(f: CompiledFilter, input: string, io: FiltersIO): number {
  const r = f.run(input);
  io.out(r.text);
  if (r.text !== '' && !r.text.endsWith('\n')) io.out('\n');
  const inLines = splitLines(input).lines.map((l) => stripAnsiText(l.text).trimEnd());
  const outLines = new Set(splitLines(r.text).lines.map((l) => l.text.trimEnd()));
  const dropped = inLines.filter((l) => !outLines.has(l)).length;
  const loss =
    r.loss === 'tail'
      ? `tail (lines ${r.tailFrom}- cut; \`cg expand KEY --lines ${r.tailFrom}-\` gives them back)`
      : r.loss === 'none'
        ? 'none (output unchanged)'
        : 'whole';
  io.err(
    `--- [${f.name}] ${inLines.length} → ${splitLines(r.text).lines.length} lines; ` +
      `${dropped} input line${dropped === 1 ? '' : 's'} not in the output; loss: ${loss}\n`,
  );
  return 0;
}
