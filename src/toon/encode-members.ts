/**
 * TOON for a JSON document that is an object holding one or more tables among its members
 * (`{"items": [...], "total": 3}`), without parsing the document whole. The library writes such a
 * root object as each member's lines in turn, a member's lines depending only on its key and value
 * — exactly `encode({ [key]: value })` — so each member is encoded alone: a table a chunk of rows
 * at a time (encode-table.ts), any other value parsed whole when it is at most WHOLE_MAX_CHARS.
 * (A root object with an array member is never the library's keyed table, which holds objects
 * only.) The bytes are the library's `encode(JSON.parse(document))`
 * (test/unit/toon/encode-members.test.ts pins this on generated documents).
 *
 * It stands aside ('whole') when JSON.parse would not keep the members as written — a key twice,
 * or an array-index key, which JS orders first — or when no member is a table: then the document
 * goes whole, as any other does.
 */
import { OPEN_BRACKET } from '../json/lexical.js';
import { isIndexKey, objectMembers } from '../json/object-members.js';
import { encodeTable, type TableOptions, type ToonEncode } from './encode-table.js';
import { WHOLE_MAX_CHARS } from './limits.js';
import { countTables, type Json } from './table-shape.js';

export type MembersEncoding =
  /** `toon` in pieces, to be joined; `tables`: how many tables the document holds. */
  | { kind: 'members'; toon: string[]; tables: number }
  /** Not for member-by-member encoding: encode the document whole. */
  | { kind: 'whole' }
  /** A member that is no table is too large to parse whole (so is the document). */
  | { kind: 'too large' }
  /** It holds a table, but the library refuses a value in it (an unpaired surrogate). */
  | { kind: 'cannot encode' };

/** The TOON of the validated JSON object opening at text[start], member by member. */
export function encodeMembers(
  text: string,
  start: number,
  o: Omit<TableOptions, 'key'>,
  encode: ToonEncode,
): MembersEncoding {
  const seen = new Set<string>();
  const toon: string[] = [];
  let tables = 0;
  let tableMembers = 0;
  let encodable = true;
  for (const m of objectMembers(text, start)) {
    if (seen.has(m.key) || isIndexKey(m.key)) return { kind: 'whole' };
    seen.add(m.key);
    if (toon.length > 0) toon.push('\n');
    if (text.charCodeAt(m.valueStart) === OPEN_BRACKET) {
      const table = encodeTable(text, m.valueStart, { ...o, key: m.key }, encode);
      if (table.kind !== 'not a table') {
        tables++;
        tableMembers++;
        if (table.kind === 'table') toon.push(...table.toon);
        else encodable = false;
        continue;
      }
    }
    if (m.valueEnd - m.valueStart > WHOLE_MAX_CHARS) return { kind: 'too large' };
    const value = JSON.parse(text.slice(m.valueStart, m.valueEnd)) as Json;
    tables += countTables(value, o.minRows);
    if (!encodable) continue; // still read on: whether it holds a table decides the gate
    try {
      toon.push(encode({ [m.key]: value }, { delimiter: o.delimiter }));
    } catch {
      encodable = false;
    }
  }
  if (tableMembers === 0) return { kind: 'whole' };
  return encodable ? { kind: 'members', toon, tables } : { kind: 'cannot encode' };
}
