/**
 * JSON's tokens (RFC 8259), once for every JSON reader in cg: the span parser (spans.ts), the
 * validating scanner for JSON inside text (text.ts), request-body sniffing and the stats ledger
 * reader all find strings, numbers, literals and whitespace with these functions. Each takes the
 * text and the index where a token starts and returns the index just past it, or the bitwise
 * complement (~i, always negative) of the index where the text stopped being JSON, so a caller tells
 * the two apart with `end < 0` and allocates nothing. Strings run through sticky regexes: V8 skips
 * an ordinary run far faster than a charCodeAt loop. "Whitespace" is JSON's insignificant
 * whitespace: space, tab, LF, CR.
 */

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const MINUS = 0x2d;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;

export function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The first index at or after i that is not JSON whitespace (s.length when there is none). */
export function skipJsonSpace(s: string, i: number): number {
  while (i < s.length && isJsonSpace(s.charCodeAt(i))) i++;
  return i;
}

export function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** A run of string characters that need no attention: no quote, backslash or control character. */
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y;
/** String characters with well-formed escapes only, up to whatever ends the run. */
const ESCAPED_RUN = /[^"\\\u0000-\u001f]*(?:\\(?:["\\/bfnrt]|u[0-9A-Fa-f]{4})[^"\\\u0000-\u001f]*)*/y;

/** The index where a run of plain string characters starting at i stops (a quote, a backslash, a control character or the end). */
export function plainRun(s: string, i: number): number {
  PLAIN_RUN.lastIndex = i;
  PLAIN_RUN.test(s);
  return PLAIN_RUN.lastIndex;
}

/**
 * The string whose opening quote is at i: the index past its closing quote, or ~fail. Escapes are
 * checked (a bad one fails at the escaped character, a bad \u at its backslash), and a raw control
 * character fails where it stands.
 */
export function scanString(s: string, i: number): number {
  return finishString(s, i, plainRun(s, i + 1));
}

/** scanString for the string opening at `start`, whose characters up to `from` are known plain. */
export function finishString(s: string, start: number, from: number): number {
  let end = from;
  if (s.charCodeAt(end) === QUOTE) return end + 1;
  if (s.charCodeAt(end) === BACKSLASH) {
    ESCAPED_RUN.lastIndex = end;
    ESCAPED_RUN.test(s);
    end = ESCAPED_RUN.lastIndex;
    if (s.charCodeAt(end) === QUOTE) return end + 1;
  }
  return ~stringFailure(s, start).at;
}

export type StringProblem = 'unterminated' | 'control' | 'escape' | 'unicode';

/**
 * Where and why the string opening at i is not JSON (for error messages: called only once a scan
 * has failed). For a bad \u escape, `at` is its backslash, as JSON.parse reports it.
 */
export function stringFailure(s: string, i: number): { at: number; problem: StringProblem } {
  const n = s.length;
  for (let j = i + 1; j < n; ) {
    const c = s.charCodeAt(j);
    if (c === QUOTE) break;
    if (c < 0x20) return { at: j, problem: 'control' };
    if (c !== BACKSLASH) {
      j++;
      continue;
    }
    if (j + 1 >= n) break;
    const e = s.charCodeAt(j + 1);
    if (e === 0x75) {
      for (let k = j + 2; k < j + 6; k++) if (!isHex(s.charCodeAt(k))) return { at: j, problem: 'unicode' };
      j += 6;
    } else if (
      e === QUOTE ||
      e === BACKSLASH ||
      e === 0x2f ||
      e === 0x62 ||
      e === 0x66 ||
      e === 0x6e ||
      e === 0x72 ||
      e === 0x74
    ) {
      j += 2;
    } else {
      return { at: j + 1, problem: 'escape' };
    }
  }
  return { at: n, problem: 'unterminated' };
}

/**
 * For a string known (or assumed) to be well formed: the index of its closing quote, the first one
 * not escaped by an odd run of backslashes, found with indexOf so long strings cost almost nothing;
 * -1 when there is none. Lenient by design: for readers that find structure and leave validation
 * to someone else (a body's top-level keys, the ledger's own lines).
 */
export function closingQuote(s: string, i: number): number {
  let q = s.indexOf('"', i + 1);
  while (q >= 0) {
    let slashes = 0;
    while (s.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q;
    q = s.indexOf('"', q + 1);
  }
  return -1;
}

/** `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?` at i: its end, or ~fail. */
export function scanNumber(s: string, i: number): number {
  let j = i;
  if (s.charCodeAt(j) === MINUS) j++;
  const first = s.charCodeAt(j);
  if (first === 0x30) j++;
  else if (first >= 0x31 && first <= 0x39) while (isDigit(s.charCodeAt(++j)));
  else return ~j;
  if (s.charCodeAt(j) === 0x2e) {
    if (!isDigit(s.charCodeAt(++j))) return ~j;
    while (isDigit(s.charCodeAt(++j)));
  }
  const e = s.charCodeAt(j);
  if (e === 0x65 || e === 0x45) {
    const sign = s.charCodeAt(++j);
    if (sign === 0x2b || sign === MINUS) j++;
    if (!isDigit(s.charCodeAt(j))) return ~j;
    while (isDigit(s.charCodeAt(++j)));
  }
  return j;
}

export type NumberProblem = 'minus' | 'fraction' | 'exponent';

/** Why the number starting at `start` is not JSON, given where its scan failed. */
export function numberProblem(s: string, start: number, at: number): NumberProblem {
  if (at === start + 1 && s.charCodeAt(start) === MINUS) return 'minus';
  return s.charCodeAt(at - 1) === 0x2e ? 'fraction' : 'exponent';
}

const LITERALS = ['true', 'false', 'null'] as const;

/** `true`, `false` or `null` at i: its end, or ~(the first character that differs). */
export function scanLiteral(s: string, i: number): number {
  const word = LITERALS.find((w) => w.charCodeAt(0) === s.charCodeAt(i));
  if (word === undefined) return ~i;
  if (s.startsWith(word, i)) return i + word.length;
  let k = 0;
  while (k < word.length && s.charCodeAt(i + k) === word.charCodeAt(k)) k++;
  return ~(i + k);
}

/** Any scalar (string, number, literal) at i, whose char code is c: its end, or ~fail. */
export function scanScalar(s: string, i: number, c = s.charCodeAt(i)): number {
  if (c === QUOTE) return scanString(s, i);
  if (c === MINUS || isDigit(c)) return scanNumber(s, i);
  return scanLiteral(s, i);
}
