/**
 * Where a request body's parts lie, as offsets into its text, without parsing it: the top-level
 * members (the last of each name, as JSON.parse keeps) and the elements of its conversation array
 * (`messages`; a Responses `input`). The retrieval edits — the tool added, exchanges spliced in, a
 * round's messages appended — are written at these offsets, every other byte as it came. One
 * linear pass of the JSON lexer; undefined for a body that is not one JSON object.
 */
import type { InputFormat } from '../../component.js';
import { arrayChunks } from '../../json/array-chunks.js';
import { OPEN_BRACE, OPEN_BRACKET, QUOTE, skipJsonSpace } from '../../json/lexical.js';
import { objectMembers } from '../../json/object-members.js';

export type Format = Exclude<InputFormat, 'text'>;

export interface Span {
  start: number;
  end: number;
}

export interface BodyMap {
  text: string;
  /** The body's opening brace. */
  open: number;
  members: ReadonlyMap<string, Span>;
  /** The conversation's elements, when it is an array. */
  items?: readonly Span[];
  /** Where the conversation is: an array (its closing bracket at value.end - 1) or a string. */
  conversation?: Span & { kind: 'array' | 'string' };
}

/** The member that holds a format's conversation. */
export function conversationMember(format: Format): string {
  return format === 'responses' ? 'input' : 'messages';
}

export function mapBody(text: string, format: Format): BodyMap | undefined {
  const open = skipJsonSpace(text, 0);
  if (text.charCodeAt(open) !== OPEN_BRACE) return undefined;
  const members = new Map<string, Span>();
  try {
    for (const m of objectMembers(text, open)) members.set(m.key, { start: m.valueStart, end: m.valueEnd });
  } catch {
    return undefined;
  }
  const map: BodyMap = { text, open, members };
  const value = members.get(conversationMember(format));
  if (!value) return map;
  const first = text.charCodeAt(value.start);
  if (first === QUOTE) return { ...map, conversation: { ...value, kind: 'string' } };
  if (first !== OPEN_BRACKET) return map;
  const items: Span[] = [];
  for (const c of arrayChunks(text, value.start, 1, 0)) items.push({ start: c.from, end: c.to });
  return { ...map, items, conversation: { ...value, kind: 'array' } };
}

/** A member's value parsed, or undefined when absent or not JSON. */
export function memberValue(map: BodyMap, name: string): unknown {
  const span = map.members.get(name);
  if (!span) return undefined;
  try {
    return JSON.parse(map.text.slice(span.start, span.end));
  } catch {
    return undefined;
  }
}

/** The text of the conversation's element i. */
export function itemText(map: BodyMap, i: number): string | undefined {
  const s = map.items?.[i];
  return s ? map.text.slice(s.start, s.end) : undefined;
}
