/**
 * How much input the pipe holds for compaction; past it the input streams through raw, every byte,
 * as `cg run` does past its SPOOL_CAP. Chosen from the memory budget (DESIGN §7: peak RSS ≤ 2.5× the
 * input + 80 MB). A held input is its bytes and its text at once, plus what the components make of
 * it: twice its size for text within Latin-1 (V8 keeps such a string a byte a character), so 256 MB
 * — a 250 MB log peaks at 0.97 of its budget, 200 MB of JSON at 0.86–1.00 (pretty-printed records
 * 0.96–1.00 from run to run), 256 MiB of `y\n` at 0.79 — which also keeps the text well inside V8's
 * longest string (2^29 − 24 characters). Text with a character past U+00FF is UTF-16 as a string:
 * decoding it holds three times its size at once, which passes the budget at ~70 MB, so such text is
 * held up to 3/16 of the cap, 48 MB (a 48 MB log peaks at 0.98 of its budget, 64 MB at 1.02).
 * Past the cap a run holds the cap, then a chunk at a time: its ceiling is the cap + 90 MB (1 GiB of
 * `y\n` streamed through: 312 MB).
 *
 * CG_TEST_PIPE_CAP (bytes) lowers the cap (never raises it), so tests need megabytes, not hundreds.
 */
import { isAscii } from 'node:buffer';

export const PIPE_CAP = 256 * 1024 * 1024;

/** The cap in force: PIPE_CAP, or lower for a test. */
export function pipeCap(env: NodeJS.ProcessEnv = process.env): number {
  const lowered = Number(env.CG_TEST_PIPE_CAP);
  return env.CG_TEST_PIPE_CAP && Number.isSafeInteger(lowered) && lowered >= 0
    ? Math.min(lowered, PIPE_CAP)
    : PIPE_CAP;
}

/** The cap for text beyond Latin-1 (see above). */
export function wideCap(env: NodeJS.ProcessEnv = process.env): number {
  return Math.floor((pipeCap(env) * 3) / 16);
}

/**
 * Whether valid UTF-8 decodes to a UTF-16 string in V8: it holds a character past U+00FF, whose
 * encoding starts with a byte from 0xC4 up. ASCII (the common case) is told at SIMD speed.
 */
export function isWideText(bytes: Uint8Array): boolean {
  if (isAscii(bytes)) return false;
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0xc4) return true;
  return false;
}
