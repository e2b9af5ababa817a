/**
 * Writing a long text to stdout without a copy of its UTF-8 the size of the output: in slices,
 * batched through one reused buffer of a few MB.
 */
import { writeOut } from '../io.js';
import { SLICE_UNITS, utf8Slices } from '../utf8-slices.js';

/**
 * Writes a rewritten text in slices (src/utf8-slices.ts), each encoded into one reused buffer (a
 * write resolves once its bytes are handed on), so its UTF-8 is never one more copy the size of
 * the output (37 MB of compacted JSON, 60 MB of a request body), nor that much garbage in slices.
 */
export function writeText(text: string): Promise<void> {
  return writeParts([text]);
}

/** Writes the pieces of a text one after another, batched through one buffer of a few MB. */
export async function writeParts(parts: readonly string[]): Promise<void> {
  if (parts.length === 1 && parts[0]!.length <= SLICE_UNITS) return writeOut(parts[0]!);
  const buf = Buffer.allocUnsafe(3 * SLICE_UNITS + 3);
  let used = 0;
  for (const part of parts) {
    for (const slice of utf8Slices(part)) {
      if (used + 3 * slice.length > buf.length) {
        await writeOut(buf.subarray(0, used));
        used = 0;
      }
      used += buf.write(slice, used, 'utf8');
    }
  }
  if (used > 0) await writeOut(buf.subarray(0, used));
}
