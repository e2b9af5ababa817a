/**
 * Reading a request body against its conversation's last turn (carry.ts), so that only what is
 * new is parsed. An agent resends the whole conversation every turn, byte for byte up to the last
 * message or two; so:
 *   1. the new body is compared with the last one (memcmp), giving the messages that are unchanged;
 *   2. only the rest is read — the body with those messages left out, read by the format's own
 *      reader (src/input), so every new message means exactly what a full read would make of it;
 *   3. the unchanged messages and their outputs come from the carry, their texts read from the
 *      body only when asked (carried.ts).
 * The cut falls before an unchanged message that answers nothing before it (not a tool result), so
 * the part read again holds every call its results answer. Whatever a partial read could get wrong
 * — an output id the earlier messages already use, ids that name a position, a result whose call
 * is not in the part read — sends the body to a full read instead (undefined).
 *
 * placeRead is the same for a body read in full: where its parts lie, for the writer and the carry.
 */

import { CACHE_BREAKPOINT } from '../../input/builder.js';
import { readTranscript } from '../../input/read.js';
import type {
  BodyLayout,
  MessageView,
  StructuralEdit,
  ToolOutput,
  Transcript,
} from '../../input/transcript.js';
import { CarriedOutput } from './carried.js';
import type { TurnCarry } from './carry.js';
import { type Placed, type PlacedMessage, placeLayout } from './placed.js';
import { breakpointsOf, type Written, writeBody } from './write.js';

export interface TurnRead {
  transcript: Transcript;
  placed: Placed;
  /** Leading messages taken from the carry as they were (0 for a full read). */
  kept: number;
  /** The content key of an output of an earlier turn, known already. */
  hashOf(o: ToolOutput): string | undefined;
  /**
   * The body with the rewrites and edits applied, or undefined for edits only write() can make;
   * `rewrittenAt`, the same rewrites by output index (PipelineResult.rewrittenAt), spares looking
   * each earlier output up by id.
   */
  write(
    rewrites: ReadonlyMap<string, string>,
    edits: readonly StructuralEdit[],
    rewrittenAt?: readonly (string | undefined)[],
  ): Written | undefined;
}

/** How many leading bytes a and b share. */
export function commonPrefix(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  const step = 1 << 16;
  let at = 0;
  while (at < n) {
    const end = Math.min(n, at + step);
    if (a.compare(b, at, end, at, end) !== 0) break;
    at = end;
  }
  const end = Math.min(n, at + step);
  while (at < end && a[at] === b[at]) at++;
  return at;
}

/** The layout with every offset moved by `by`. */
function shifted(l: BodyLayout, by: number): BodyLayout {
  const span = (s: { start: number; end: number }) => ({ start: s.start + by, end: s.end + by });
  return {
    messages: l.messages.map(span),
    outputs: l.outputs.map(span),
    breakpointAt: l.breakpointAt.map((b) => (b < 0 ? b : b + by)),
    breakpoints: l.breakpoints,
  };
}

/** The text of message `index` with the given breakpoint edits, from the placed bytes. */
function messageWith(placed: Placed, index: number, edits: readonly StructuralEdit[]): string | undefined {
  const m = placed.messages[index];
  if (!m) return undefined;
  const at = breakpointsOf(edits)?.has(index) ? m.breakpointAt : undefined;
  if (at === undefined) return placed.bytes.toString('utf8', m.start, m.end);
  if (at < 0) return undefined;
  return (
    placed.bytes.toString('utf8', m.start, at) + CACHE_BREAKPOINT + placed.bytes.toString('utf8', at, m.end)
  );
}

/** The parts every turn's transcript has beyond what the reader gave. */
function extended(t: Transcript, placed: Placed, full: () => Transcript): Transcript {
  t.messageSpan = (from, to) => {
    const a = placed.messages[from];
    const b = placed.messages[to - 1];
    return a && b && to > from ? placed.bytes.toString('utf8', a.start, b.end) : undefined;
  };
  t.writeMessage = (index, edits) => messageWith(placed, index, edits);
  t.write = (rewrites, edits) => full().write(rewrites, edits);
  delete t.messageRange;
  delete t.layout;
  return t;
}

/** A body read in full, placed; undefined where its format gives no layout. */
export function placeRead(transcript: Transcript, text: string, bytes: Buffer): TurnRead | undefined {
  const layout = transcript.layout?.();
  if (!layout || transcript.format === 'text' || layout.messages.length === 0) return undefined;
  const at = placeLayout(
    layout,
    transcript.outputs.map((o) => o.messageIndex),
    text,
    bytes,
    0,
  );
  const placed: Placed = { format: transcript.format, bytes, ...at };
  const ids = transcript.outputs.map((o) => o.id);
  return {
    transcript,
    placed,
    kept: 0,
    hashOf: () => undefined,
    write(rewrites, edits) {
      const breakpoints = breakpointsOf(edits);
      return breakpoints ? writeBody(placed, ids, rewrites, breakpoints) : undefined;
    },
  };
}

/** The new body read against the carry; undefined when it must be read in full. */
export function readTurn(carry: TurnCarry, bytes: Buffer): TurnRead | undefined {
  const same = commonPrefix(carry.raw, bytes);
  const old = carry.messages;
  // The last unchanged message that answers nothing before it: the part read again starts there.
  let lo = 0;
  let hi = old.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (old[mid]!.end <= same) lo = mid + 1;
    else hi = mid;
  }
  let k = lo - 1;
  while (k > 0 && old[k]!.view.boundToPrevious) k--;
  if (k < 1) return undefined;
  const format = carry.format;
  const keptOutputs = old[k]!.firstOutput;
  const head = bytes.toString('utf8', 0, old[0]!.start);
  const tailAt = old[k]!.start;
  const tail = bytes.toString('utf8', tailAt);
  let t: Transcript;
  try {
    t = readTranscript(head + tail, format, {});
  } catch {
    return undefined;
  }
  const layout = t.layout?.();
  if (!layout || layout.messages.length !== t.messages.length || t.messages.length === 0) return undefined;
  if (t.messages[0]!.boundToPrevious) return undefined;
  for (const o of t.outputs) {
    const there = carry.index.get(o.id);
    if ((there !== undefined && there < keptOutputs) || o.id.includes('@') || o.toolName === undefined)
      return undefined;
    o.messageIndex += k;
  }
  const at = placeLayout(
    shifted(layout, -head.length),
    t.outputs.map((o) => o.messageIndex - k),
    tail,
    bytes,
    tailAt,
  );
  // The kept part from the carry, then what was read: filled in place (a long session's lists have
  // tens of thousands of entries, every turn).
  const messages: PlacedMessage[] = new Array(k + at.messages.length);
  const views: MessageView[] = new Array(k + t.messages.length);
  for (let i = 0; i < k; i++) {
    messages[i] = old[i]!;
    views[i] = old[i]!.view;
  }
  for (let i = 0; i < at.messages.length; i++) {
    const m = at.messages[i]!;
    messages[k + i] = { ...m, firstOutput: m.firstOutput + keptOutputs };
  }
  for (let i = 0; i < t.messages.length; i++) views[k + i] = t.messages[i]!;
  const n = keptOutputs + t.outputs.length;
  const outputs: ToolOutput[] = new Array(n);
  const outStart: number[] = new Array(n);
  const outEnd: number[] = new Array(n);
  for (let j = 0; j < keptOutputs; j++) {
    const o = carry.outputs[j]!;
    outputs[j] = o;
    outStart[j] = o.start;
    outEnd[j] = o.end;
  }
  for (let j = 0; j < t.outputs.length; j++) {
    outputs[keptOutputs + j] = t.outputs[j]!;
    outStart[keptOutputs + j] = at.outStart[j]!;
    outEnd[keptOutputs + j] = at.outEnd[j]!;
  }
  const placed: Placed = { format, bytes, messages, outStart, outEnd };
  const transcript: Transcript = { ...t, outputs, messages: views };
  if (t.cacheBreakpoints !== undefined) {
    let before = 0;
    for (let i = 0; i < k; i++) before += old[i]!.breakpoints;
    transcript.cacheBreakpoints = t.cacheBreakpoints + before;
  }
  let whole: Transcript | undefined;
  const full = () => {
    whole ??= readTranscript(bytes.toString('utf8'), format, {});
    return whole;
  };
  const ids = outputs.map((o) => o.id);
  return {
    transcript: extended(transcript, placed, full),
    placed,
    kept: k,
    hashOf: (o) => (o instanceof CarriedOutput && o.hash !== '' ? o.hash : undefined),
    write(rewrites, edits, rewrittenAt) {
      const breakpoints = breakpointsOf(edits);
      if (!breakpoints) return undefined;
      // The first message whose bytes may differ from what was sent for it last turn. The kept
      // outputs' ids are none of the new ones' (checked above): where the carry's are unique too,
      // an output's text by index is what the map holds for its id.
      const byIndex = carry.unique && rewrittenAt?.length === outputs.length ? rewrittenAt : undefined;
      let from = k;
      for (let j = 0; j < keptOutputs; j++) {
        const now = byIndex ? byIndex[j] : rewrites.get(ids[j]!);
        if (now !== carry.sentAt[j]) {
          from = outputs[j]!.messageIndex;
          break;
        }
      }
      for (const m of carry.breakpoints) if (m < from && !breakpoints.has(m)) from = m;
      for (const m of breakpoints) if (m < from && !carry.breakpoints.has(m)) from = m;
      return writeBody(placed, ids, rewrites, breakpoints, {
        sent: carry.sent,
        sentStart: carry.sentStart,
        sentEnd: carry.sentEnd,
        from,
      });
    },
  };
}
