/**
 * The members of a JSON object as text ranges, one at a time: so a reader can handle a large
 * object member by member (a big array member in chunks of its own, array-chunks.ts) instead of
 * parsing the whole document. The object must already be validated (scanJson); each value's end is
 * found with scanJson, so the walk is one linear pass and keeps nothing but the current member.
 */
import { CLOSE_BRACE, COMMA, OPEN_BRACE, scanString, skipJsonSpace } from './lexical.js';
import { scanJson } from './text.js';

/** One member: its key as parsed, and [valueStart, valueEnd) of its value's text. */
export interface ObjectMember {
  key: string;
  valueStart: number;
  valueEnd: number;
}

/** The members of the validated JSON object opening at `start`, in written order (duplicates included). */
export function* objectMembers(s: string, start: number): Generator<ObjectMember> {
  if (s.charCodeAt(start) !== OPEN_BRACE) throw new Error('objectMembers: not an object');
  let i = skipJsonSpace(s, start + 1);
  if (s.charCodeAt(i) === CLOSE_BRACE) return;
  for (;;) {
    const keyEnd = scanString(s, i);
    if (keyEnd < 0) throw new Error('objectMembers: the object is not valid JSON');
    const key = JSON.parse(s.slice(i, keyEnd)) as string;
    const valueStart = skipJsonSpace(s, skipJsonSpace(s, keyEnd) + 1); // past the colon
    const r = scanJson(s, valueStart);
    if (!r.ok) throw new Error('objectMembers: the object is not valid JSON');
    yield { key, valueStart, valueEnd: r.end };
    i = skipJsonSpace(s, r.end);
    if (s.charCodeAt(i) !== COMMA) return;
    i = skipJsonSpace(s, i + 1);
  }
}

/** Whether JSON.parse would move this key ahead of the others (an array index: JS orders those first). */
export function isIndexKey(key: string): boolean {
  return /^(?:0|[1-9][0-9]*)$/.test(key) && Number(key) < 2 ** 32 - 1;
}
