/**
 * failed_run — lossy, transcript: when the same command was run again later (the agent fixed
 * something and re-ran its tests or build), an earlier run that failed becomes
 * `[superseded by a later run] <<cg:KEY>>` + hint. The newest run of a command stays whole, and so do
 * earlier runs that passed (they say what used to work).
 *
 * A "run" is recognised by line-anchored signals of test runners and build tools (pytest, unittest,
 * cargo, go test, jest/vitest, mocha, ExUnit, maven/gradle, npm, make, tsc, Python tracebacks, Go
 * panics);
 * only the `N passed` summary may sit mid-line. Line anchoring is what keeps a source file that merely
 * contains "Traceback" from counting: Claude Code's Read prefixes every line with its number, and a
 * file shown by cat/head/grep/git show/… is a read, not a run (src/shell/program.ts tells them
 * apart, past `cd x &&`, `sudo` and the like). Only outputs with a known shell command are
 * considered, and "the same command" means the same text up to whitespace. A failed run the agent
 * host flagged as an error (Claude Code marks every non-zero exit) is folded like any other once it
 * is superseded; the newest run stays, which the gates guarantee too.
 */
import {
  type Candidate,
  MARKER_SLOT,
  type Outcome,
  type OutputView,
  type TranscriptComponent,
} from '../component.js';
import { type ConfigOf, integer, section } from '../config/fields.js';
import { commandKey, isReadCommand } from '../shell/program.js';

/** The settings, declared once: parser, defaults and the reference tables (scripts/docs.mjs). */
export const CONFIG = section({ min_tokens: integer().or(100).doc('smaller superseded runs stay') });
export type FailedRunConfig = ConfigOf<typeof CONFIG>;

/** Any of these marks a test or build run. */
const RUN_SIGNALS: readonly RegExp[] = [
  /\b\d+ passed\b/,
  /^\s*\d+ (?:passing|failing)\b/m,
  /^=+ (?:test session starts|FAILURES|ERRORS|short test summary info) =+\s*$/m,
  /^Ran \d+ tests? in [\d.]+s\s*$/m,
  /^(?:\[\w+\]\s*)?BUILD (?:SUCCESS|SUCCESSFUL|FAILURE|FAILED)\b/m,
  /^Traceback \(most recent call last\):/m,
  /^FAILED\b/m,
  /^(?:ERROR|FAILED|FAIL|PASS|ok)\s+\S+\s+\(?[\d.]+m?s\)?/m,
  /^--- (?:FAIL|PASS):/m,
  /^(?:PASS|FAIL)\s*$/m,
  /^\s?(?:PASS|FAIL)\s+\S+\.(?:[cm]?[jt]sx?)\b/m,
  /^panic: /m,
  /^thread '.*' panicked at/m,
  /^npm ERR!/m,
  /^test result: (?:ok|FAILED)\./m,
  /^error(?:\[E\d+\])?: could not compile/m,
  /^error\[E\d+\]: /m,
  /^\s*Finished .*target\(s\) in /m,
  /^\s*Tests?:\s+(?:\d+ \w+, )*\d+ total/m,
  /^\s*Test (?:Files|Suites):\s+\d/m,
  /^make(?:\[\d+\])?: \*\*\*/m,
  /^Found \d+ errors?\b/m,
  /^\d+ (?:doctests?|tests?|properties)(?:, \d+ \w+)*, \d+ failures?\b/m,
  /^Finished in [\d.]+ seconds\b/m,
];

/** Given a run, any of these says it failed. */
const FAILURE_SIGNALS: readonly RegExp[] = [
  /\b[1-9]\d* (?:failed|failing|failures?|errors?)\b/,
  /^\*\* \(\w+Error\)/m,
  /^(?:\[\w+\]\s*)?BUILD FAIL(?:URE|ED)\b/m,
  /^Traceback \(most recent call last\):/m,
  /^FAILED\b/m,
  /^\s*FAIL\b/m,
  /^--- FAIL:/m,
  /^panic: /m,
  /^thread '.*' panicked at/m,
  /^npm ERR!/m,
  /^test result: FAILED\./m,
  /^error(?:\[E\d+\])?: /m,
  /^make(?:\[\d+\])?: \*\*\*/m,
  /^=+ (?:FAILURES|ERRORS) =+\s*$/m,
];

/** Whether an output is a test or build run; undefined when it is not a run at all. */
export function runOutcome(
  o: Pick<OutputView, 'text' | 'command' | 'path'>,
): 'failed' | 'passed' | undefined {
  if (o.command === undefined || o.path !== undefined || isReadCommand(o.command)) return undefined;
  if (!RUN_SIGNALS.some((re) => re.test(o.text))) return undefined;
  return FAILURE_SIGNALS.some((re) => re.test(o.text)) ? 'failed' : 'passed';
}

/**
 * runOutcome by candidate: what a candidate holds never changes (another text is another
 * candidate, src/pipeline/run.ts), and a long session shows the same candidates turn after turn,
 * whose thousands of texts would otherwise be searched for run signals again every turn.
 */
const outcomes = new WeakMap<Candidate, 'failed' | 'passed' | null>();

function outcomeOf(o: Candidate): 'failed' | 'passed' | undefined {
  let known = outcomes.get(o);
  if (known === undefined) {
    known = runOutcome(o) ?? null;
    outcomes.set(o, known);
  }
  return known ?? undefined;
}

export const failed_run: TranscriptComponent<FailedRunConfig> = {
  name: 'failed_run',
  lossy: true,
  scope: 'transcript',
  summary: 'Replace a failed test/build run by a reference once the same command ran again',
  defaults: CONFIG.defaults,
  parseConfig: CONFIG.parse,
  floorTokens: (cfg) => cfg.min_tokens,

  async run(outputs, cfg, ctx) {
    const out = new Map<string, Outcome>();
    // Newest first: a run is superseded when a later run of the same command has been seen.
    const seenLater = new Set<string>();
    for (let i = outputs.length - 1; i >= 0; i--) {
      const o = outputs[i]!;
      if (o.settled) continue;
      const outcome = outcomeOf(o);
      if (outcome === undefined) continue;
      const command = commandKey(o.command!);
      const superseded = seenLater.has(command);
      seenLater.add(command);
      if (!superseded || outcome !== 'failed' || !o.mayChange) continue;
      if (cfg.min_tokens > 0 && !(await ctx.tokens.exceeds(o.text, cfg.min_tokens - 1))) continue;
      out.set(o.id, {
        kind: 'rewrite',
        text: `[superseded by a later run] ${MARKER_SLOT}`,
        loss: 'whole',
        note: `failed run of ${command.length > 60 ? `${command.slice(0, 60)}…` : command}`,
      });
    }
    return out;
  },
};
