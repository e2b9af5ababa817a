/**
 * Where a request body's parts lie, as byte offsets, without decoding or parsing it: the top-level
 * members (the last of each name, as JSON.parse keeps) and the elements of its conversation array
 * (`messages`; a Responses `input`). The retrieval edits — the tool added, exchanges spliced in, a
 * round's messages appended — are written at these offsets (byteEdits), every other byte as it
 * came, so a turn costs one pass over the bytes: strings are skipped with memchr for their closing
 * quote (a tool output is one long string), only the structure between them is walked. It checks
 * the structure it walks, not the whole grammar (the engine parses the body anyway); undefined for a
 * body that is not one JSON object. What it decodes (a key, a member it is asked for) is decoded
 * from a slice of its own: the body itself is never decoded here.
 */
import type { InputFormat } from '../../component.js';

/** The formats whose cg_expand the proxy can answer (Gemini CLI has a shell: it runs `cg expand`). */
export type Format = Exclude<InputFormat, 'text' | 'gemini'>;

export interface Span {
  start: number;
  end: number;
}

export interface BodyMap {
  bytes: Buffer;
  /** The body's opening brace. */
  open: number;
  members: ReadonlyMap<string, Span>;
  /** The conversation's elements, when it is an array. */
  items?: readonly Span[];
  /** Where the conversation is: an array (its closing bracket at end - 1) or a string. */
  conversation?: Span & { kind: 'array' | 'string' };
}

/** An edit of a body's bytes: [start, end) replaced by text. */
export interface ByteEdit extends Span {
  text: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(b: Buffer, i: number): number {
  while (isSpace(b[i])) i++;
  return i;
}

/** Past the string whose quote is at i, or -1. */
function skipString(b: Buffer, i: number): number {
  for (let from = i + 1; ; ) {
    const q = b.indexOf(QUOTE, from);
    if (q < 0) return -1;
    let k = q - 1;
    while (b[k] === BACKSLASH) k--;
    // An even run of backslashes before the quote escapes only itself.
    if ((q - 1 - k) % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** Past the value that starts at i, or -1. */
function skipValue(b: Buffer, i: number): number {
  const c = b[i];
  if (c === QUOTE) return skipString(b, i);
  if (c !== OPEN_BRACE && c !== OPEN_BRACKET) {
    let j = i;
    while (j < b.length && b[j] !== COMMA && b[j] !== CLOSE_BRACE && b[j] !== CLOSE_BRACKET && !isSpace(b[j]))
      j++;
    return j > i ? j : -1;
  }
  let depth = 0;
  for (let j = i; j < b.length; ) {
    const d = b[j]!;
    if (d === QUOTE) {
      j = skipString(b, j);
      if (j < 0) return -1;
      continue;
    }
    if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
    else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return j + 1;
    }
    j++;
  }
  return -1;
}

/** The elements of the array at i, and where it ends; undefined when it does not read. */
function elements(b: Buffer, i: number): { items: Span[]; end: number } | undefined {
  const items: Span[] = [];
  let j = skipSpace(b, i + 1);
  if (b[j] === CLOSE_BRACKET) return { items, end: j + 1 };
  for (;;) {
    const end = skipValue(b, j);
    if (end < 0) return undefined;
    items.push({ start: j, end });
    j = skipSpace(b, end);
    if (b[j] === CLOSE_BRACKET) return { items, end: j + 1 };
    if (b[j] !== COMMA) return undefined;
    j = skipSpace(b, j + 1);
  }
}

/** The member that holds a format's conversation. */
export function conversationMember(format: Format): string {
  return format === 'responses' ? 'input' : 'messages';
}

/**
 * Walks the members of the object whose brace is at `open`: `visit` gets each key and where its
 * value starts, and returns where the value ends (-1: it does not read). Past the object, or -1.
 */
function walkObject(b: Buffer, open: number, visit: (key: string, start: number) => number): number {
  let i = skipSpace(b, open + 1);
  if (b[i] === CLOSE_BRACE) return i + 1;
  for (;;) {
    if (b[i] !== QUOTE) return -1;
    const keyEnd = skipString(b, i);
    if (keyEnd < 0) return -1;
    let key: string;
    try {
      key = JSON.parse(b.subarray(i, keyEnd).toString('utf8')) as string;
    } catch {
      return -1;
    }
    i = skipSpace(b, keyEnd);
    if (b[i] !== COLON) return -1;
    const end = visit(key, skipSpace(b, i + 1));
    if (end < 0) return -1;
    i = skipSpace(b, end);
    if (b[i] === CLOSE_BRACE) return i + 1;
    if (b[i] !== COMMA) return -1;
    i = skipSpace(b, i + 1);
  }
}

export function mapBody(bytes: Buffer, format: Format): BodyMap | undefined {
  const open = skipSpace(bytes, 0);
  if (bytes[open] !== OPEN_BRACE) return undefined;
  const conv = conversationMember(format);
  const members = new Map<string, Span>();
  let items: Span[] | undefined;
  const end = walkObject(bytes, open, (key, start) => {
    let end: number;
    if (key === conv && bytes[start] === OPEN_BRACKET) {
      const e = elements(bytes, start);
      if (!e) return -1;
      items = e.items;
      end = e.end;
    } else {
      end = skipValue(bytes, start);
      if (key === conv) items = undefined;
    }
    if (end >= 0) members.set(key, { start, end });
    return end;
  });
  if (end < 0 || skipSpace(bytes, end) !== bytes.length) return undefined;
  const map: BodyMap = { bytes, open, members };
  const value = members.get(conv);
  if (!value) return map;
  if (bytes[value.start] === QUOTE) return { ...map, conversation: { ...value, kind: 'string' } };
  return items ? { ...map, items, conversation: { ...value, kind: 'array' } } : map;
}

/** Where member `name` of the object at `open` has its value (the last of that name), if it reads. */
export function memberSpan(bytes: Buffer, open: number, name: string): Span | undefined {
  if (bytes[open] !== OPEN_BRACE) return undefined;
  let found: Span | undefined;
  const end = walkObject(bytes, open, (key, start) => {
    const end = skipValue(bytes, start);
    if (key === name && end >= 0) found = { start, end };
    return end;
  });
  return end < 0 ? undefined : found;
}

/** Whether the value at `start` is an array whose first non-space byte after `[` closes it. */
export function emptyArrayAt(bytes: Buffer, start: number): boolean {
  return bytes[start] === OPEN_BRACKET && bytes[skipSpace(bytes, start + 1)] === CLOSE_BRACKET;
}

/** A member's value parsed, or undefined when absent or not JSON. */
export function memberValue(map: BodyMap, name: string): unknown {
  const span = map.members.get(name);
  if (!span) return undefined;
  try {
    return JSON.parse(map.bytes.subarray(span.start, span.end).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The bytes of the conversation's element i. */
export function itemBytes(map: BodyMap, i: number): Buffer | undefined {
  const s = map.items?.[i];
  return s ? map.bytes.subarray(s.start, s.end) : undefined;
}

/** The bytes with each [start, end) replaced by its text (edits must not overlap; insertions at one place keep their order). */
export function byteEdits(bytes: Buffer, edits: readonly ByteEdit[]): Buffer {
  if (edits.length === 0) return bytes;
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  const parts: Buffer[] = [];
  let at = 0;
  for (const e of sorted) {
    if (e.start < at || e.end < e.start || e.end > bytes.length)
      throw new RangeError(`edit [${e.start}, ${e.end}) overlaps another or lies outside the body`);
    parts.push(bytes.subarray(at, e.start), Buffer.from(e.text, 'utf8'));
    at = e.end;
  }
  parts.push(bytes.subarray(at));
  return Buffer.concat(parts);
}
