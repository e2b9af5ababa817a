/**
 * A large text's UTF-8 a slice at a time, for the work that needs its bytes but not all of them at
 * once (hashing, compressing, comparing, writing a 60 MB original): slices end at a UTF-16 unit
 * count but never between the two halves of a surrogate pair, so the slices' encodings, one after
 * another, are exactly the whole text's encoding (a lone surrogate becomes U+FFFD either way).
 */

/** UTF-16 units a slice: its UTF-8 is at most three bytes a unit. */
export const SLICE_UNITS = 1 << 20;

/** Where the slice that starts at `at` ends. */
export function sliceEnd(text: string, at: number, units = SLICE_UNITS): number {
  let end = Math.min(text.length, at + units);
  const last = text.charCodeAt(end - 1);
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
  return end;
}

/** The text's slices, in order. */
export function* utf8Slices(text: string, units = SLICE_UNITS): Generator<string> {
  for (let at = 0; at < text.length; ) {
    const end = sliceEnd(text, at, units);
    yield text.slice(at, end);
    at = end;
  }
}

/** Whether bytes are exactly the text's UTF-8, with one slice's bytes encoded at a time. */
export function sameUtf8(bytes: Uint8Array, text: string): boolean {
  const scratch = Buffer.allocUnsafe(3 * SLICE_UNITS + 3);
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  for (const slice of utf8Slices(text)) {
    const n = scratch.write(slice, 'utf8');
    if (at + n > view.length || !view.subarray(at, at + n).equals(scratch.subarray(0, n))) return false;
    at += n;
  }
  return at === view.length;
}
