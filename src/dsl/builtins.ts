/**
 * The builtin filters (builtin-filters/*.yaml). The build step (scripts/build.mjs) calls
 * precompileBuiltins(): every file is parsed and validated, every regex compiled and every inline
 * test run — any failure fails the build — and the result is written to dist/ as JSON (specs in one
 * file, tests and YAML in another, see splitBundle), which loadBuiltinDefs() reads with JSON.parse
 * only when filters are first needed, so start-up neither parses YAML nor carries the filters in
 * the bundle. A source checkout that was never built (vitest, tsc) has no JSON next to this module;
 * then the YAML files themselves are read, so tests always see the current files.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.js';
import { yamlFilesIn } from '../trust/project.js';
import { compileFilter, patternsOf } from './compile.js';
import { exactPrefilter } from './exact-prefilter.js';
import { readFilterFile } from './parse.js';
import {
  compileRegex,
  loadRe2,
  type Prefilter,
  prefilterOf,
  registerPrefilters,
  registerPrefilterTexts,
} from './regex.js';
import type { FilterDef, FilterSpec } from './schema.js';
import type { FilterTest } from './types.js';
import { assertTestsPass } from './verify.js';

export const BUILTIN_JSON = 'builtin-filters.json';
export const BUILTIN_EXTRA_JSON = 'builtin-filters.tests.json';
export const BUILTIN_LABEL = 'builtin-filters';

export interface BuiltinBundle {
  schema_version: 1;
  filters: FilterDef[];
  /** RE2 prefilter of every pattern (null: none), so run time can skip hopeless compiles. */
  prefilters: Record<string, Prefilter | null>;
}

/**
 * Reads, validates and (with runTests) tests every filter file in dir. Throws ConfigError naming the
 * file and filter on the first problem, including a name defined in two builtin files.
 */
export async function precompileBuiltins(dir: string, runTests = true): Promise<BuiltinBundle> {
  await loadRe2();
  const filters: FilterDef[] = [];
  const prefilters: Record<string, Prefilter | null> = {};
  const seen = new Map<string, string>();
  for (const path of yamlFilesIn(dir)) {
    for (const def of await readFilterFile(path, `${BUILTIN_LABEL}/${basename(path)}`)) {
      const other = seen.get(def.spec.name);
      if (other) {
        throw new ConfigError(
          `filters.${def.spec.name}`,
          `duplicate filter name (also defined in ${other})`,
          def.file,
        );
      }
      seen.set(def.spec.name, def.file);
      const compiled = compileFilter(def, { kind: 'builtin', eager: true });
      if (runTests) assertTestsPass(compiled);
      for (const [pattern, field] of patternsOf(def.spec)) {
        const site = { file: def.file, path: `filters.${def.spec.name}.${field}` };
        prefilters[pattern] = strongest(prefilterOf(compileRegex(pattern, site)), exactPrefilter(pattern));
      }
      filters.push(def);
    }
  }
  registerPrefilters(prefilters);
  return { schema_version: 1, filters, prefilters };
}

/**
 * Both necessary conditions, when both exist: re2js's own and the exact sets' (exact-prefilter.ts),
 * which is the stronger one on most patterns but not on every one.
 */
function strongest(re2: Prefilter | null, exact: Prefilter | null | undefined): Prefilter | null {
  if (exact === undefined || exact === null) return re2;
  if (re2 === null || JSON.stringify(re2) === JSON.stringify(exact)) return exact;
  return { and: [exact, re2] };
}

/**
 * What start-up reads: each filter's spec without its tests, and its file; each pattern's prefilter
 * as its JSON text, parsed when the pattern is first tried (regex.ts).
 */
interface RuntimeBundle {
  schema_version: 1;
  filters: { file: string; spec: Omit<FilterSpec, 'tests'> }[];
  prefilters: Record<string, string>;
}

/**
 * JSON with every character past ASCII written as \uXXXX: the same values parsed, but read as a
 * one-byte string (a filter's `⟪drop⟫` made the whole file a two-byte string, slower to parse).
 */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** What only `cg filters show/verify` and the tests read: tests and YAML by filter name. */
type ExtraBundle = Record<string, { tests: FilterTest[]; yaml: string }>;

/**
 * The two files the build writes: BUILTIN_JSON (the specs selection and run() need, a few KB) and
 * BUILTIN_EXTRA_JSON (inline tests and YAML, most of the bytes), so choosing a filter never parses
 * a megabyte of test fixtures.
 */
export function splitBundle(bundle: BuiltinBundle): Record<string, string> {
  const prefilters = Object.fromEntries(
    Object.entries(bundle.prefilters).map(([pattern, p]) => [pattern, JSON.stringify(p)]),
  );
  const runtime: RuntimeBundle = { schema_version: 1, filters: [], prefilters };
  const extra: ExtraBundle = {};
  for (const { spec, file, yaml } of bundle.filters) {
    const { tests, ...rest } = spec;
    runtime.filters.push({ file, spec: rest });
    extra[spec.name] = { tests, yaml };
  }
  return { [BUILTIN_JSON]: asciiJson(runtime), [BUILTIN_EXTRA_JSON]: JSON.stringify(extra) };
}

let cached: Promise<FilterDef[]> | undefined;

/** The builtin filter definitions: the pre-compiled JSON when built, else the YAML sources. */
export function loadBuiltinDefs(): Promise<FilterDef[]> {
  cached ??= (async () => {
    const json = new URL(`./${BUILTIN_JSON}`, import.meta.url);
    if (existsSync(json)) {
      const bundle = JSON.parse(readFileSync(json, 'utf8')) as RuntimeBundle;
      registerPrefilterTexts(bundle.prefilters ?? {});
      let extra: ExtraBundle | undefined;
      const extras = (name: string) => {
        extra ??= JSON.parse(
          readFileSync(new URL(`./${BUILTIN_EXTRA_JSON}`, import.meta.url), 'utf8'),
        ) as ExtraBundle;
        return extra[name] ?? { tests: [], yaml: '' };
      };
      return bundle.filters.map(({ file, spec }) => {
        const full = spec as FilterSpec;
        Object.defineProperty(full, 'tests', { get: () => extras(spec.name).tests, enumerable: true });
        return {
          file,
          spec: full,
          get yaml() {
            return extras(spec.name).yaml;
          },
        };
      });
    }
    for (const rel of ['../builtin-filters/', '../../builtin-filters/']) {
      const dir = fileURLToPath(new URL(rel, import.meta.url));
      if (existsSync(dir)) return (await precompileBuiltins(dir, false)).filters;
    }
    return [];
  })();
  return cached;
}
