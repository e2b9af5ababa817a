/**
 * collapse — lossy: an output over max_tokens keeps its first head_lines and last tail_lines lines;
 * the middle becomes one line `... (N lines omitted) ` + MARKER_SLOT. A kept line longer than
 * max_line_chars is cut in its middle as `<start>… (N chars omitted) …<end>`, so a few giant lines
 * (minified JSON) collapse too. Line endings (LF or CRLF) and the presence of a final newline are
 * preserved. Built for 100 MB inputs: byte bounds decide the size gate without tokenizing, and the
 * text is walked with indexOf/lastIndexOf, never split into an array.
 */
import { MARKER_SLOT, type Outcome, type OutputComponent } from '../component.js';
import { type ConfigOf, integer, section } from '../config/fields.js';

/** The settings, declared once: parser, defaults and the reference tables (scripts/docs.mjs). */
export const CONFIG = section({
  /** Outputs with at most this many tokens are left alone. */
  max_tokens: integer().or(2000).doc('outputs of at most this many tokens are left alone'),
  head_lines: integer().or(20).doc('first lines kept'),
  tail_lines: integer().or(20).doc('last lines kept'),
  /** Kept lines longer than this are cut in the middle; 0 never cuts. */
  max_line_chars: integer().or(400).doc('kept lines longer than this are cut in the middle; 0: never'),
});
export type CollapseConfig = ConfigOf<typeof CONFIG>;

export const collapse: OutputComponent<CollapseConfig> = {
  name: 'collapse',
  lossy: true,
  scope: 'output',
  summary: 'Keep the first and last lines of a long output (and cut giant lines); the rest is stashed',
  defaults: CONFIG.defaults,
  parseConfig: CONFIG.parse,

  applies(o, cfg) {
    // A UTF-16 unit is at most 3 UTF-8 bytes and a token at least 1 byte: shorter texts cannot exceed.
    return o.text.length * 3 > cfg.max_tokens;
  },

  async run(o, cfg, ctx): Promise<Outcome> {
    const text = o.text;
    if (!(await ctx.tokens.exceeds(text, cfg.max_tokens))) return { kind: 'skip', gate: 'under max_tokens' };
    const gap = findGap(text, cfg.head_lines, cfg.tail_lines);
    const out: string[] = [];
    let cut: number;
    let total: number;
    if (gap) {
      const { headEnd, gapEnd, omitted } = gap;
      cut = keepLines(text, 0, headEnd, cfg.max_line_chars, out);
      out.push(`... (${omitted} lines omitted) ${MARKER_SLOT}`);
      // The omission line takes the line ending of the last line it replaces.
      if (gapEnd < text.length) {
        out.push(gapEnd > headEnd && text.charCodeAt(gapEnd - 1) === 0x0d ? '\r\n' : '\n');
        cut += keepLines(text, gapEnd + 1, text.length, cfg.max_line_chars, out);
      } else if (text.endsWith('\n')) {
        out.push(text.endsWith('\r\n') ? '\r\n' : '\n');
      }
      total = cfg.head_lines + cfg.tail_lines + omitted;
    } else {
      cut = keepLines(text, 0, text.length, cfg.max_line_chars, out);
      if (cut === 0) return { kind: 'skip', gate: 'nothing to drop' };
      total = countLines(text, 0, text.length);
    }
    const kept = gap ? total - gap.omitted : total;
    const cutNote = cut === 0 ? '' : `, cut ${cut} long line${cut === 1 ? '' : 's'}`;
    return {
      kind: 'rewrite',
      text: out.join(''),
      loss: 'whole',
      note: `kept ${kept} of ${total} lines${cutNote}`,
    };
  },
};

/**
 * Where the omitted middle lies, or undefined when head + tail cover every line. Lines are what
 * split('\n') would give after dropping one final newline. headEnd is the start of the first
 * omitted line; gapEnd is the index of the newline ending the last omitted line, or the end of
 * the text (after any final "\n") when tail is 0.
 */
export function findGap(
  text: string,
  head: number,
  tail: number,
): { headEnd: number; gapEnd: number; omitted: number } | undefined {
  const bodyEnd = text.endsWith('\n') ? text.length - 1 : text.length;
  let headEnd = 0;
  for (let k = 0; k < head; k++) {
    const nl = text.indexOf('\n', headEnd);
    if (nl === -1 || nl >= bodyEnd) return undefined;
    headEnd = nl + 1;
  }
  let gapEnd = bodyEnd;
  for (let k = 0; k < tail; k++) {
    if (gapEnd === 0) return undefined;
    const nl = text.lastIndexOf('\n', gapEnd - 1);
    if (nl < headEnd) return undefined;
    gapEnd = nl;
  }
  if (gapEnd < headEnd) return undefined;
  return { headEnd, gapEnd: tail === 0 ? text.length : gapEnd, omitted: countLines(text, headEnd, gapEnd) };
}

/** Lines in [from, to) where `to` is a line end (newline index or end of text): newlines + 1. */
function countLines(text: string, from: number, to: number): number {
  let n = 1;
  let i = text.indexOf('\n', from);
  while (i !== -1 && i < to) {
    n++;
    i = text.indexOf('\n', i + 1);
  }
  // A final newline ends the last line rather than starting an empty one.
  if (to === text.length && text.endsWith('\n') && to > from) n--;
  return n;
}

/** Appends the lines of [from, to) to out, cutting long ones; returns how many were cut. */
function keepLines(text: string, from: number, to: number, max: number, out: string[]): number {
  let cut = 0;
  let ls = from;
  while (ls < to) {
    let nl = text.indexOf('\n', ls);
    if (nl === -1 || nl >= to) nl = to;
    const ce = nl > ls && text.charCodeAt(nl - 1) === 0x0d ? nl - 1 : nl;
    const short = cutLine(text, ls, ce, max);
    if (short === undefined) {
      out.push(text.slice(ls, Math.min(nl + 1, to)));
    } else {
      out.push(short, text.slice(ce, Math.min(nl + 1, to)));
      cut++;
    }
    ls = nl + 1;
  }
  return cut;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/**
 * The line [start, end) cut in its middle so that, label included, it is at most `max` chars
 * (when max leaves room for the label) — hence cutting a cut line again changes nothing. Never
 * splits a surrogate pair. Undefined when the line is short enough or cutting would not shorten it.
 */
export function cutLine(text: string, start: number, end: number, max: number): string | undefined {
  const len = end - start;
  if (max <= 0 || len <= max) return undefined;
  let keep = 0;
  let omitted = len - max;
  for (let k = 0; k < 3; k++) {
    keep = Math.max(0, max - label(omitted).length);
    omitted = len - keep;
  }
  let front = Math.ceil(keep / 2);
  let back = keep - front;
  if (front > 0 && isHigh(text.charCodeAt(start + front - 1))) front--;
  if (back > 0 && isLow(text.charCodeAt(end - back))) back--;
  const result = text.slice(start, start + front) + label(len - front - back) + text.slice(end - back, end);
  return result.length < len ? result : undefined;
}

function label(omitted: number): string {
  return `… (${omitted} chars omitted) …`;
}
