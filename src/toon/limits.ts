/**
 * How much of a document toon handles at once. A table is encoded and proven a chunk of rows at a
 * time; anything else goes through the library whole, whose encode and decode cost several times
 * the document's size (measured on a 56 MB array: JSON.parse 2.2×, encode 3.5× more, decode 5.5×),
 * so only documents up to WHOLE_MAX_CHARS do: above it, a run would break its memory budget
 * (issue 13: peak RSS ≤ 2.5× the input + 80 MB).
 */

/** Rows per chunk of a table. */
export const CHUNK_ROWS = 2048;
/** Characters of JSON after which a chunk ends early, so rows of big strings stay a small chunk. */
export const CHUNK_CHARS = 1 << 20;
/** The largest document (characters of its JSON) toon encodes or proves as a whole. */
export const WHOLE_MAX_CHARS = 4 << 20;
