/**
 * The toon proof (DESIGN §1.7; called from src/pipeline/lossless.ts) on the document itself: that
 * the TOON `toon` decodes to the value of the validated JSON document input[start, end), key order
 * included, and that this value is faithful to the JSON's text (every number keeps its written
 * form, parsing dropped no duplicate key and reordered none). It trusts nothing the component did:
 * the TOON is read by @toon-format/toon's own strict decoder, as events (match-events.ts), and
 * compared with JSON.parse of the input.
 *
 * The input is read the way it is written, so that no more than one piece of it is parsed at a
 * time: an array a run of elements at a time (array-chunks.ts), an object member by member
 * (object-members.ts), each array member again in runs; each piece is parsed, checked faithful
 * (canonicalJson of its text, plus the object's keys: no key twice, array-index keys only first
 * and ascending, as JSON.parse would order them) and matched against the decoder's next events.
 * Any other value is parsed whole, so only up to WHOLE_MAX_CHARS (limits.ts); a larger one is
 * refused, which the component never writes. Reasons rank as they did for the whole document:
 * 'number precision' anywhere first, then 'duplicate or reordered keys', then a refusal for size,
 * then 'round trip failed' — so a reason does not depend on where the pieces fall.
 */
import type { decodeStreamSync } from '@toon-format/toon';
import { collectEvery } from '../heap/collect.js';
import { arrayChunks } from '../json/array-chunks.js';
import { OPEN_BRACE, OPEN_BRACKET } from '../json/lexical.js';
import { isIndexKey, objectMembers } from '../json/object-members.js';
import { canonicalJson } from '../json/text.js';
import { CHUNK_CHARS, CHUNK_ROWS, WHOLE_MAX_CHARS } from './limits.js';
import { eventReader, lines, matchValue, type NextEvent } from './match-events.js';

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
  const proof = new PieceProof(input, next, chunkRows);
  proof.value(start, end, true);
  if (proof.inexact) return 'number precision';
  if (!proof.faithful) return 'duplicate or reordered keys';
  if (proof.tooLarge) return 'too large to prove as a whole document';
  return proof.decodes && next() === undefined && !failed() ? undefined : 'round trip failed';
}

/** The findings so far of reading the input piece by piece against the decoder's events. */
class PieceProof {
  inexact = false;
  faithful = true;
  tooLarge = false;
  decodes = true;
  private readonly collect = collectEvery();

  constructor(
    private readonly input: string,
    private readonly next: NextEvent,
    private readonly chunkRows: number,
  ) {}

  /** The value in [from, to); a root object's members are read one by one. */
  value(from: number, to: number, root = false): void {
    const c = this.input.charCodeAt(from);
    if (c === OPEN_BRACKET) this.array(from);
    else if (c === OPEN_BRACE && root) this.members(from);
    else this.whole(from, to);
  }

  /** Whether the next event is of this type (a failed match is remembered). */
  private expect(type: string, key?: string): void {
    if (!this.decodes) return;
    const e = this.next();
    this.decodes = e?.type === type && (key === undefined || (e.type === 'key' && e.key === key));
  }

  private array(start: number): void {
    const open = this.decodes ? this.next() : undefined;
    if (open?.type !== 'startArray') this.decodes = false;
    let elements = 0;
    for (const chunk of arrayChunks(this.input, start, this.chunkRows, CHUNK_CHARS)) {
      if (this.inexact) return;
      elements += chunk.count;
      const values = this.faithfulPiece(chunk.from, chunk.to, true) as unknown[] | undefined;
      if (values && this.decodes) this.decodes = values.every((v) => matchValue(this.next, v));
    }
    if (open?.type !== 'startArray' || open.length !== elements) this.decodes = false;
    this.expect('endArray');
  }

  private members(start: number): void {
    this.expect('startObject');
    const seen = new Set<string>();
    let named = false;
    let lastIndex = -1;
    for (const m of objectMembers(this.input, start)) {
      if (this.inexact) return;
      if (seen.has(m.key)) this.faithful = false;
      seen.add(m.key);
      if (!isIndexKey(m.key)) named = true;
      else if (named || Number(m.key) <= lastIndex) this.faithful = false;
      else lastIndex = Number(m.key);
      this.expect('key', m.key);
      this.value(m.valueStart, m.valueEnd);
    }
    this.expect('endObject');
  }

  private whole(from: number, to: number): void {
    if (to - from > WHOLE_MAX_CHARS) {
      // Too large to parse; only a number's precision could still outrank that.
      this.tooLarge = true;
      if (!canonicalJson(this.input, from, to).exactNumbers) this.inexact = true;
      return;
    }
    const value = this.faithfulPiece(from, to, false);
    if (value !== undefined && this.decodes) this.decodes = matchValue(this.next, value);
  }

  /**
   * JSON.parse of [from, to) (as an array of the elements there when `elements`), when its text
   * says exactly that: undefined when a number or key did not survive here or before.
   */
  private faithfulPiece(from: number, to: number, elements: boolean): unknown {
    this.collect(to - from);
    const canonical = canonicalJson(this.input, from, to);
    if (!canonical.exactNumbers) this.inexact = true;
    if (this.inexact || !this.faithful) return undefined;
    const text = elements ? `[${this.input.slice(from, to)}]` : this.input.slice(from, to);
    const value: unknown = JSON.parse(text);
    if (JSON.stringify(value) !== (elements ? `[${canonical.text}]` : canonical.text)) {
      this.faithful = false;
      return undefined;
    }
    return value;
  }
}
