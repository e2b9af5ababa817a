/**
 * Where a request body's messages and tool outputs lie in its bytes: the reader's layout (UTF-16
 * offsets into the decoded text, src/input) turned into UTF-8 byte offsets, which stay valid from
 * one turn to the next for as long as the bytes before them do. A body whose text is all ASCII has
 * the same offsets either way; otherwise one walk over the bytes counts the units between them.
 */
import type { BodyLayout, InputFormat } from '../input/transcript.js';

export interface PlacedMessage {
  /** The message's JSON value. */
  start: number;
  end: number;
  /** Where a cache breakpoint is inserted, or -1 where none can be. */
  breakpointAt: number;
  /** Its blocks that carry cache_control already. */
  breakpoints: number;
  /** How many tool outputs come before this message's first (the index of its first output). */
  firstOutput: number;
}

export interface Placed {
  format: Exclude<InputFormat, 'text'>;
  bytes: Buffer;
  messages: PlacedMessage[];
  /** Each output's JSON string, parallel to the transcript's outputs. */
  outStart: number[];
  outEnd: number[];
}

/**
 * A converter from UTF-16 offsets into text (the decoding of `bytes` from `base` on, valid UTF-8) to
 * byte offsets, for the given offsets (any order): identity plus base for ASCII text, else one walk
 * over the bytes, counting the UTF-16 units each character decodes to.
 */
export function byteOffsets(
  text: string,
  bytes: Buffer,
  base: number,
  offsets: Iterable<number>,
): (at: number) => number {
  if (bytes.length - base === text.length) return (at) => base + at;
  const sorted = Float64Array.from(new Set(offsets)).sort();
  const at = new Float64Array(sorted.length);
  let units = 0;
  let byte = base;
  for (let i = 0; i < sorted.length; i++) {
    const to = sorted[i]!;
    while (units < to) {
      const b = bytes[byte]!;
      // A lead byte says how long its sequence is; four bytes decode to a surrogate pair.
      if (b < 0x80) byte += 1;
      else if (b < 0xe0) byte += 2;
      else if (b < 0xf0) byte += 3;
      else {
        byte += 4;
        units++;
      }
      units++;
    }
    at[i] = byte;
  }
  return (offset) => {
    let lo = 0;
    let hi = sorted.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    if (sorted[lo] !== offset) throw new RangeError(`offset ${offset} was not placed`);
    return at[lo]!;
  };
}

function* offsetsOf(layout: BodyLayout): Generator<number> {
  for (const m of layout.messages) yield* [m.start, m.end];
  for (const o of layout.outputs) yield* [o.start, o.end];
  for (const b of layout.breakpointAt) if (b >= 0) yield b;
}

/**
 * The messages and outputs of a reader's layout, placed in bytes. `text` is the decoded text the
 * layout's offsets are in: the body's `bytes` (valid UTF-8) from byte `base` on; `outputMessages`
 * gives each output's message index (in the layout's numbering).
 */
export function placeLayout(
  layout: BodyLayout,
  outputMessages: readonly number[],
  text: string,
  bytes: Buffer,
  base: number,
): { messages: PlacedMessage[]; outStart: number[]; outEnd: number[] } {
  const toByte = byteOffsets(text, bytes, base, offsetsOf(layout));
  let j = 0;
  const messages = layout.messages.map((span, i): PlacedMessage => {
    // Outputs are in document order: each message's first follows every earlier message's.
    while (j < outputMessages.length && outputMessages[j]! < i) j++;
    const bp = layout.breakpointAt[i] ?? -1;
    return {
      start: toByte(span.start),
      end: toByte(span.end),
      breakpointAt: bp < 0 ? -1 : toByte(bp),
      breakpoints: layout.breakpoints[i] ?? 0,
      firstOutput: j,
    };
  });
  return {
    messages,
    outStart: layout.outputs.map((o) => toByte(o.start)),
    outEnd: layout.outputs.map((o) => toByte(o.end)),
  };
}
