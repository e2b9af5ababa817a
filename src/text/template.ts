/**
 * The template of a line (log template mining, Drain-like but without its tree): what stays of the
 * line once everything that varies between two lines of the same kind is masked. Two lines with the
 * same template are "the same message"; the masked parts are its values, in order.
 *
 * Masked, each as one slot written `<*>`: a quoted string ('…', "…", `…` opened at the start of a
 * word and closed before a space or punctuation), and every segment — a run of characters between
 * spaces and the delimiters  = , ; : ( ) [ ] { } < > |  — that holds a digit or a path separator
 * (/ or \): numbers, hex ids, versions, timestamps, IP addresses, file paths and locations. Words
 * without digits stay: they are the message. A ':' inside `://` does not split (URLs stay one slot).
 *
 * One pass over the line's characters, no regex: the fallback runs this on every line of inputs of
 * many megabytes. A line that is one JSON object is templated by its fields instead (json-template.ts).
 */
import { jsonLineTemplate, looksLikeJsonObject } from './json-template.js';
import { type LineTemplate, SLOT } from './line-template.js';

export { type LineTemplate, SLOT };

/** Characters that end a segment (besides whitespace). */
function isDelimiter(c: number): boolean {
  switch (c) {
    case 0x3d: // =
    case 0x2c: // ,
    case 0x3b: // ;
    case 0x28: // (
    case 0x29: // )
    case 0x5b: // [
    case 0x5d: // ]
    case 0x7b: // {
    case 0x7d: // }
    case 0x3c: // <
    case 0x3e: // >
    case 0x7c: // |
    case 0x22: // "
    case 0x27: // '
    case 0x60: // `
      return true;
    default:
      return false;
  }
}

const isSpace = (c: number) => c === 0x20 || c === 0x09;
const isQuote = (c: number) => c === 0x22 || c === 0x27 || c === 0x60;

/** Whether a quote may open here: at the start of the line or of a word. */
function mayOpenQuote(line: string, i: number): boolean {
  if (i === 0) return true;
  const p = line.charCodeAt(i - 1);
  return isSpace(p) || p === 0x28 || p === 0x5b || p === 0x7b || p === 0x3d || p === 0x3a || p === 0x2c;
}

/** Whether a quote closes here: followed by the end, a space or punctuation. */
function mayCloseQuote(line: string, j: number): boolean {
  if (j + 1 >= line.length) return true;
  const n = line.charCodeAt(j + 1);
  return (
    isSpace(n) ||
    n === 0x29 ||
    n === 0x5d ||
    n === 0x7d ||
    n === 0x2e ||
    n === 0x2c ||
    n === 0x3a ||
    n === 0x3b
  );
}

/** The longest quoted string this scanner masks; a longer one is treated as words. */
const MAX_QUOTED = 256;

export function templateOf(line: string): LineTemplate {
  // A JSON-lines log line is templated field by field (json-template.ts), not as quoted strings.
  if (line.length > 2 && looksLikeJsonObject(line)) {
    const t = jsonLineTemplate(line);
    if (t) return t;
  }
  const values: string[] = [];
  let key = '';
  let copied = 0; // line[copied..i) is still to be appended to key verbatim
  const n = line.length;
  let i = 0;
  while (i < n) {
    const c = line.charCodeAt(i);
    if (isQuote(c) && mayOpenQuote(line, i)) {
      const j = closingQuote(line, i);
      if (j !== -1) {
        key += line.slice(copied, i + 1) + SLOT;
        values.push(line.slice(i + 1, j));
        copied = j;
        i = j + 1;
        continue;
      }
    }
    if (isSpace(c) || isDelimiter(c) || (c === 0x3a && !isUrlColon(line, i))) {
      i++;
      continue;
    }
    // A segment: up to the next space, delimiter or splitting colon.
    let j = i;
    let masked = false;
    while (j < n) {
      const d = line.charCodeAt(j);
      if (isSpace(d) || isDelimiter(d) || (d === 0x3a && !isUrlColon(line, j))) break;
      if ((d >= 0x30 && d <= 0x39) || d === 0x2f || d === 0x5c) masked = true;
      j++;
    }
    if (masked) {
      key += line.slice(copied, i) + SLOT;
      values.push(line.slice(i, j));
      copied = j;
    }
    i = j;
  }
  if (copied === 0) return { key: line, values };
  return { key: key + line.slice(copied), values };
}

function isUrlColon(line: string, i: number): boolean {
  return line.charCodeAt(i + 1) === 0x2f && line.charCodeAt(i + 2) === 0x2f;
}

function closingQuote(line: string, i: number): number {
  const q = line.charCodeAt(i);
  const limit = Math.min(line.length, i + 1 + MAX_QUOTED);
  for (let j = i + 1; j < limit; j++) {
    if (line.charCodeAt(j) === q) return mayCloseQuote(line, j) ? j : -1;
  }
  return -1;
}
