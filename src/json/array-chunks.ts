/**
 * The elements of a JSON array, a run of them at a time, as text ranges: so a reader can parse and
 * handle a large array chunk by chunk, holding one chunk's values instead of the whole document's.
 * The array must already be validated (scanJson); each element's end is found with scanJson, so the
 * whole walk is one linear pass over the text, and only the current chunk's bounds are kept.
 */
import { CLOSE_BRACKET, COMMA, OPEN_BRACKET, skipJsonSpace } from './lexical.js';
import { scanJson } from './text.js';

/** A run of consecutive elements: [from, to) spans the first's start to the last's end. */
export interface ArrayChunk {
  from: number;
  to: number;
  /** How many elements the run holds (≥ 1). */
  count: number;
}

/**
 * The elements of the validated JSON array opening at `start`, in runs that end at `maxItems`
 * elements or at the first element ending `maxChars` or more past the run's start (so one huge
 * element is a run of its own). `[` + text.slice(from, to) + `]` is then a JSON array of the run.
 */
export function* arrayChunks(
  s: string,
  start: number,
  maxItems: number,
  maxChars: number,
): Generator<ArrayChunk> {
  if (s.charCodeAt(start) !== OPEN_BRACKET) throw new Error('arrayChunks: not an array');
  let i = skipJsonSpace(s, start + 1);
  if (s.charCodeAt(i) === CLOSE_BRACKET) return;
  let from = i;
  let count = 0;
  for (;;) {
    const r = scanJson(s, i);
    if (!r.ok) throw new Error('arrayChunks: the array is not valid JSON');
    count++;
    const end = r.end;
    i = skipJsonSpace(s, end);
    const more = s.charCodeAt(i) === COMMA;
    if (!more || count >= maxItems || end - from >= maxChars) {
      yield { from, to: end, count };
      if (!more) return;
      count = 0;
      from = skipJsonSpace(s, i + 1);
    }
    i = skipJsonSpace(s, i + 1);
  }
}

/** JSON.parse of a run's elements, as an array. */
export function parseChunk(s: string, c: ArrayChunk): unknown[] {
  return JSON.parse(`[${s.slice(c.from, c.to)}]`) as unknown[];
}
