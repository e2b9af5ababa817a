/**
 * Filter lookup and selection (DESIGN §5).
 *
 * Sources, in lookup order: `--filters FILE`, the project's .cg/filters/*.yaml (the project found
 * from cwd up; only once trusted, see trust/state.ts), $XDG_CONFIG_HOME/cg/filters/*.yaml, the
 * builtins. Selection walks the sources in that order and, within one source, tries filters by
 * priority (higher first) then name; the first whose `match` finds the selector wins. So a filter you add always beats a builtin for the outputs it
 * matches, whatever the builtin's priority.
 *
 * Names: within one source (one --filters file, the project directory, the user directory, the
 * builtins) a name may be defined once; twice is an error. Across sources, a filter deliberately
 * replaces the same-named filter of every later source — copy a builtin into
 * ~/.config/cg/filters/ under its own name to change it (`cg filters list` marks the override).
 *
 * Loading is lazy: createFilterSource() reads nothing until select() is first called, and re2js is
 * imported only once a pattern may match (its prefilter passes) or a filter is chosen. Non-builtin files are validated fully at load — schema, every regex, every
 * inline test — and any problem is a ConfigError naming the file and filter (exit 2). Every file is
 * read as a bounded regular file; project files are parsed from the very bytes their trust hash was
 * checked on.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { FilterSource } from '../component.js';
import { ConfigError } from '../errors.js';
import { announceIgnored, ignoredNotice } from '../trust/notice.js';
import { yamlFilesIn } from '../trust/project.js';
import { configHome } from '../trust/record.js';
import { type ProjectTrust, projectTrust } from '../trust/state.js';
import { loadBuiltinDefs } from './builtins.js';
import { compileFilter } from './compile.js';
import { parseFilterText, readFilterFile } from './parse.js';
import { loadRe2 } from './regex.js';
import type { FilterDef } from './schema.js';
import { stripAnsiText } from './stages.js';
import type { CompiledFilter, FilterSourceKind } from './types.js';
import { assertTestsPass } from './verify.js';

export interface FilterSourceOptions {
  /** A filter file tried before all others (--filters FILE), relative to cwd. */
  filtersFile?: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Told that project filters were ignored (default: one `cg: …` line on stderr, once). */
  onNote?: (s: string) => void;
}

export interface LoadOptions {
  /** Run inline tests of non-builtin filters (a failure is a load error). Default true. */
  runTests?: boolean;
  /** Where builtin definitions come from (tests substitute their own). */
  builtins?: () => Promise<FilterDef[]>;
}

export interface Override {
  filter: CompiledFilter;
  by: CompiledFilter;
}

export interface LoadedFilters {
  /** Every usable filter, in the order selection tries them. */
  filters: CompiledFilter[];
  /** Filters hidden by a same-named filter of an earlier source. */
  overridden: Override[];
  notes: string[];
  project: ProjectTrust;
}

/** How many non-empty output lines follow the `$ <command>` line in a selector. */
export const SELECTOR_LINES = 5;
const SELECTOR_LINE_MAX = 1000;

/**
 * `$ <command>` (newlines folded to spaces) when the command is known, then the first
 * SELECTOR_LINES non-blank lines of the output, ANSI codes and "\r" removed, each cut at 1000
 * characters. Reads only as far into the text as it needs.
 */
export function selectorFor(command: string | undefined, text: string): string {
  const parts: string[] = [];
  if (command !== undefined && command.trim() !== '')
    parts.push(`$ ${command.trim().replace(/\s*\n\s*/g, ' ')}`);
  let start = 0;
  let found = 0;
  while (found < SELECTOR_LINES && start < text.length) {
    const nl = text.indexOf('\n', start);
    const end = nl === -1 ? text.length : nl;
    let line = text.slice(start, Math.min(end, start + SELECTOR_LINE_MAX * 2));
    line = stripAnsiText(line).replace(/\r/g, '');
    if (line.trim() !== '') {
      parts.push(line.length > SELECTOR_LINE_MAX ? line.slice(0, SELECTOR_LINE_MAX) : line);
      found++;
    }
    start = end + 1;
  }
  return parts.join('\n');
}

/** The first filter (in order) whose match finds the selector, skipping excluded names. */
export function selectFilter(
  filters: readonly CompiledFilter[],
  selector: string,
  exclude: readonly string[] = [],
): CompiledFilter | undefined {
  for (const f of filters) {
    if (exclude.includes(f.name)) continue;
    if (f.matches(selector)) return f;
  }
  return undefined;
}

/** Priority (higher first), then name. */
export function byPriority(a: CompiledFilter, b: CompiledFilter): number {
  return b.priority - a.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

export function userFiltersDir(env: NodeJS.ProcessEnv): string {
  return join(configHome(env), 'cg', 'filters');
}

/** A path as users know it: relative under cwd, ~ under home, else absolute. */
function shown(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  if (rel && !rel.startsWith('..')) return rel;
  const home = homedir();
  return path.startsWith(`${home}/`) ? `~/${path.slice(home.length + 1)}` : path;
}

async function readLevel(files: readonly string[], cwd: string): Promise<FilterDef[]> {
  const defs: FilterDef[] = [];
  for (const f of files) defs.push(...(await readFilterFile(f, shown(f, cwd))));
  return defs;
}

/** Compiles one source's filters: duplicate names are errors; non-builtins are validated fully. */
export function compileLevel(
  defs: readonly FilterDef[],
  kind: FilterSourceKind,
  runTests: boolean,
): CompiledFilter[] {
  const seen = new Map<string, string>();
  const out: CompiledFilter[] = [];
  for (const def of defs) {
    const other = seen.get(def.spec.name);
    if (other !== undefined) {
      throw new ConfigError(
        `filters.${def.spec.name}`,
        `duplicate filter name (also defined in ${other === def.file ? 'this file' : other})`,
        def.file,
      );
    }
    seen.set(def.spec.name, def.file);
    const builtin = kind === 'builtin';
    const compiled = compileFilter(def, { kind, eager: !builtin });
    if (!builtin && runTests) assertTestsPass(compiled);
    out.push(compiled);
  }
  return out.sort(byPriority);
}

/**
 * Every filter of every source, validated, in selection order. re2js is loaded first, unless
 * `regexNow` is false: then only if a file other than the builtins' is compiled (eagerly, to
 * validate it); the builtins compile their patterns on first use.
 */
export async function loadFilters(
  opts: FilterSourceOptions,
  load: LoadOptions = {},
  regexNow = true,
): Promise<LoadedFilters> {
  const runTests = load.runTests ?? true;
  if (regexNow) await loadRe2();
  const notes: string[] = [];
  const levels: { kind: FilterSourceKind; defs: FilterDef[] }[] = [];
  if (opts.filtersFile !== undefined) {
    const path = resolve(opts.cwd, opts.filtersFile);
    levels.push({ kind: 'file', defs: await readFilterFile(path, opts.filtersFile) });
  }
  const project = projectTrust(opts.cwd, opts.env);
  if (project.status === 'trusted') {
    const defs: FilterDef[] = [];
    for (const f of project.contents.filters) defs.push(...(await parseFilterText(f.text, f.shown)));
    levels.push({ kind: 'project', defs });
  } else if (project.status !== 'none' && project.project.filtersDir !== undefined) {
    notes.push(ignoredNotice(project, opts.cwd) ?? '');
  }
  levels.push({ kind: 'user', defs: await readLevel(yamlFilesIn(userFiltersDir(opts.env)), opts.cwd) });
  levels.push({ kind: 'builtin', defs: await (load.builtins ?? loadBuiltinDefs)() });

  const filters: CompiledFilter[] = [];
  const overridden: Override[] = [];
  const byName = new Map<string, CompiledFilter>();
  for (const level of levels) {
    if (level.kind !== 'builtin' && level.defs.length > 0) await loadRe2();
    for (const f of compileLevel(level.defs, level.kind, runTests)) {
      const by = byName.get(f.name);
      if (by) {
        overridden.push({ filter: f, by });
        continue;
      }
      byName.set(f.name, f);
      filters.push(f);
    }
  }
  return { filters, overridden, notes, project };
}

export interface FilterRegistry extends FilterSource {
  /**
   * Loads (once) and returns every filter, with re2js loaded for them unless `regexNow` is false
   * (select: only when a pattern may match).
   */
  load(regexNow?: boolean): Promise<LoadedFilters>;
  /** The load error, once loading failed: the CLI reports it (exit 2) after the run. */
  readonly error: ConfigError | undefined;
}

/**
 * The FilterSource the CLI hands to the pipeline (compress and `cg run`). Nothing is read until
 * select() is first called; only a missing --filters file is reported at once.
 */
export function createFilterSource(opts: FilterSourceOptions, load: LoadOptions = {}): FilterRegistry {
  if (opts.filtersFile !== undefined && !existsSync(resolve(opts.cwd, opts.filtersFile))) {
    throw new ConfigError('', `filter file not found: ${resolve(opts.cwd, opts.filtersFile)}`, '--filters');
  }
  let loading: Promise<LoadedFilters> | undefined;
  let error: ConfigError | undefined;
  const registry: FilterRegistry = {
    get error() {
      return error;
    },
    load(regexNow = true) {
      loading ??= loadFilters(opts, load, false).then(
        (loaded) => {
          if (loaded.notes.length > 0) announceIgnored(loaded.project, opts.cwd, opts.onNote);
          return loaded;
        },
        (err: unknown) => {
          if (err instanceof ConfigError) error = err;
          throw err;
        },
      );
      if (!regexNow) return loading;
      return loading.then(async (loaded) => {
        await loadRe2();
        return loaded;
      });
    },
    async select(command, text, options) {
      const { filters } = await registry.load(false);
      const selector = selectorFor(command, text);
      const exclude = options?.exclude ?? [];
      // re2js (≈ 10 ms to load, as much again for a first pattern) only when a pattern may match;
      // a filter chosen by its shape alone needs it too, for run().
      if (filters.some((f) => !exclude.includes(f.name) && f.needsRegex(selector))) await loadRe2();
      const chosen = selectFilter(filters, selector, exclude);
      if (chosen) await loadRe2();
      return chosen;
    },
  };
  return registry;
}
