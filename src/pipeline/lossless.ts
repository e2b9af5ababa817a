/**
 * Lossless claims are checked, not trusted (DESIGN §1.7). A rewrite reported as `loss: 'none'`
 * names the proof that it says the same as its input, and the pipeline runs that proof here on the
 * input and the rewrite alone — whatever the component did or believes. What cannot be proven is
 * reverted, so a lossless component can never lose a byte without a marker.
 *
 *   json  Only whole JSON documents of the input changed (src/json/documents.ts: the whole output,
 *         a fenced json block, a line-bounded block of real size), every other byte is as it was,
 *         and each document became JSON with the same tokens: the same structure, the same strings
 *         (escape spelling aside) and the same numbers as written. Stricter than parsing to equal
 *         values on purpose: `12345678901234567890` and `12345678901234567000` parse to the same
 *         double, but they are not the same number.
 *   toon  The whole input is one JSON document whose JSON.parse value is faithful to its text (no
 *         number changes its written form, no duplicate or reordered keys), and the rewrite, with
 *         the same surrounding whitespace, is TOON that decodes to a deep-equal value (key order
 *         included). Checked by src/toon/prove.ts, which reads a JSON array and the TOON's
 *         decoded events a run of elements at a time, so proving a 50 MB table holds one run's
 *         values; any other document is parsed whole, so only up to 4 MB (src/toon/limits.ts),
 *         above which it is refused (toon never writes one). @toon-format/toon is imported only
 *         when such a claim arrives.
 * A cache breakpoint (a structural edit, cacheinject) is lossless too: the body written with it
 * differs from the input only inside its message, and that message parses to the same value with
 * `cache_control: {type: "ephemeral"}` added to its last content block and nothing else.
 */
import type { LosslessProof } from '../component.js';
import type { StructuralEdit, Transcript } from '../input/transcript.js';
import { jsonDocuments } from '../json/documents.js';
import { BACKSLASH, isJsonSpace, QUOTE, scanScalar, scanString } from '../json/lexical.js';
import { scanJson, trimmedRange } from '../json/text.js';
import { fillUnits } from '../text/utf16-window.js';

/** Why the rewrite is not proven to say the same as its input, or undefined when it is. */
export async function unproven(
  proof: LosslessProof | undefined,
  input: string,
  output: string,
): Promise<string | undefined> {
  if (proof === 'json') return unprovenJson(input, output);
  if (proof === 'toon') return unprovenToon(input, output);
  return 'claims no loss without a proof';
}

function unprovenJson(input: string, output: string): string | undefined {
  let i = 0;
  let o = 0;
  for (const d of jsonDocuments(input)) {
    const gap = d.start - i;
    if (!sameSlice(input, i, output, o, gap)) return 'changed text outside a JSON document';
    o += gap;
    // The common case, a whitespace deletion (format's own rewrite), proven in one pass; anything
    // else gets the full check below, which accepts everything the short one does.
    const deleted = spaceDeletedEnd(input, d.start, d.end, output, o);
    if (deleted >= 0) {
      i = d.end;
      o = deleted;
      continue;
    }
    const r = scanJson(output, o);
    if (!r.ok) return 'turned a JSON document into something that is not JSON';
    if (!sameTokens(input, d.start, d.end, output, o, r.end)) return 'changed the value of a JSON document';
    i = d.end;
    o = r.end;
  }
  if (input.length - i !== output.length - o || !sameSlice(input, i, output, o, input.length - i))
    return 'changed text outside a JSON document';
  return undefined;
}

/** UTF-16 units of each text the deletion check reads at a time (two 128 KB copies). */
const WINDOW = 1 << 16;
/**
 * The first window's size, doubling up to WINDOW: the code between windows then runs within the
 * first few thousand characters, before V8 optimises the loop mid-run (OSR), which a path first
 * taken after that would deoptimise (a recompile of the loop: ~10 ms on a 10 MB document).
 */
const FIRST_WINDOW = 1 << 10;
/** The full-size windows, made on the first check that needs them and kept for the next. */
let windows: { input: Uint16Array; output: Uint16Array } | undefined;

function windowsOf(size: number): { input: Uint16Array; output: Uint16Array } {
  if (size !== WINDOW) return { input: new Uint16Array(size), output: new Uint16Array(size) };
  if (!windows) windows = { input: new Uint16Array(WINDOW), output: new Uint16Array(WINDOW) };
  return windows;
}

/**
 * Where the output's document ends when output[o, …) is input's document [start, end) with some JSON
 * whitespace outside its strings deleted; -1 when it is not (then the full check decides). The input's
 * document is valid JSON (jsonDocuments validated it), and whitespace outside strings only ever
 * separates tokens, never two scalars (a `,`, `:` or bracket stands between them in valid JSON): so
 * the output's document is valid JSON with the very same tokens, ending where this says — exactly
 * what scanJson and sameTokens would find, in one pass over both texts.
 * Greedy (a character is kept while it matches): when any alignment spells the output, this one
 * does, since a matched space stands for a deleted one beside it. Inside a string nothing may be
 * deleted, and the string ends at its first unescaped quote (the input's strings are valid). The
 * texts are read a window at a time from 16-bit copies (text/utf16-window.ts); `window` is for tests,
 * whose small ones put window edges everywhere.
 */
export function spaceDeletedEnd(
  input: string,
  start: number,
  end: number,
  output: string,
  o: number,
  window = WINDOW,
): number {
  const n = output.length;
  const w = windowsOf(window);
  const iw = w.input;
  const ow = w.output;
  let i = start;
  let j = o;
  let inString = false;
  let escaped = false;
  let size = Math.min(FIRST_WINDOW, window);
  while (i < end) {
    const li = Math.min(end - i, size);
    const lj = Math.min(n - j, size);
    size = Math.min(2 * size, window);
    fillUnits(iw, input, i, li);
    fillUnits(ow, output, j, lj);
    // x in the input's window, y in the output's. Every output character matched one input
    // character, so y never passes x: the output's window runs out only at the input window's end
    // or at the output's end.
    let x = 0;
    let y = 0;
    while (x < li) {
      const c = iw[x] as number;
      if (y < lj && c === ow[y]) {
        x++;
        y++;
        if (inString) {
          if (escaped) escaped = false;
          else if (c === BACKSLASH) escaped = true;
          else if (c === QUOTE) inString = false;
        } else if (c === QUOTE) inString = true;
      } else if (y === lj && j + y < n) break;
      else if (!inString && isJsonSpace(c)) x++;
      else return -1;
    }
    i += x;
    j += y;
  }
  return inString ? -1 : j;
}

function sameSlice(a: string, at: number, b: string, bt: number, length: number): boolean {
  if (bt + length > b.length) return false;
  return length === 0 || a.slice(at, at + length) === b.slice(bt, bt + length);
}

/**
 * Whether two validated JSON texts have the same tokens: JSON whitespace between tokens is ignored,
 * strings compare by value (escapes may be spelled differently), numbers and literals as written.
 */
export function sameTokens(a: string, as: number, ae: number, b: string, bs: number, be: number): boolean {
  let i = as;
  let j = bs;
  for (;;) {
    while (i < ae && isJsonSpace(a.charCodeAt(i))) i++;
    while (j < be && isJsonSpace(b.charCodeAt(j))) j++;
    if (i >= ae || j >= be) return i >= ae && j >= be;
    const c = a.charCodeAt(i);
    if (c !== b.charCodeAt(j) && c !== QUOTE) return false;
    if (c === QUOTE) {
      if (b.charCodeAt(j) !== QUOTE) return false;
      const x = scanString(a, i);
      const y = scanString(b, j);
      if (x < 0 || y < 0) return false;
      const sa = a.slice(i, x);
      const sb = b.slice(j, y);
      if (sa !== sb && JSON.parse(sa) !== JSON.parse(sb)) return false;
      i = x;
      j = y;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39) || c === 0x74 || c === 0x66 || c === 0x6e) {
      const x = scanScalar(a, i, c);
      const y = scanScalar(b, j, c);
      if (x < 0 || y < 0 || x - i !== y - j || a.slice(i, x) !== b.slice(j, y)) return false;
      i = x;
      j = y;
    } else {
      i++;
      j++;
    }
  }
}

async function unprovenToon(input: string, output: string): Promise<string | undefined> {
  const [start, end] = trimmedRange(input);
  const scan = start < end ? scanJson(input, start) : undefined;
  if (!scan?.ok || scan.end !== end) return 'the input is not one JSON document';
  const prefix = input.slice(0, start);
  const suffix = input.slice(end);
  if (!output.startsWith(prefix) || !output.endsWith(suffix) || output.length < prefix.length + suffix.length)
    return 'changed the whitespace around the document';
  const [{ decodeStreamSync }, { unprovenToonDocument }] = await Promise.all([
    import('@toon-format/toon'),
    import('../toon/prove.js'),
  ]);
  return unprovenToonDocument(
    input,
    start,
    end,
    output.slice(prefix.length, output.length - suffix.length),
    decodeStreamSync,
  );
}

type Breakpoint = Extract<StructuralEdit, { kind: 'cache_breakpoint' }>;

/** The message before and after the breakpoint is written, or why that cannot be shown. */
function writtenBreakpoint(t: Transcript, edit: Breakpoint): { before: string; after: string } | string {
  const i = edit.messageIndex;
  // A transcript that writes each message from within it (a replayed turn's) shows that message
  // alone, without writing the whole body twice.
  if (t.writeMessage) {
    const before = t.messageSpan?.(i, i + 1);
    const after = t.writeMessage(i, [edit]);
    if (before === undefined || after === undefined) return 'the message cannot be located in the body';
    return after.length > before.length ? { before, after } : 'changed the body outside its message';
  }
  const range = t.messageRange?.(i, i + 1);
  if (!range) return 'the message cannot be located in the body';
  const raw = t.write(new Map());
  const written = t.write(new Map(), [edit]);
  const added = written.length - raw.length;
  const end = range.end + added;
  if (
    added <= 0 ||
    written.slice(0, range.start) !== raw.slice(0, range.start) ||
    written.slice(end) !== raw.slice(range.end)
  )
    return 'changed the body outside its message';
  return { before: raw.slice(range.start, range.end), after: written.slice(range.start, end) };
}

/** Why writing the breakpoint would change more than its block's cache_control, or undefined. */
export function unprovenBreakpoint(t: Transcript, edit: Breakpoint): string | undefined {
  const w = writtenBreakpoint(t, edit);
  if (typeof w === 'string') return w;
  let before: unknown;
  let after: unknown;
  try {
    before = JSON.parse(w.before);
    after = JSON.parse(w.after);
  } catch {
    return 'left a message that is not JSON';
  }
  const blocks = (after as { content?: unknown }).content;
  const last = Array.isArray(blocks)
    ? (blocks[blocks.length - 1] as Record<string, unknown> | undefined)
    : undefined;
  if (!last || typeof last !== 'object' || !sameJson(last.cache_control, { type: 'ephemeral' }))
    return 'did not mark the last content block';
  delete last.cache_control;
  return sameJson(after, before) ? undefined : 'changed more than cache_control';
}

/** Deep equality of JSON values, object key order included (iterative). */
export function sameJson(a: unknown, b: unknown): boolean {
  const todo: Array<[unknown, unknown]> = [[a, b]];
  while (todo.length > 0) {
    const [x, y] = todo.pop() as [unknown, unknown];
    if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') {
      if (!Object.is(x, y)) return false;
      continue;
    }
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    if (Object.getPrototypeOf(x) !== Object.getPrototypeOf(y)) return false;
    const kx = Object.keys(x);
    const ky = Object.keys(y);
    if (kx.length !== ky.length) return false;
    for (let i = 0; i < kx.length; i++) {
      const k = kx[i] as string;
      if (k !== ky[i]) return false;
      todo.push([(x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]]);
    }
  }
  return true;
}
