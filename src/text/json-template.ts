/**
 * The template of a JSON-lines log line (a container's, a service's: `{"level":"error","msg":"db
 * timeout","attempt":3}`): field by field, never the whole line as one value. Keys, `true`, `false`
 * and `null` stay as they are; a number is one slot; a string value is masked as a line of text is
 * (template.ts: its words stay, every segment holding a digit or a path separator is a slot), so
 * `"msg":"db timeout"` and `"msg":"cache miss"` are two templates while `"ts":"2024-…"` and
 * `"status":200` vary within one. One pass over the characters, no JSON.parse; a line that is not
 * a well-formed object at the top (unbalanced, a bare value) is undefined, and the caller templates
 * it as text.
 */
import { type LineTemplate, SLOT } from './line-template.js';

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0d;

/** Whether the line looks like one JSON object: `{"` at its start, `}` at its end. */
export function looksLikeJsonObject(line: string): boolean {
  let i = 0;
  while (i < line.length && isSpace(line.charCodeAt(i))) i++;
  let j = line.length - 1;
  while (j > i && isSpace(line.charCodeAt(j))) j--;
  return line.charCodeAt(i) === 0x7b && line.charCodeAt(i + 1) === 0x22 && line.charCodeAt(j) === 0x7d;
}

/** The end (exclusive) of the string whose opening quote is at i, or -1 when it never closes. */
function stringEnd(line: string, i: number): number {
  for (let j = i + 1; j < line.length; j++) {
    const c = line.charCodeAt(j);
    if (c === 0x5c) j++;
    else if (c === 0x22) return j + 1;
  }
  return -1;
}

/** A string value's content masked as text is: words stay, digit- or path-bearing segments are slots. */
function maskText(content: string, values: string[]): string {
  let out = '';
  let i = 0;
  const n = content.length;
  while (i < n) {
    const c = content.charCodeAt(i);
    if (isBoundary(content, i, c)) {
      out += content[i];
      i++;
      continue;
    }
    let j = i;
    let masked = false;
    while (j < n && !isBoundary(content, j, content.charCodeAt(j))) {
      const d = content.charCodeAt(j);
      if ((d >= 0x30 && d <= 0x39) || d === 0x2f || d === 0x5c) masked = true;
      j++;
    }
    const segment = content.slice(i, j);
    if (masked) {
      out += SLOT;
      values.push(segment);
    } else out += segment;
    i = j;
  }
  return out;
}

/** Spaces and the punctuation that ends a segment (as template.ts splits a line); `://` does not. */
function isBoundary(s: string, i: number, c: number): boolean {
  if (c === 0x3a) return !(s.charCodeAt(i + 1) === 0x2f && s.charCodeAt(i + 2) === 0x2f);
  return (
    c === 0x20 ||
    c === 0x09 ||
    c === 0x3d ||
    c === 0x2c ||
    c === 0x3b ||
    c === 0x28 ||
    c === 0x29 ||
    c === 0x5b ||
    c === 0x5d ||
    c === 0x7b ||
    c === 0x7d ||
    c === 0x3c ||
    c === 0x3e ||
    c === 0x7c ||
    c === 0x27 ||
    c === 0x60
  );
}

const NUMBER_CHAR = /[-+.eE0-9]/;

/** The field-wise template of a JSON object line, or undefined when it is not one. */
export function jsonLineTemplate(line: string): LineTemplate | undefined {
  const values: string[] = [];
  let key = '';
  let depth = 0;
  let i = 0;
  const n = line.length;
  while (i < n) {
    const c = line.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(line, i);
      if (end === -1) return undefined;
      let k = end;
      while (k < n && isSpace(line.charCodeAt(k))) k++;
      const isKey = line.charCodeAt(k) === 0x3a;
      key += isKey ? line.slice(i, end) : `"${maskText(line.slice(i + 1, end - 1), values)}"`;
      i = end;
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth < 0) return undefined;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i;
      while (j < n && NUMBER_CHAR.test(line[j]!)) j++;
      values.push(line.slice(i, j));
      key += SLOT;
      i = j;
      continue;
    }
    key += line[i];
    i++;
  }
  return depth === 0 ? { key, values } : undefined;
}
