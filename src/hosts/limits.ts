/**
 * What an agent host itself shows the model of a long shell command output: the shape of those
 * limits (each host's figures, read in its pinned package with where each comes from, are in its
 * folder: claude/limits.ts, codex/limits.ts, gemini/limits.ts, opencode/limits.ts) and the functions over them.
 * `cg stats` measures savings against them (src/stats/hosts.ts) and the pipeline's host gate
 * (src/pipeline/host-cap.ts) never hands a host more: where cg replaces such an output, the
 * replacement is no more tokens than what the host would have shown of the original (DESIGN §1.9).
 * `frame` renders that view — the host's own wrapper text around what it keeps — so its tokens can be
 * counted like any other text; the wrappers' file paths are placeholders of a typical length.
 * The figures were checked again in the installed 2.1.332 / 0.171.0 / 0.61.0 packages
 * (test/clients/clients.json pins them).
 */

export interface HostLimit {
  /** Longest output shown whole; `unit` says what is counted. */
  inline: number;
  unit: 'chars' | 'bytes';
  /** Past `inline`: what is kept, in `unit`; `atNewline`: the head ends at a newline past half. */
  keep: { head: number; tail: number; atNewline?: boolean };
  /**
   * The host also shows at most this many lines (counted as its split on '\n' counts them, so a
   * final newline opens one more), whatever the size: past it, or past `inline`, the tail is kept
   * in whole lines from the end — at most `lines` of them and `keep.tail` bytes — and only a last
   * line longer than that alone is cut, on a character boundary (OpenCode's shell tool). A host
   * with `lines` keeps no head and counts bytes.
   */
  lines?: number;
  /** Sources of the figures above. */
  source: string;
  /** The text the model gets for an output past `inline`, from what is kept of it. */
  frame(kept: Kept): string;
}

export interface Kept {
  head: string;
  tail: string;
  /** The whole output, for the sizes and counts a host prints about it. */
  text: string;
}

/** Whether the host shows less than the whole of a text (known) or of `bytes` bytes of text. */
export function hostCaps(host: HostLimit, text: string | undefined, bytes: number): boolean {
  // A char is at least a byte: past in bytes may still fit in chars; and lines need the text.
  if (text === undefined) return bytes > host.inline;
  if (host.lines !== undefined && splitCount(text) > host.lines) return true;
  return (host.unit === 'chars' ? text.length : bytes) > host.inline;
}

/** What the host shows the model of a tool output (the text itself when it fits). */
export function hostView(host: HostLimit, text: string): string {
  if (host.unit === 'chars') {
    if (text.length <= host.inline) return text;
    const tail = host.keep.tail > 0 ? text.slice(text.length - host.keep.tail) : '';
    return host.frame({ head: headOf(host, text.slice(0, host.keep.head)), tail, text });
  }
  if (host.lines !== undefined) return tailLinesView(host, host.lines, text);
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= host.inline) return text;
  const head = headOf(host, utf8Prefix(buf, host.keep.head));
  const tail = utf8Suffix(buf, host.keep.tail);
  return host.frame({ head, tail, text });
}

/** The view of a host that keeps whole lines of the tail (`HostLimit.lines`). */
function tailLinesView(host: HostLimit, maxLines: number, text: string): string {
  if (splitCount(text) <= maxLines && Buffer.byteLength(text, 'utf8') <= host.inline) return text;
  const kept: string[] = [];
  let bytes = 0;
  // [start, end) is one piece of the split, taken from the last; a piece ends at the text's end or
  // at the newline after it.
  let end = text.length;
  while (kept.length < maxLines) {
    const start = end === 0 ? 0 : text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end);
    const size = Buffer.byteLength(line, 'utf8') + (kept.length > 0 ? 1 : 0);
    if (bytes + size > host.keep.tail) {
      if (kept.length === 0) kept.push(utf8Suffix(Buffer.from(line, 'utf8'), host.keep.tail));
      break;
    }
    kept.push(line);
    bytes += size;
    if (start === 0) break;
    end = start - 1;
  }
  return host.frame({ head: '', tail: kept.reverse().join('\n'), text });
}

/** How many pieces `text.split('\n')` makes, without making them. */
function splitCount(text: string): number {
  let n = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

/** The kept head, cut back to its last newline when the host does so and that is past half. */
function headOf(host: HostLimit, head: string): string {
  if (!host.keep.atNewline) return head;
  const nl = head.lastIndexOf('\n');
  return nl > head.length * 0.5 ? head.slice(0, nl) : head;
}

/** The longest prefix of at most `max` bytes that ends on a character boundary. */
function utf8Prefix(buf: Buffer, max: number): string {
  let end = Math.min(max, buf.length);
  while (end > 0 && end < buf.length && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.toString('utf8', 0, end);
}

/** The longest suffix of at most `max` bytes that starts on a character boundary. */
function utf8Suffix(buf: Buffer, max: number): string {
  let start = Math.max(0, buf.length - max);
  while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++;
  return buf.toString('utf8', start);
}

/** Upper bound on the bytes of a host's view of `bytes` bytes of text (for estimates). */
export function hostViewBytesBound(host: HostLimit, bytes: number): number {
  if (bytes <= host.inline) return bytes;
  // A char is at most 3 UTF-8 bytes in a JS string's BMP range, 4 for a surrogate pair of 2 chars.
  const perUnit = host.unit === 'chars' ? 3 : 1;
  return Math.min(bytes, (host.keep.head + host.keep.tail) * perUnit + 400);
}
