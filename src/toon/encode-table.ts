/**
 * TOON for a JSON document that is one large table (toon's table: table-shape.ts), encoded a chunk
 * of rows at a time so that only one chunk's parsed rows are ever held, never the whole document's
 * value (JSON.parse plus the library's encoder cost ~5× a document's size). The result is exactly
 * the library's `encode(JSON.parse(document))`: for a table the library writes a header line
 * `[N]{fields}:` (the delimiter inside the brackets when it is not a comma) and then one line per
 * row that depends only on that row's values and the delimiter, so encoding each chunk alone and
 * writing its row lines under one header with the real N gives the same bytes
 * (test/unit/toon/encode-table.test.ts pins this against the library on generated tables).
 */
import { collectEvery } from '../heap/collect.js';
import { arrayChunks, parseChunk } from '../json/array-chunks.js';
import { CHUNK_CHARS, CHUNK_ROWS } from './limits.js';
import { type Json, rowKeys, rowsFit } from './table-shape.js';

/** The library's encode, passed in so that it stays lazily imported by the caller. */
export type ToonEncode = typeof import('@toon-format/toon').encode;
type Delimiter = ',' | '\t' | '|';

export type TableEncoding =
  /** `output`: the text with the document replaced by its TOON, as one flat string. */
  | { kind: 'table'; output: string; rows: number }
  /** Some element is not a row of the table (or there are fewer than minRows). */
  | { kind: 'not a table' }
  /** A table, but the library refuses a value in it (an unpaired surrogate). */
  | { kind: 'cannot encode' };

/**
 * The TOON of the validated JSON array text[start, end), when that array is a table, written in
 * place of it (the text before `start` and after `end` kept as it is).
 */
export function encodeTable(
  text: string,
  start: number,
  end: number,
  minRows: number,
  delimiter: Delimiter,
  encode: ToonEncode,
  chunkRows = CHUNK_ROWS,
): TableEncoding {
  let keys: string[] | undefined;
  let headerRest = ''; // the first chunk's header after `[k`
  // The text before the document, the header (known at the end), each chunk's rows, the text after.
  const parts: string[] = [text.slice(0, start), ''];
  let rows = 0;
  let encodable = true;
  const collect = collectEvery();
  for (const chunk of arrayChunks(text, start, chunkRows, CHUNK_CHARS)) {
    collect(chunk.to - chunk.from);
    const values = parseChunk(text, chunk) as Json[];
    keys ??= rowKeys(values[0] as Json);
    if (keys === undefined || !rowsFit(values, keys)) return { kind: 'not a table' };
    rows += values.length;
    if (!encodable) continue; // still read on: whether it is a table decides the gate
    let toon: string;
    try {
      toon = encode(values, { delimiter });
    } catch {
      encodable = false;
      continue;
    }
    const eol = toon.indexOf('\n');
    if (parts.length === 2) headerRest = toon.slice(`[${values.length}`.length, eol);
    parts.push(toon.slice(eol));
  }
  if (rows === 0 || rows < minRows) return { kind: 'not a table' };
  if (!encodable) return { kind: 'cannot encode' };
  parts[1] = `[${rows}${headerRest}`;
  parts.push(text.slice(end));
  return { kind: 'table', output: parts.join(''), rows };
}
