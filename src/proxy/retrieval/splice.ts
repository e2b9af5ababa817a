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
 * spliceEdits() turns the splices that fit into text edits of the body; nothing else changes.
 */

import { CLOSE_BRACKET, OPEN_BRACKET, skipJsonSpace } from '../../json/lexical.js';
import { objectMembers } from '../../json/object-members.js';
import type { Edit } from '../../json/spans.js';
import { keyOf } from '../../store/keys.js';
import { type BodyMap, itemText } from './body-map.js';

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

/** Whether a message's text holds each id as a JSON string. */
function holdsAll(text: string | undefined, ids: readonly string[]): boolean {
  return text !== undefined && ids.every((id) => text.includes(JSON.stringify(id)));
}

/**
 * The edit that puts `items` first in the array at `span`. Only an array can hold the client's own
 * results the splice is guarded by, so nothing else ever gets here.
 */
function atStart(
  map: BodyMap,
  span: { start: number; end: number },
): (items: readonly string[]) => Edit | undefined {
  return (items) => {
    const { text } = map;
    if (text.charCodeAt(span.start) !== OPEN_BRACKET) return undefined;
    const empty = text.charCodeAt(skipJsonSpace(text, span.start + 1)) === CLOSE_BRACKET;
    return { start: span.start + 1, end: span.start + 1, text: `${items.join(',')}${empty ? '' : ','}` };
  };
}

/** The content member's value of message i, as offsets into the body. */
function contentSpan(map: BodyMap, i: number): { start: number; end: number } | undefined {
  const s = map.items?.[i];
  if (!s) return undefined;
  try {
    for (const m of objectMembers(map.text, s.start))
      if (m.key === 'content') return { start: m.valueStart, end: m.valueEnd };
  } catch {
    return undefined;
  }
  return undefined;
}

/** Where one splice goes in this body, or undefined when its guard does not hold. */
function editFor(map: BodyMap, s: Splice): Edit | undefined {
  const items = map.items;
  if (s.op === 'input-start') {
    const c = map.conversation;
    if (!c || !holdsAll(map.text.slice(c.start, c.end), s.holds)) return undefined;
    return atStart(map, c)(s.items);
  }
  if (!items || s.at >= items.length) return undefined;
  const here = itemText(map, s.at);
  switch (s.op) {
    case 'after':
      if (s.at + 1 >= items.length || keyOf(here!) !== s.hash) return undefined;
      return { start: items[s.at]!.end, end: items[s.at]!.end, text: `,${s.items.join(',')}` };
    case 'replace':
      if (!holdsAll(here, s.holds)) return undefined;
      return { start: items[s.at]!.start, end: items[s.at]!.end, text: s.items.join(',') };
    case 'prepend': {
      const content = holdsAll(here, s.holds) ? contentSpan(map, s.at) : undefined;
      return content ? atStart(map, content)(s.items) : undefined;
    }
    case 'after-call':
      for (let i = s.at; i < items.length; i++)
        if (holdsAll(itemText(map, i), s.holds))
          return { start: items[i]!.end, end: items[i]!.end, text: `,${s.items.join(',')}` };
      return undefined;
  }
}

/** The edits of the splices that fit this body (the client's, as it sent it), in the body's order. */
export function spliceEdits(map: BodyMap, splices: Iterable<Splice>): Edit[] {
  const edits: Edit[] = [];
  for (const s of splices) {
    const e = editFor(map, s);
    if (e && !edits.some((o) => o.start < e.end && e.start < o.end)) edits.push(e);
  }
  return edits;
}
