/**
 * TOON for a large table (toon's table: table-shape.ts) — a JSON document that is one, or a root
 * object's member that is one (encode-members.ts) — encoded a chunk of rows at a time, so that
 * only one chunk's parsed rows are ever held, never the whole document's value (JSON.parse plus
 * the library's encoder cost ~5× a document's size). The result is exactly the library's
 * encoding: for a table it writes a header line `[N]{fields}:` (after the key, for a member; the
 * delimiter inside the brackets when it is not a comma) and then one line per row that depends
 * only on that row's values and the delimiter, so encoding each chunk alone and writing its row
 * lines under one header with the real N gives the same bytes (test/unit/toon/encode-table.test.ts
 * pins this against the library on generated tables).
 */
import { collectEvery } from '../heap/collect.js';
import { arrayChunks, parseChunk } from '../json/array-chunks.js';
import { CHUNK_CHARS, CHUNK_ROWS } from './limits.js';
import { type Json, rowKeys, rowsFit } from './table-shape.js';

/** The library's encode, passed in so that it stays lazily imported by the caller. */
export type ToonEncode = typeof import('@toon-format/toon').encode;
type Delimiter = ',' | '\t' | '|';

export type TableEncoding =
  /** `toon` in pieces (joined, the TOON; kept apart so the caller joins everything once). */
  | { kind: 'table'; toon: string[]; rows: number }
  /** Some element is not a row of the table (or there are fewer than minRows). */
  | { kind: 'not a table' }
  /** A table, but the library refuses a value in it (an unpaired surrogate). */
  | { kind: 'cannot encode' };

export interface TableOptions {
  minRows: number;
  delimiter: Delimiter;
  /** The table is the value of this key of a root object (its header then begins with the key). */
  key?: string;
  chunkRows?: number;
}

/**
 * The TOON of the validated JSON array opening at text[start], when that array is a table: the
 * library's `encode(array)`, or with `key`, `encode({ [key]: array })` (the member's lines in a
 * root object).
 */
export function encodeTable(text: string, start: number, o: TableOptions, encode: ToonEncode): TableEncoding {
  const { key, delimiter } = o;
  // What the header line holds before `[N`: nothing, or the key as TOON writes it.
  const lead = key === undefined ? '' : encode({ [key]: null }).slice(0, -': null'.length);
  let keys: string[] | undefined;
  let headerRest = ''; // the first chunk's header after `[k`
  const toon: string[] = ['']; // the header (known at the end), then each chunk's row lines
  let rows = 0;
  let encodable = true;
  const collect = collectEvery();
  for (const chunk of arrayChunks(text, start, o.chunkRows ?? CHUNK_ROWS, CHUNK_CHARS)) {
    collect(chunk.to - chunk.from);
    const values = parseChunk(text, chunk) as Json[];
    keys ??= rowKeys(values[0] as Json);
    if (keys === undefined || !rowsFit(values, keys)) return { kind: 'not a table' };
    rows += values.length;
    if (!encodable) continue; // still read on: whether it is a table decides the gate
    let lines: string;
    try {
      lines = encode(key === undefined ? values : { [key]: values }, { delimiter });
    } catch {
      encodable = false;
      continue;
    }
    const eol = lines.indexOf('\n');
    if (toon.length === 1) headerRest = lines.slice(lead.length + `[${values.length}`.length, eol);
    toon.push(lines.slice(eol));
  }
  if (rows === 0 || rows < o.minRows) return { kind: 'not a table' };
  if (!encodable) return { kind: 'cannot encode' };
  toon[0] = `${lead}[${rows}${headerRest}`;
  return { kind: 'table', toon, rows };
}
