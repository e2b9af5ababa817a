/**
 * Whether a line carries an error, warning or failure signal — what the text fallback keeps even
 * when it folds everything else. Whole words, any case: error(s), warn/warning(s), fail/fails/
 * failed/failing/failure(s), fatal, panic/panicked, exception(s), critical, severe, traceback,
 * abort(ed), segfault, denied, refused, timeout/timed out, unreachable; any word ending in Error or
 * Exception (TypeError, NullPointerException); and a logcat-style level column (` E ` or ` W `
 * after a time and process ids). A mention that counts zero is no signal ("0 errors", "no failures",
 * "failed=0"), so a clean summary line is not mistaken for a failure.
 */

const SIGNAL =
  /\b(?:errors?|warn(?:ings?)?|fail(?:s|ed|ing|ures?)?|fatal|panic(?:ked|s)?|exceptions?|critical|severe|traceback|abort(?:ed)?|segfault|denied|refused|timeout|timed out|unreachable)\b/gi;
const CAMEL = /[a-z0-9](?:Error|Exception)\b/;
// Android logcat: "03-17 16:13:38.811  1702  2395 E Tag: …".
const LOGCAT_LEVEL = /^\d\d-\d\d \d\d:\d\d:\d\d\.\d+\s+\d+\s+\d+ [EWF] /;
const ZERO_BEFORE = /(?:^|\s)(?:0|no|zero|without)\s+$/i;
const ZERO_AFTER = /^\s*[:=]\s*0\b/;

export function hasSignal(line: string): boolean {
  if (LOGCAT_LEVEL.test(line) || CAMEL.test(line)) return true;
  SIGNAL.lastIndex = 0;
  for (let m = SIGNAL.exec(line); m !== null; m = SIGNAL.exec(line)) {
    const before = line.slice(Math.max(0, m.index - 12), m.index);
    const after = line.slice(m.index + m[0].length, m.index + m[0].length + 6);
    if (ZERO_BEFORE.test(before) || ZERO_AFTER.test(after)) continue;
    return true;
  }
  return false;
}
