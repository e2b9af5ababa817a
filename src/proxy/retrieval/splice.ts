/**
 * What the proxy writes into a client's later requests so the model sees the conversation it had:
 * splices, each placed by the client's own messages (indices into the conversation as the client
 * sent it) and guarded by what must stand there — the message's content key, or the call ids it
 * must hold — so a history the client edited or cut takes none that no longer fit.
 *
 *   after        a hidden exchange (cg_expand calls and their results), after message `at`, when a
 *                later message (the answer the client got) follows it
 *   replace      the client's copy of an answer it got without the proxy's calls → the whole answer
 *   prepend      Anthropic: the proxy's tool_result blocks first in message `at`'s content
 *   after-call   Responses: the proxy's call and result items after the client's first item (from
 *                `at` on) that holds its own call
 *   input-start  Responses continuing a stored response: the proxy's results first in `input`,
 *                when it holds the client's own results
 *
 * spliceEdits() turns the splices that fit into byte edits of the body; nothing else changes.
 */

import { keyOf } from '../../store/keys.js';
import { type BodyMap, type ByteEdit, emptyArrayAt, itemBytes, memberSpan } from './body-map.js';

export type Splice =
  | { op: 'after'; at: number; hash: string; items: string[] }
  | { op: 'replace'; at: number; holds: string[]; items: string[] }
  | { op: 'prepend'; at: number; holds: string[]; items: string[] }
  | { op: 'after-call'; at: number; holds: string[]; items: string[] }
  | { op: 'input-start'; holds: string[]; items: string[] };

/** A splice's place in the session's list: a later one at the same place replaces it (a retry). */
export function spliceId(s: Splice): string {
  return s.op === 'after'
    ? `after:${s.at}:${s.hash}`
    : `${s.op}:${'at' in s ? s.at : ''}:${s.holds.join(',')}`;
}

/** Whether a message's bytes hold each id as a JSON string. */
function holdsAll(bytes: Buffer | undefined, ids: readonly string[]): boolean {
  return bytes !== undefined && ids.every((id) => bytes.includes(JSON.stringify(id)));
}

/**
 * The edit that puts `items` first in the array at `span`. Only an array can hold the client's own
 * results the splice is guarded by, so nothing else ever gets here.
 */
function atStart(map: BodyMap, span: { start: number }, items: readonly string[]): ByteEdit | undefined {
  if (map.bytes[span.start] !== 0x5b) return undefined;
  const comma = emptyArrayAt(map.bytes, span.start) ? '' : ',';
  return { start: span.start + 1, end: span.start + 1, text: `${items.join(',')}${comma}` };
}

/** Where one splice goes in this body, or undefined when its guard does not hold. */
function editFor(map: BodyMap, s: Splice): ByteEdit | undefined {
  const items = map.items;
  if (s.op === 'input-start') {
    const c = map.conversation;
    if (!c || !holdsAll(map.bytes.subarray(c.start, c.end), s.holds)) return undefined;
    return atStart(map, c, s.items);
  }
  if (!items || s.at >= items.length) return undefined;
  const here = itemBytes(map, s.at)!;
  const span = items[s.at]!;
  switch (s.op) {
    case 'after':
      if (s.at + 1 >= items.length || keyOf(here) !== s.hash) return undefined;
      return { start: span.end, end: span.end, text: `,${s.items.join(',')}` };
    case 'replace':
      if (!holdsAll(here, s.holds)) return undefined;
      return { start: span.start, end: span.end, text: s.items.join(',') };
    case 'prepend': {
      const content = holdsAll(here, s.holds) ? memberSpan(map.bytes, span.start, 'content') : undefined;
      return content ? atStart(map, content, s.items) : undefined;
    }
    case 'after-call':
      for (let i = s.at; i < items.length; i++)
        if (holdsAll(itemBytes(map, i), s.holds))
          return { start: items[i]!.end, end: items[i]!.end, text: `,${s.items.join(',')}` };
      return undefined;
  }
}

/** The edits of the splices that fit this body (the client's, as it sent it), in the body's order. */
export function spliceEdits(map: BodyMap, splices: Iterable<Splice>): ByteEdit[] {
  const edits: ByteEdit[] = [];
  for (const s of splices) {
    const e = editFor(map, s);
    if (e && !edits.some((o) => o.start < e.end && e.start < o.end)) edits.push(e);
  }
  return edits;
}
