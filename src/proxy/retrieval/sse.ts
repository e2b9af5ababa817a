/**
 * Server-sent events cut out of a byte stream one whole event at a time, each with its raw bytes
 * (the blank line that ends it included), so a reader can look at an event and still hand the
 * client exactly the bytes the upstream sent. Events end at a blank line (LF or CRLF); `event:`
 * names it, `data:` lines are joined with LF (one leading space dropped), comments are skipped.
 */
import { objectAt } from '../../json/payload.js';

export interface SseEvent {
  raw: Buffer;
  event?: string;
  data: string;
}

/** A parsed event's JSON data, or undefined (`[DONE]`, a comment, not JSON). */
export function eventJson(e: SseEvent): Record<string, unknown> | undefined {
  if (e.data === '' || e.data === '[DONE]') return undefined;
  try {
    return objectAt(JSON.parse(e.data));
  } catch {
    return undefined;
  }
}

/** An event written anew from its name and JSON data (a renumbered or filtered one). */
export function sseEvent(data: unknown, event?: string): SseEvent {
  const text = JSON.stringify(data);
  const raw = Buffer.from(`${event !== undefined ? `event: ${event}\n` : ''}data: ${text}\n\n`);
  return { raw, data: text, ...(event !== undefined ? { event } : {}) };
}

function parse(raw: Buffer): SseEvent {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of raw.toString('utf8').split(/\r?\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return { raw, data: data.join('\n'), ...(event !== undefined ? { event } : {}) };
}

/** Where the event that starts the buffer ends (past its blank line), or -1 while it is incomplete. */
function eventEnd(b: Buffer, from: number): number {
  for (let i = b.indexOf(0x0a, from); i >= 0; i = b.indexOf(0x0a, i + 1)) {
    if (b[i + 1] === 0x0a) return i + 2;
    if (b[i + 1] === 0x0d && b[i + 2] === 0x0a) return i + 3;
  }
  return -1;
}

/** Cuts a stream's chunks into events; `rest()` is what came after the last whole one. */
export class SseSplitter {
  private buffered: Buffer = Buffer.alloc(0);
  /** How far the buffer was searched for an event's end already (a big event comes in many chunks). */
  private searched = 0;

  push(chunk: Buffer): SseEvent[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const out: SseEvent[] = [];
    let at = 0;
    for (let end = eventEnd(this.buffered, this.searched); end >= 0; end = eventEnd(this.buffered, at)) {
      out.push(parse(this.buffered.subarray(at, end)));
      at = end;
    }
    this.buffered = this.buffered.subarray(at);
    // An end found later may begin with the last two bytes seen (a CRLF cut in half).
    this.searched = Math.max(0, this.buffered.length - 3);
    return out;
  }

  rest(): Buffer {
    return this.buffered;
  }
}
