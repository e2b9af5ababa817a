/**
 * The JSON documents of a text: the spans that are a whole JSON document in their context, and so
 * the only spans a lossless JSON rewrite (format) may change. A span is one when it is
 *   - the whole output (JSON whitespace around it aside), any object or array; or
 *   - the whole content of a fenced ```json block (fence indented by at most three spaces); or
 *   - line-bounded, of real size: an object or array that opens in the first column of a line and
 *     closes at the end of a line (only whitespace after it), spans several lines and is not empty
 *     — what a program prints when it pretty-prints JSON into a log.
 * Nothing else: `{ … }` or `[ … ]` that opens mid-line (code, prose), is indented (a diff's context
 * line, a numbered file read), or is an empty `{\n}` (a code block) is never a document. The rule
 * is shared by format, which compacts documents, and by the pipeline's check of its claim
 * (src/pipeline/lossless.ts), which allows changes inside documents only.
 *
 * Linear: a scan that fails reports the containers still open where it failed, and those are never
 * scanned again (they would fail at the same place); a work budget bounds the rest.
 */
import { CLOSE_BRACE, CLOSE_BRACKET, isJsonSpace, OPEN_BRACE, OPEN_BRACKET } from './lexical.js';
import { scanJson, trimmedRange } from './text.js';

export interface JsonDocument {
  start: number;
  end: number;
  /** Whitespace occurs between its tokens: compacting would change it. */
  spaced: boolean;
}

/** Search effort per input char; past it, later candidates are left alone (pathological input). */
const SCAN_BUDGET_FACTOR = 4;
const FENCE_OPEN = /^ {0,3}(```+|~~~+)[ \t]*json[ \t]*\r?$/gm;

/**
 * The last text's documents: format finds them, then the pipeline's check of format's claim asks
 * for the same text's (a 50 MB document is a 0.3 s scan). Computed here either way, never taken
 * from the caller, so the check still rests on this rule alone.
 */
let lastText: string | undefined;
let lastDocs: readonly JsonDocument[] = [];

export function jsonDocuments(text: string): readonly JsonDocument[] {
  if (text !== lastText) {
    lastDocs = findDocuments(text);
    lastText = text;
  }
  return lastDocs;
}

function findDocuments(text: string): JsonDocument[] {
  const [first, last] = trimmedRange(text);
  const c = text.charCodeAt(first);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    const whole = scanJson(text, first);
    if (whole.ok && whole.end === last) return [{ start: first, end: last, spaced: whole.spaced }];
  }
  const fenced = fencedDocuments(text);
  const docs = lineBounded(text, fenced);
  return fenced.length === 0 ? docs : [...fenced, ...docs].sort((a, b) => a.start - b.start);
}

/** The content of each fenced json block that is exactly one JSON value. */
function fencedDocuments(text: string): (JsonDocument & { block: [number, number] })[] {
  if (!text.includes('json')) return [];
  const docs: (JsonDocument & { block: [number, number] })[] = [];
  let after = 0;
  for (const open of text.matchAll(FENCE_OPEN)) {
    if (open.index < after) continue; // a fence line inside the previous block's content
    const from = open.index + open[0].length + 1;
    const fence = open[1]!;
    const close = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*\\r?$`, 'm');
    const m = close.exec(text.slice(from));
    // No closing fence: none after it closes either (a closing fence needs only its own fence).
    if (!m) break;
    const to = from + m.index;
    after = to + m[0].length;
    let a = from;
    let b = to;
    while (a < b && isJsonSpace(text.charCodeAt(a))) a++;
    while (b > a && isJsonSpace(text.charCodeAt(b - 1))) b--;
    const c = text.charCodeAt(a);
    if (c !== OPEN_BRACE && c !== OPEN_BRACKET) continue;
    const r = scanJson(text, a);
    if (r.ok && r.end === b) docs.push({ start: a, end: b, spaced: r.spaced, block: [from, to] });
  }
  return docs;
}

/** Line-bounded documents of real size, outside the fenced blocks. */
function lineBounded(text: string, fenced: readonly { block: [number, number] }[]): JsonDocument[] {
  const docs: JsonDocument[] = [];
  const doomed = new Set<number>();
  let budget = SCAN_BUDGET_FACTOR * text.length + 65_536;
  // Next `{` and `[` at or after pos, each searched again only once pos passes it.
  let brace = -1;
  let bracket = -1;
  let pos = 0;
  while (pos < text.length && budget > 0) {
    if (brace < pos) brace = nextIndex(text, '{', pos);
    if (bracket < pos) bracket = nextIndex(text, '[', pos);
    const q = Math.min(brace, bracket);
    if (q >= text.length) break;
    pos = q + 1;
    if (doomed.delete(q)) continue;
    if (q > 0 && text.charCodeAt(q - 1) !== 0x0a) continue;
    if (fenced.some(({ block: [a, b] }) => q >= a && q < b)) continue;
    const r = scanJson(text, q);
    if (!r.ok) {
      budget -= r.at - q + 1;
      for (const o of r.open) if (o !== q) doomed.add(o);
      continue;
    }
    budget -= r.end - q;
    if (r.multiline && endsLine(text, r.end) && !isEmpty(text, q)) {
      docs.push({ start: q, end: r.end, spaced: r.spaced });
      pos = r.end;
    }
  }
  return docs;
}

/** Whether only spaces and tabs stand between `at` and the end of its line. */
function endsLine(text: string, at: number): boolean {
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || c === 0x0d) return true;
    if (c !== 0x20 && c !== 0x09) return false;
  }
  return true;
}

/** Whether the container opening at q closes right away (`{\n}`, `[ ]`). */
function isEmpty(text: string, q: number): boolean {
  let i = q + 1;
  while (isJsonSpace(text.charCodeAt(i))) i++;
  const c = text.charCodeAt(i);
  return c === CLOSE_BRACE || c === CLOSE_BRACKET;
}

function nextIndex(text: string, ch: string, from: number): number {
  const k = text.indexOf(ch, from);
  return k === -1 ? Number.POSITIVE_INFINITY : k;
}
