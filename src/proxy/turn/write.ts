/**
 * Writing a request body back as bytes, from where its parts lie in it (placed.ts): each rewritten
 * output's JSON string replaced by JSON.stringify of its new text, a cache breakpoint inserted after
 * its block's last member — exactly the edits the reader's own write() makes, every other byte as it
 * came. It also says where each message landed in what was written, so the next turn can re-use
 * this one's bytes: given the body sent last turn and the first message whose bytes may differ
 * from then, everything before that message is copied from it instead of being written again.
 * Edits it cannot make this way (messages replaced by a summary) are left to the reader's write().
 */
import { CACHE_BREAKPOINT } from '../../input/builder.js';
import type { StructuralEdit } from '../../input/transcript.js';
import type { Placed } from './placed.js';

export interface Written {
  body: Buffer;
  /** Where each message begins and ends in body. */
  sentStart: number[];
  sentEnd: number[];
}

/** What was written for the same conversation last turn, and from which message on it may differ. */
export interface Reuse {
  sent: Buffer;
  sentStart: readonly number[];
  sentEnd: readonly number[];
  /** Messages before this one are written exactly as last turn, at the same offsets. */
  from: number;
}

interface Edit {
  start: number;
  end: number;
  bytes: Buffer;
}

const BREAKPOINT = Buffer.from(CACHE_BREAKPOINT, 'utf8');

/** The message indices of a body's cache breakpoint edits, or undefined for edits written otherwise. */
export function breakpointsOf(edits: readonly StructuralEdit[]): Set<number> | undefined {
  const at = new Set<number>();
  for (const e of edits) {
    if (e.kind !== 'cache_breakpoint') return undefined;
    at.add(e.messageIndex);
  }
  return at;
}

/**
 * The body with the rewrites (output id → text) and breakpoints applied, or undefined when an edit
 * cannot be written here (the reader's write() must do it).
 */
export function writeBody(
  placed: Placed,
  ids: readonly string[],
  rewrites: ReadonlyMap<string, string>,
  breakpoints: ReadonlySet<number>,
  reuse?: Reuse,
): Written | undefined {
  const { bytes, messages } = placed;
  const n = messages.length;
  const from = reuse ? Math.min(reuse.from, n) : 0;
  const sentStart: number[] = new Array(n);
  const sentEnd: number[] = new Array(n);
  for (let i = 0; i < from; i++) {
    sentStart[i] = reuse!.sentStart[i]!;
    sentEnd[i] = reuse!.sentEnd[i]!;
  }
  // Where writing starts, in the body and in what is written.
  const rawAt = from === 0 ? 0 : from < n ? messages[from]!.start : messages[n - 1]!.end;
  const sentAt = from === 0 ? 0 : from < n ? reuse!.sentStart[from]! : reuse!.sentEnd[n - 1]!;

  const edits: Edit[] = [];
  const first = from < n ? messages[from]!.firstOutput : ids.length;
  for (let j = first; j < ids.length; j++) {
    const text = rewrites.get(ids[j]!);
    if (text !== undefined)
      edits.push({
        start: placed.outStart[j]!,
        end: placed.outEnd[j]!,
        bytes: Buffer.from(JSON.stringify(text)),
      });
  }
  for (const m of breakpoints) {
    if (m < from) continue;
    const at = messages[m]?.breakpointAt ?? -1;
    if (at < 0) return undefined;
    edits.push({ start: at, end: at, bytes: BREAKPOINT });
  }
  edits.sort((a, b) => a.start - b.start || a.end - b.end);

  const parts: Buffer[] = from === 0 ? [] : [reuse!.sent.subarray(0, sentAt)];
  let raw = rawAt;
  let shift = sentAt - rawAt;
  let e = 0;
  for (let i = from; i < n; i++) {
    const { start, end } = messages[i]!;
    for (; e < edits.length && edits[e]!.start < start; e++) {
      parts.push(bytes.subarray(raw, edits[e]!.start), edits[e]!.bytes);
      shift += edits[e]!.bytes.length - (edits[e]!.end - edits[e]!.start);
      raw = edits[e]!.end;
    }
    sentStart[i] = start + shift;
    for (; e < edits.length && edits[e]!.start < end; e++) {
      parts.push(bytes.subarray(raw, edits[e]!.start), edits[e]!.bytes);
      shift += edits[e]!.bytes.length - (edits[e]!.end - edits[e]!.start);
      raw = edits[e]!.end;
    }
    sentEnd[i] = end + shift;
  }
  if (e < edits.length) return undefined; // an edit outside every message: not this writer's
  parts.push(bytes.subarray(raw));
  return { body: parts.length === 1 ? parts[0]! : Buffer.concat(parts), sentStart, sentEnd };
}
