/**
 * `cg filters ACTION`: look at, check and consent to declarative filters.
 *   list                      every usable filter in selection order: name, priority, source, description
 *   show NAME                 the filter's YAML
 *   verify [--require-all] [FILE...]
 *                             run inline tests (of FILEs, or of every loaded filter incl. builtins);
 *                             `FAIL [filter] test` blocks with expected and actual, then exactly
 *                             `N passed, M failed`; exit 1 on any failure (--require-all: also for a
 *                             filter without tests)
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
import { compileFilter } from '../dsl/compile.js';
import { readFilterFile } from '../dsl/parse.js';
import { loadRe2 } from '../dsl/regex.js';
import { type FilterSourceOptions, type LoadedFilters, loadFilters } from '../dsl/registry.js';
import { splitLines, stripAnsiText } from '../dsl/stages.js';
import type { CompiledFilter } from '../dsl/types.js';
import { formatFailure, runTests } from '../dsl/verify.js';
import { UsageError } from '../errors.js';
import { FILTER_ACTIONS } from './actions.js';
import { trustCommand } from './trust.js';

export interface FiltersFlags {
  requireAll?: boolean;
  /** A filter file tried before all others (as for compress). */
  filters?: string;
}

export interface FiltersIO {
  cwd: string;
  env: NodeJS.ProcessEnv;
  out: (s: string) => void;
  err: (s: string) => void;
  /** All of stdin, for `test NAME -`. */
  stdin: () => Promise<string>;
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
      return list(await loaded(opts, io), io);
    case 'show': {
      arity(1, 1, 'show NAME');
      const f = find(await loaded(opts, io), args[0]!);
      io.out(`# ${f.source}${f.sourceKind === 'builtin' ? ' (builtin)' : ''}\n${f.yaml}`);
      return 0;
    }
    case 'verify':
      return verify(args, flags, opts, io);
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

function list(l: LoadedFilters, io: FiltersIO): number {
  if (l.filters.length === 0) {
    io.out('no filters\n');
    return 0;
  }
  const rows = [
    ['NAME', 'PRIORITY', 'SOURCE', 'DESCRIPTION'],
    ...l.filters.map((f) => [f.name, String(f.priority), `${f.sourceKind}: ${f.source}`, f.description]),
  ];
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows) {
    io.out(
      `${r
        .map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c))
        .join('  ')
        .trimEnd()}\n`,
    );
  }
  for (const o of l.overridden) {
    io.out(`(${o.filter.name} from ${o.filter.source} is overridden by ${o.by.source})\n`);
  }
  return 0;
}

async function verify(
  files: readonly string[],
  flags: FiltersFlags,
  opts: FilterSourceOptions,
  io: FiltersIO,
): Promise<number> {
  let filters: CompiledFilter[];
  if (files.length > 0) {
    await loadRe2();
    filters = [];
    for (const file of files) {
      for (const def of await readFilterFile(resolve(io.cwd, file), file)) {
        filters.push(compileFilter(def, { kind: 'file', eager: true }));
      }
    }
  } else {
    filters = (await loaded(opts, io)).filters;
  }
  let passed = 0;
  let failed = 0;
  for (const f of filters) {
    if (f.tests.length === 0 && flags.requireAll) {
      failed++;
      io.out(`FAIL [${f.name}] (no inline tests)\n  ${f.source}; --require-all needs at least one test\n\n`);
      continue;
    }
    for (const o of runTests(f)) {
      if (o.ok) {
        passed++;
        continue;
      }
      failed++;
      io.out(`${formatFailure(o)}\n`);
    }
  }
  io.out(`${passed} passed, ${failed} failed\n`);
  return failed > 0 ? 1 : 0;
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
