/**
 * `cg filters verify [--require-all] [--json] [FILE...]`: runs the inline tests of the filters in
 * FILEs, or of every loaded filter (builtins included) when none is given. Text: a `FAIL [filter]
 * test` block per failure, then `N passed, M failed` — followed, when the project has filter files
 * that were left out as untrusted, by `; not verified: …` naming them, so a summary never reads as
 * success over files it skipped (--require-all then fails; naming the files verifies them).
 * Exit 1 on any failure. The JSON keys are only ever added, never renamed.
 */
import { resolve } from 'node:path';
import { compileFilter } from '../dsl/compile.js';
import { readFilterFile } from '../dsl/parse.js';
import { loadRe2 } from '../dsl/regex.js';
import type { LoadedFilters } from '../dsl/registry.js';
import type { CompiledFilter } from '../dsl/types.js';
import { firstDifference, formatFailure, runTests, type TestOutcome } from '../dsl/verify.js';
import { type SkippedFiles, skippedProjectFilters } from './filters-skipped.js';

export interface VerifyOptions {
  requireAll?: boolean;
  json?: boolean;
  cwd: string;
  out: (s: string) => void;
}

/** The filters of the named files, compiled eagerly (their regexes checked now). */
export async function filtersOfFiles(files: readonly string[], cwd: string): Promise<CompiledFilter[]> {
  await loadRe2();
  const filters: CompiledFilter[] = [];
  for (const file of files) {
    for (const def of await readFilterFile(resolve(cwd, file), file)) {
      filters.push(compileFilter(def, { kind: 'file', eager: true }));
    }
  }
  return filters;
}

export function verifyFilters(
  filters: readonly CompiledFilter[],
  loaded: LoadedFilters | undefined,
  o: VerifyOptions,
): number {
  const failures: TestOutcome[] = [];
  const untested: CompiledFilter[] = [];
  let passed = 0;
  for (const f of filters) {
    if (f.tests.length === 0 && o.requireAll) {
      untested.push(f);
      if (!o.json)
        o.out(`FAIL [${f.name}] (no inline tests)\n  ${f.source}; --require-all needs at least one test\n\n`);
      continue;
    }
    for (const t of runTests(f)) {
      if (t.ok) passed++;
      else {
        failures.push(t);
        if (!o.json) o.out(`${formatFailure(t)}\n`);
      }
    }
  }
  const skipped = loaded ? skippedProjectFilters(loaded.project, o.cwd) : undefined;
  const failed = failures.length + untested.length;
  const ok = failed === 0 && !(o.requireAll && skipped);
  if (o.json) {
    o.out(`${JSON.stringify(verifyJson(passed, failed, ok, failures, untested, skipped), null, 2)}\n`);
  } else {
    o.out(`${passed} passed, ${failed} failed${skipped ? `; ${notVerified(skipped, o.requireAll)}` : ''}\n`);
  }
  return ok ? 0 : 1;
}

function notVerified(s: SkippedFiles, requireAll: boolean | undefined): string {
  const n = s.files.length;
  const files = `${n} project filter file${n === 1 ? '' : 's'}`;
  const why = `${s.reason}: cg trust, or name ${n === 1 ? 'it' : 'them'}: cg filters verify ${s.files.join(' ')}`;
  return `not verified: ${files} (${why})${requireAll ? ', which --require-all does not allow' : ''}`;
}

function verifyJson(
  passed: number,
  failed: number,
  ok: boolean,
  failures: readonly TestOutcome[],
  untested: readonly CompiledFilter[],
  skipped: SkippedFiles | undefined,
) {
  return {
    ok,
    passed,
    failed,
    failures: failures.map((t) => ({
      filter: t.filter,
      source: t.source,
      test: t.test,
      difference: firstDifference(t.expected, t.actual),
      expected: t.expected,
      actual: t.actual,
    })),
    untested: untested.map((f) => ({ filter: f.name, source: f.source })),
    skipped: skipped ?? null,
  };
}
