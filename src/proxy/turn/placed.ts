/**
 * Where a request body's messages and tool outputs lie in its bytes: the reader's layout (UTF-16
 * offsets into the decoded text, src/input) turned into UTF-8 byte offsets, which stay valid from
 * one turn to the next for as long as the bytes before them do. A body whose text is all ASCII has
 * the same offsets either way; otherwise the bytes between each two offsets are counted.
 */
import { isAscii } from 'node:buffer';
import type { BodyLayout, InputFormat } from '../../input/transcript.js';

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
 * byte offsets, for the given offsets (any order, none inside a surrogate pair): identity plus base
 * for ASCII text; else, between each two offsets in order, as many bytes as units where those bytes
 * are ASCII (one native check), or the UTF-8 length of the text between them.
 */
export function byteOffsets(
  text: string,
  bytes: Buffer,
  base: number,
  offsets: Float64Array,
): (at: number) => number {
  if (bytes.length - base === text.length) return (at) => base + at;
  const sorted = ascending(offsets) ? offsets : offsets.sort();
  const at = new Float64Array(sorted.length);
  let units = 0;
  let byte = base;
  for (let i = 0; i < sorted.length; i++) {
    const to = sorted[i]!;
    const n = to - units;
    if (n > 0) {
      const end = byte + n;
      byte =
        end <= bytes.length && isAscii(bytes.subarray(byte, end))
          ? end
          : byte + Buffer.byteLength(text.slice(units, to));
      units = to;
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
    // An integer where it fits one: a number read from a Float64Array is a double, and a double
    // stored in an object's field is boxed in a heap object of its own — three per carried message,
    // 120,000 in a 20 k session, for every collection to mark.
    const b = at[lo]!;
    return b <= SMALL_INT ? b | 0 : b;
  };
}

/** The largest integer V8 keeps unboxed (31 bits). */
const SMALL_INT = 0x3fffffff;

/** Every offset a layout holds, in order: its three lists are each in document order, merged. */
function offsetsOf(layout: BodyLayout): Float64Array {
  const m = new Float64Array(2 * layout.messages.length);
  layout.messages.forEach((s, i) => {
    m[2 * i] = s.start;
    m[2 * i + 1] = s.end;
  });
  const o = new Float64Array(2 * layout.outputs.length);
  layout.outputs.forEach((s, i) => {
    o[2 * i] = s.start;
    o[2 * i + 1] = s.end;
  });
  const b = Float64Array.from(layout.breakpointAt.filter((at) => at >= 0));
  return merged(merged(m, o), b);
}

/** Two ascending lists as one (an input out of order is sorted first: never wrong, only slower). */
function merged(a: Float64Array, b: Float64Array): Float64Array {
  if (!ascending(a)) a.sort();
  if (!ascending(b)) b.sort();
  const out = new Float64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = a[i]! <= b[j]! ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

function ascending(a: Float64Array): boolean {
  for (let i = 1; i < a.length; i++) if (a[i]! < a[i - 1]!) return false;
  return true;
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
