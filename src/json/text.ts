/**
 * JSON as text: validating JSON that sits inside other text (scanJson), compacting and
 * canonicalising it, and peeking at a body's top-level keys without parsing it. Everything here
 * works on the written form, never on a parsed value, so `1.0`, `12345678901234567890`, `"\u00e9"`
 * and duplicate keys survive untouched. Each function is one linear, iterative pass over the tokens
 * of lexical.ts (no recursion, so deep nesting cannot overflow the stack), so multi-MB outputs stay
 * fast.
 */
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON as COLON_CH,
  COMMA,
  closingQuote,
  isDigit,
  isJsonSpace,
  MINUS,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  scanNumber,
  scanScalar,
  scanString,
} from './lexical.js';

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

/** UTF-16 units per chunk when compacting: bounds the extra memory to about a megabyte. */
const CHUNK = 1 << 20;

/**
 * One buffer for every chunk's bytes (a chunk of CHUNK UTF-16 units is at most 3 × CHUNK bytes):
 * a buffer per chunk was 50 MB of garbage on a 50 MB document, held until the heap next filled.
 */
let chunkBytes: Buffer | undefined;
const scratch = () => (chunkBytes ??= Buffer.allocUnsafe(3 * CHUNK));

/**
 * compactJson's first chunk, doubling up to CHUNK: the code between chunks then runs before V8
 * optimises the byte loop mid-run (OSR), which a path first taken after that would deoptimise.
 */
const FIRST_CHUNK = 1 << 12;

/**
 * The JSON in [start, end) — already validated by scanJson — without whitespace outside strings.
 * Every other character is copied as written. Works on UTF-8 bytes one chunk at a time (JSON's
 * structural characters are ASCII and never occur inside a multi-byte sequence): an order of
 * magnitude faster than slicing strings and needs only the output's size on top of the input.
 * The result may be a rope of chunks; whoever needs it flat flattens it once.
 */
export function compactJson(s: string, start: number, end: number): string {
  let out = '';
  for (const part of compactJsonParts(s, start, end, FIRST_CHUNK)) out += part;
  return out;
}

/**
 * compactJson's result a chunk at a time (each at most about CHUNK units), for a reader that can
 * take it in parts (toon's size check on a large table), so that it never exists whole. Each part
 * is copied out of the shared buffer before it is handed over, so parts stay valid. `first`: the
 * first chunk's size (doubling from there).
 */
export function* compactJsonParts(s: string, start: number, end: number, first = CHUNK): Generator<string> {
  let inString = false;
  let escaped = false;
  let size = first;
  for (let from = start; from < end; ) {
    let to = Math.min(end, from + size);
    size = Math.min(2 * size, CHUNK);
    const last = s.charCodeAt(to - 1);
    if (to < end && last >= 0xd800 && last <= 0xdbff) to++; // keep a surrogate pair together
    const b = scratch();
    const n = b.write(s.slice(from, to), 'utf8');
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
    yield b.toString('utf8', 0, w);
    from = to;
  }
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
      const j = closingQuote(s, i) + 1;
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

/**
 * Whether the object opening at `at` has one of `keys` as a direct member. A cheap lenient scan
 * that allocates nothing per value: it lets large JSON that is plainly not a request (a log, an API
 * dump) pass as text without building a span tree for it.
 */
export function hasTopLevelKey(raw: string, at: number, keys: readonly string[]): boolean {
  let depth = 0;
  let keyNext = false;
  for (let i = at; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x22) {
      const end = closingQuote(raw, i);
      if (end < 0) return false;
      if (depth === 1 && keyNext && keys.includes(raw.slice(i + 1, end))) return true;
      keyNext = false;
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      keyNext = depth === 1;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth <= 0) return false;
    } else if (c === 0x2c && depth === 1) {
      keyNext = true;
    }
  }
  return false;
}
