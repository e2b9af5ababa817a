/**
 * Error and warning signals in tool output: the one table of what counts, in named classes, and the
 * tests each user composes from them (fold shows signal templates, the failure-line rule keeps
 * failure lines verbatim, extract keeps error lines, failed_run tells a failed run from a passed one).
 *
 * Line classes are whole words, any case:
 * - error: error(s), fail/fails/failed/failing/failure(s), fatal, panic/panicked/panics,
 *   exception(s), traceback; and, in their own case, a word ending in Error or Exception
 *   (TypeError, java.io.IOException) and `npm ERR!`;
 * - assertion: assert, asserts, assertion(s);
 * - crash: abort/aborted, segfault, critical, severe (a severity, or how a process ended);
 * - refusal: denied, refused, timed out, unreachable (the system said no);
 * - warning: warn, warning(s), timeout — a mention worth showing, not a failure ("negotiated
 *   timeout 10000", /usr/bin/timeout);
 * - warningSummary: a count of warnings ("3 warnings") or a "warnings summary" banner.
 * A mention that counts zero is no signal ("0 errors", "no failures", "without warnings",
 * "failed=0", "0 warnings"), so a clean summary line is not mistaken for a failure.
 *
 * Crash and refusal words are shown (fold) and kept (extract) but are no failure lines: a
 * successful run prints them too (git's "use git merge --abort to abort", apt's "policy-rc.d
 * denied execution of start"), and a failure line binds a filter to keep it verbatim.
 *
 * Run classes are line-anchored patterns over a whole output (src/components/failed_run.ts):
 * RUN_MARKS say an output is a test or build run, RUN_FAILURES that the run failed.
 */

export type SignalClass = 'error' | 'assertion' | 'crash' | 'refusal' | 'warning' | 'warningSummary';

const WORDS: Readonly<Record<SignalClass, string>> = {
  error: 'errors?|fail(?:s|ed|ing|ures?)?|fatal|panic(?:ked|s)?|exceptions?|traceback',
  assertion: 'assert(?:ions?|s)?',
  crash: 'abort(?:ed)?|segfault|critical|severe',
  refusal: 'denied|refused|timed out|unreachable',
  warning: 'warn(?:ings?)?|timeout',
  warningSummary: '[1-9]\\d* warnings?|warnings? summary',
};
/** The error class's words that only count in their own case. */
const CASED_ERROR = '(?<=[A-Za-z0-9])(?:Error|Exception)\\b|\\bnpm ERR!';
// Android logcat: "03-17 16:13:38.811  1702  2395 E Tag: …".
const LOGCAT_LEVEL = /^\d\d-\d\d \d\d:\d\d:\d\d\.\d+\s+\d+\s+\d+ [EWF] /;
// The zero stands alone or opens a bracket or list: "80@0 failed" is an address, not a count.
const ZERO_BEFORE = /(?:^|[\s([{,;])(?:0|no|zero|without)\s+$/i;
const ZERO_AFTER = /^\s*[:=]\s*0\b/;
const BEFORE = 16;
const AFTER = 6;

/** Whether the match [at, at + length) of `text`, in the line [s, e), counts zero. */
function countsZero(text: string, at: number, length: number, s: number, e: number): boolean {
  const before = text.slice(Math.max(s, at - BEFORE), at);
  const end = at + length;
  return ZERO_BEFORE.test(before) || ZERO_AFTER.test(text.slice(end, Math.min(e, end + AFTER)));
}

export interface SignalOptions {
  /** A logcat-style level column (` E `, ` W `, ` F ` after a time and process ids) is a signal. */
  readonly logcat?: boolean;
}

/** A test composed of signal classes. */
export class Signals {
  /** The classes' words (global: callers reset lastIndex). */
  readonly words: RegExp;
  /** The case-sensitive words, when the error class is in (global). */
  readonly cased: RegExp | undefined;
  private readonly screen: RegExp;
  private readonly logcat: boolean;

  constructor(classes: readonly SignalClass[], options: SignalOptions = {}) {
    const words = `\\b(?:${classes.map((c) => WORDS[c]).join('|')})\\b`;
    this.words = new RegExp(words, 'gi');
    this.screen = new RegExp(words, 'i');
    this.cased = classes.includes('error') ? new RegExp(CASED_ERROR, 'g') : undefined;
    this.logcat = options.logcat === true;
  }

  /** Whether the line carries a signal that does not count zero. */
  has(line: string): boolean {
    return this.firstAt(line) !== -1;
  }

  /** Where the line's first signal (one that does not count zero) starts, or -1. */
  firstAt(line: string): number {
    if (this.logcat && LOGCAT_LEVEL.test(line)) return 0;
    let first = -1;
    if (this.cased !== undefined) {
      this.cased.lastIndex = 0;
      first = this.cased.exec(line)?.index ?? -1;
    }
    if (!this.screen.test(line)) return first;
    this.words.lastIndex = 0;
    for (let m = this.words.exec(line); m !== null; m = this.words.exec(line)) {
      if (first !== -1 && m.index >= first) break;
      if (!countsZero(line, m.index, m[0].length, 0, line.length)) return m.index;
    }
    return first;
  }

  /** A cursor over a whole text that answers line by line (see SignalCursor). */
  cursor(text: string): SignalCursor {
    return new SignalCursor(text, this);
  }
}

/**
 * Where a signal next occurs in a text, searched once over the whole text rather than line by line
 * (an output of a million lines is not split). A match never spans lines (no pattern holds "\n",
 * and "\n" is no word character, so `\b` at a line's edge answers as in the line alone). Logcat
 * levels are not looked for here.
 */
export class SignalCursor {
  private readonly seekers: Seeker[];

  constructor(text: string, signals: Signals) {
    this.seekers = [new Seeker(text, signals.words, true)];
    if (signals.cased !== undefined) this.seekers.push(new Seeker(text, signals.cased, false));
  }

  /** Whether the line [s, e) holds a signal; s never decreases from one call to the next. */
  within(s: number, e: number): boolean {
    return this.seekers.some((k) => k.within(s, e));
  }
}

class Seeker {
  private at = -2;
  private length = 0;
  private readonly re: RegExp;

  constructor(
    private readonly text: string,
    pattern: RegExp,
    private readonly zeroCounts: boolean,
  ) {
    this.re = new RegExp(pattern.source, pattern.flags);
  }

  within(s: number, e: number): boolean {
    for (;;) {
      if (this.at !== -1 && this.at < s) this.seek(s);
      if (this.at === -1 || this.at >= e) return false;
      if (!this.zeroCounts || !countsZero(this.text, this.at, this.length, s, e)) return true;
      this.seek(this.at + Math.max(1, this.length));
    }
  }

  private seek(from: number): void {
    this.re.lastIndex = from;
    const m = this.re.exec(this.text);
    this.at = m?.index ?? -1;
    this.length = m?.[0].length ?? 0;
  }
}

/** What the text fallback (fold) shows even when it folds everything else. */
export const FOLD_SIGNALS = new Signals(['error', 'assertion', 'crash', 'refusal', 'warning'], {
  logcat: true,
});

/**
 * Failure lines: what a test or build run says went wrong, which reaches the agent verbatim
 * (src/dsl/failure-lines.ts). Warnings are not failures, but a count of them is the run's summary.
 */
export const FAILURE_SIGNALS = new Signals(['error', 'assertion', 'warningSummary']);

/** Error lines: failure lines and what crashed or was refused (extract keeps them all). */
export const ERROR_SIGNALS = new Signals(['error', 'assertion', 'crash', 'refusal', 'warningSummary']);

/** Any of these marks a test or build run (only the `N passed` summary may sit mid-line). */
export const RUN_MARKS: readonly RegExp[] = [
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

/** Given a run, any of these says it failed: a non-zero failure count or a failure's location. */
export const RUN_FAILURES: readonly RegExp[] = [
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
