/**
 * Whether the events of @toon-format/toon's streaming decoder spell a given JSON value: the same
 * nesting, arrays of the same length, object keys in the value's key order, primitives equal by
 * Object.is. The library's `decode` is exactly its event builder folded over these events, so a
 * value the events spell is the value `decode` would build — without building it: proving a large
 * TOON document then costs the events of one value at a time, not the whole decoded tree (which
 * took ~5× the document's size).
 */
import type { JsonStreamEvent } from '@toon-format/toon';

/** The next event, or undefined when the stream has ended or the decoder refused the TOON. */
export type NextEvent = () => JsonStreamEvent | undefined;

const END_OBJECT = Symbol('endObject');
const END_ARRAY = Symbol('endArray');
class Key {
  constructor(readonly key: string) {}
}

/** A reader of the decoder's events that turns a decoding error into the end of the stream. */
export function eventReader(events: Iterable<JsonStreamEvent>): { next: NextEvent; failed: () => boolean } {
  const it = events[Symbol.iterator]();
  let failed = false;
  const next: NextEvent = () => {
    if (failed) return undefined;
    try {
      const r = it.next();
      return r.done ? undefined : r.value;
    } catch {
      failed = true;
      return undefined;
    }
  };
  return { next, failed: () => failed };
}

/** Whether the next events spell `expected`, a JSON.parse value (iterative: any depth). */
export function matchValue(next: NextEvent, expected: unknown): boolean {
  const todo: unknown[] = [expected];
  while (todo.length > 0) {
    const want = todo.pop();
    const e = next();
    if (e === undefined) return false;
    if (want === END_OBJECT || want === END_ARRAY) {
      if (e.type !== (want === END_OBJECT ? 'endObject' : 'endArray')) return false;
    } else if (want instanceof Key) {
      if (e.type !== 'key' || e.key !== want.key) return false;
    } else if (want === null || typeof want !== 'object') {
      if (e.type !== 'primitive' || !Object.is(e.value, want)) return false;
    } else if (Array.isArray(want)) {
      if (e.type !== 'startArray' || e.length !== want.length) return false;
      todo.push(END_ARRAY);
      for (let i = want.length - 1; i >= 0; i--) todo.push(want[i]);
    } else {
      if (e.type !== 'startObject') return false;
      todo.push(END_OBJECT);
      const keys = Object.keys(want);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i] as string;
        todo.push((want as Record<string, unknown>)[k], new Key(k));
      }
    }
  }
  return true;
}

/** The lines of s, as `s.split('\n')` gives them, one at a time. */
export function* lines(s: string): Generator<string> {
  let at = 0;
  for (;;) {
    const nl = s.indexOf('\n', at);
    if (nl < 0) {
      yield s.slice(at);
      return;
    }
    yield s.slice(at, nl);
    at = nl + 1;
  }
}
