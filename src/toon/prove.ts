/**
 * The toon proof (DESIGN §1.7; called from src/pipeline/lossless.ts) on the document itself: that
 * the TOON `toon` decodes to the value of the validated JSON document input[start, end), key order
 * included, and that this value is faithful to the JSON's text (every number keeps its written
 * form, parsing dropped no duplicate key and reordered none). It trusts nothing the component did:
 * the TOON is read by @toon-format/toon's own strict decoder, as events (match-events.ts), and
 * compared with JSON.parse of the input.
 *
 * A JSON array is proven a run of elements at a time (array-chunks.ts): each run is parsed, checked
 * faithful (canonicalJson of the run's text) and matched against the decoder's next events, so
 * proving a 50 MB table holds one run's values, never the document's. Any other document is parsed
 * whole, so only up to WHOLE_MAX_CHARS (limits.ts); a larger one is refused, which the component
 * never writes. Reasons rank as they did for the whole document: 'number precision' anywhere first,
 * then 'duplicate or reordered keys', then 'round trip failed', so a reason does not depend on where
 * the runs fall.
 */
import type { decodeStreamSync } from '@toon-format/toon';
import { collectEvery } from '../heap/collect.js';
import { arrayChunks, parseChunk } from '../json/array-chunks.js';
import { OPEN_BRACKET } from '../json/lexical.js';
import { canonicalJson } from '../json/text.js';
import { CHUNK_CHARS, CHUNK_ROWS, WHOLE_MAX_CHARS } from './limits.js';
import { eventReader, lines, matchValue } from './match-events.js';

/** The library's streaming decoder, passed in so that it stays lazily imported by the caller. */
export type ToonEvents = typeof decodeStreamSync;

/** Why `toon` is not proven to say what the JSON in input[start, end) says, or undefined when it is. */
export function unprovenToonDocument(
  input: string,
  start: number,
  end: number,
  toon: string,
  decodeEvents: ToonEvents,
  chunkRows = CHUNK_ROWS,
): string | undefined {
  const { next, failed } = eventReader(decodeEvents(lines(toon)));
  if (input.charCodeAt(start) !== OPEN_BRACKET) {
    if (end - start > WHOLE_MAX_CHARS) return 'too large to prove as a whole document';
    const canonical = canonicalJson(input, start, end);
    if (!canonical.exactNumbers) return 'number precision';
    const value: unknown = JSON.parse(input.slice(start, end));
    if (JSON.stringify(value) !== canonical.text) return 'duplicate or reordered keys';
    return matchValue(next, value) && next() === undefined && !failed() ? undefined : 'round trip failed';
  }
  const open = next();
  let decodes = open?.type === 'startArray';
  let faithful = true;
  let elements = 0;
  const collect = collectEvery();
  for (const chunk of arrayChunks(input, start, chunkRows, CHUNK_CHARS)) {
    collect(chunk.to - chunk.from);
    elements += chunk.count;
    const canonical = canonicalJson(input, chunk.from, chunk.to);
    if (!canonical.exactNumbers) return 'number precision';
    if (!faithful) continue; // only a number's precision could still outrank that reason
    const values = parseChunk(input, chunk);
    if (JSON.stringify(values) !== `[${canonical.text}]`) faithful = false;
    else if (decodes) decodes = values.every((v) => matchValue(next, v));
  }
  if (!faithful) return 'duplicate or reordered keys';
  if (!decodes || open?.type !== 'startArray' || open.length !== elements) return 'round trip failed';
  const close = next();
  return close?.type === 'endArray' && next() === undefined && !failed() ? undefined : 'round trip failed';
}
