/**
 * JSON as text, for the lossless JSON components (format, toon). Everything here works on the
 * written form, never on a parsed value, so `1.0`, `12345678901234567890`, `"\u00e9"` and duplicate
 * keys survive untouched. Each function is one linear, iterative pass (no recursion, so deep
 * nesting cannot overflow the stack), so multi-MB outputs stay fast. "Whitespace" means JSON's
 * insignificant whitespace: space, tab, LF, CR.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON_CH = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;

/** The result of scanning one JSON value that starts at a given index. */
export type JsonScan =
  | {
      ok: true;
      /** Index just past the value. */
      end: number;
      /** Whitespace occurs between the value's tokens (it is not compact). */
      spaced: boolean;
      /** That whitespace includes a line break (the value is pretty-printed over several lines). */
      multiline: boolean;
    }
  | {
      ok: false;
      /** Index where the text stopped being JSON. */
      at: number;
      /**
       * Start indices of the containers still open at `at`. A scan starting at any of them fails at
       * `at` too (the grammar inside a container does not depend on what encloses it), so a caller
       * looking for JSON inside text can skip them and stay linear.
       */
      open: number[];
    };

export function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Deeper nesting is treated as not JSON: no real tool output nests this deep, and the cap keeps the
 * scanner's stack (and TOON's recursive encoder) bounded on adversarial `[[[[…` input.
 */
export const MAX_JSON_DEPTH = 10_000;

// Parser states: what the next significant character must be.
const VALUE = 0;
const FIRST_VALUE = 1; // right after `[`: a value or `]`
const FIRST_KEY = 2; // right after `{`: a key or `}`
const KEY = 3;
const COLON = 4;
const AFTER = 5; // after a value: `,` or the closing bracket

/**
 * Validates the JSON value (RFC 8259, strict) starting exactly at `start` and returns where it ends.
 * Nothing before `start` or after the value is looked at, so it finds JSON embedded in other text.
 */
export function scanJson(s: string, start: number): JsonScan {
  const n = s.length;
  // Open containers: array start index i is stored as i, object start as -i - 1.
  const stack: number[] = [];
  let spaced = false;
  let multiline = false;
  let expect = VALUE;
  let i = start;
  for (;;) {
    let c = s.charCodeAt(i);
    if (stack.length > 0) {
      while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        spaced = true;
        if (c !== 0x20 && c !== 0x09) multiline = true;
        c = s.charCodeAt(++i);
      }
    }
    if (i >= n) return failure(stack, n);
    if (expect === COLON) {
      if (c !== COLON_CH) return failure(stack, i);
      i++;
      expect = VALUE;
      continue;
    }
    if (expect === KEY || (expect === FIRST_KEY && c !== CLOSE_BRACE)) {
      if (c !== QUOTE) return failure(stack, i);
      const j = scanString(s, i);
      if (j < 0) return failure(stack, ~j);
      i = j;
      expect = COLON;
      continue;
    }
    if (expect === VALUE || (expect === FIRST_VALUE && c !== CLOSE_BRACKET)) {
      if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (stack.length >= MAX_JSON_DEPTH) return failure(stack, i);
        stack.push(c === OPEN_BRACE ? -i - 1 : i);
        i++;
        expect = c === OPEN_BRACE ? FIRST_KEY : FIRST_VALUE;
        continue;
      }
      const j = scanScalar(s, i, c);
      if (j < 0) return failure(stack, ~j);
      i = j;
      if (stack.length === 0) return { ok: true, end: i, spaced, multiline };
      expect = AFTER;
      continue;
    }
    // Left: AFTER, or an empty container's closing bracket.
    const inObject = (stack[stack.length - 1] as number) < 0;
    if (expect === AFTER && c === COMMA) {
      i++;
      expect = inObject ? KEY : VALUE;
      continue;
    }
    if (c !== (inObject ? CLOSE_BRACE : CLOSE_BRACKET)) return failure(stack, i);
    stack.pop();
    i++;
    if (stack.length === 0) return { ok: true, end: i, spaced, multiline };
    expect = AFTER;
  }
}

function failure(stack: number[], at: number): JsonScan {
  return { ok: false, at, open: stack.map((v) => (v < 0 ? -v - 1 : v)) };
}

/** A string, number or literal at `i` (whose char code is `c`): its end, or ~failIndex. */
function scanScalar(s: string, i: number, c: number): number {
  if (c === QUOTE) return scanString(s, i);
  if (c === MINUS || (c >= 0x30 && c <= 0x39)) return scanNumber(s, i);
  for (const lit of ['true', 'false', 'null']) {
    if (s.startsWith(lit, i)) return i + lit.length;
  }
  return ~i;
}

/** The string starting at the quote at `i`: index past its closing quote, or ~failIndex. */
export function scanString(s: string, i: number): number {
  const n = s.length;
  let j = i + 1;
  for (;;) {
    if (j >= n) return ~n;
    const c = s.charCodeAt(j);
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH) {
      const e = s.charCodeAt(j + 1);
      if (e === 0x75) {
        // \uXXXX
        for (let k = j + 2; k < j + 6; k++) {
          if (!isHex(s.charCodeAt(k))) return ~k;
        }
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
        return ~(j + 1);
      }
    } else if (c < 0x20) {
      return ~j;
    } else {
      j++;
    }
  }
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?` at `i`: its end, or ~failIndex. */
function scanNumber(s: string, i: number): number {
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

/**
 * Index past the closing quote of the string opening at `i`, for text already validated. Jumps
 * between quotes with indexOf, so long strings cost almost nothing.
 */
function skipValidString(s: string, i: number): number {
  let q = i;
  for (;;) {
    q = s.indexOf('"', q + 1);
    let bs = 0;
    while (s.charCodeAt(q - 1 - bs) === BACKSLASH) bs++;
    if (bs % 2 === 0) return q + 1;
  }
}

/** UTF-16 units per chunk when compacting: bounds the extra memory to about a megabyte. */
const CHUNK = 1 << 20;

/**
 * The JSON in [start, end) — already validated by scanJson — without whitespace outside strings.
 * Every other character is copied as written. Works on UTF-8 bytes one chunk at a time (JSON's
 * structural characters are ASCII and never occur inside a multi-byte sequence): an order of
 * magnitude faster than slicing strings and needs only the output's size on top of the input.
 * The result may be a rope of chunks; whoever needs it flat flattens it once.
 */
export function compactJson(s: string, start: number, end: number): string {
  let out = '';
  let inString = false;
  let escaped = false;
  for (let from = start; from < end; ) {
    let to = Math.min(end, from + CHUNK);
    const last = s.charCodeAt(to - 1);
    if (to < end && last >= 0xd800 && last <= 0xdbff) to++; // keep a surrogate pair together
    const b = Buffer.from(s.slice(from, to), 'utf8');
    const n = b.length;
    let w = 0;
    for (let r = 0; r < n; r++) {
      const x = b[r] as number;
      if (inString) {
        if (escaped) escaped = false;
        else if (x === BACKSLASH) escaped = true;
        else if (x === QUOTE) inString = false;
        b[w++] = x;
      } else if (x !== 0x20 && x !== 0x0a && x !== 0x0d && x !== 0x09) {
        if (x === QUOTE) inString = true;
        b[w++] = x;
      }
    }
    out += b.toString('utf8', 0, w);
    from = to;
  }
  return out;
}

/**
 * For validated JSON in [start, end): its compact form with every string re-escaped the way
 * JSON.stringify writes it (numbers kept as written), and whether each number's text equals
 * String(Number(text)). `JSON.stringify(JSON.parse(x)) === canonical` then proves that parsing lost
 * nothing but string escape spellings (no duplicate keys, no reordered integer-like keys).
 */
export function canonicalJson(
  s: string,
  start: number,
  end: number,
): { text: string; exactNumbers: boolean } {
  const parts: string[] = [];
  let exactNumbers = true;
  let run = start;
  let i = start;
  while (i < end) {
    const c = s.charCodeAt(i);
    if (c === QUOTE) {
      const j = skipValidString(s, i);
      const raw = s.slice(i, j);
      if (raw.includes('\\')) {
        parts.push(s.slice(run, i), JSON.stringify(JSON.parse(raw)));
        run = j;
      }
      i = j;
    } else if (c === MINUS || isDigit(c)) {
      const j = scanNumber(s, i);
      const raw = s.slice(i, j);
      if (String(Number(raw)) !== raw) exactNumbers = false;
      i = j;
    } else if (isJsonSpace(c)) {
      if (i > run) parts.push(s.slice(run, i));
      while (++i < end && isJsonSpace(s.charCodeAt(i)));
      run = i;
    } else {
      i++;
    }
  }
  if (end > run) parts.push(s.slice(run, end));
  return { text: parts.join(''), exactNumbers };
}

/** [first, last + 1) of the non-whitespace content of s (empty range when all whitespace). */
export function trimmedRange(s: string): [number, number] {
  let a = 0;
  let b = s.length;
  while (a < b && isJsonSpace(s.charCodeAt(a))) a++;
  while (b > a && isJsonSpace(s.charCodeAt(b - 1))) b--;
  return [a, b];
}
