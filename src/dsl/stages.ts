/**
 * The 8 stages of a filter, as pure functions over a line model, in the order run() applies them:
 *   1 stripAnsi  2 replaceLines  3 matchOutput  4 filterLines (strip xor keep)  5 truncateLines
 *   6 headTail  7 maxLines  8 onEmpty
 * They take plain predicates and rewriters (compile.ts builds them from RE2 regexes), so they are
 * testable without re2js and never see a regex engine.
 *
 * Lines: the text split on "\n"; a "\r" before it belongs to the line ending, not the content, so
 * CRLF output matches `$` like LF output and keeps its endings. Every line remembers which input
 * line it is (`src`, 1-based) while its content is untouched; a changed line has src 0. That is
 * what lets classify() tell a clean tail cut (tail loss, with the line it starts at) from any other
 * change (whole loss). The output ends with a newline exactly when the input did.
 */
import type { FilterResult } from './types.js';

export interface Line {
  text: string;
  /** '\n', '\r\n', or '' (the input's last line without a newline). */
  eol: string;
  /** 1-based input line this is, unchanged; 0 for changed or synthesised lines. */
  src: number;
  /** For an omission line: how many lines it stands for. */
  omitted?: number;
}

export interface Doc {
  lines: Line[];
  /** Line ending for synthesised lines: the input's first line ending, else '\n'. */
  nl: string;
  finalNewline: boolean;
}

/** The line model of a text. An empty text has no lines; "a\n" is one line. */
export function splitLines(text: string): Doc {
  const lines: Line[] = [];
  let start = 0;
  let n = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    const end = nl === -1 ? text.length : nl;
    const cr = end > start && text.charCodeAt(end - 1) === 0x0d;
    lines.push({
      text: text.slice(start, cr ? end - 1 : end),
      eol: nl === -1 ? '' : cr ? '\r\n' : '\n',
      src: ++n,
    });
    start = end + 1;
  }
  const first = lines[0]?.eol;
  return { lines, nl: first === '\r\n' ? '\r\n' : '\n', finalNewline: text.endsWith('\n') };
}

export function joinLines(doc: Doc): string {
  const { lines } = doc;
  let out = '';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const eol = l.eol || doc.nl;
    out += l.text + (i < lines.length - 1 || doc.finalNewline ? eol : '');
  }
  return out;
}

/** Rewrites each line's content; a changed line loses its src; a rewrite with "\n" makes several lines. */
export function mapLines(doc: Doc, fn: (text: string) => string): Doc {
  let changed = false;
  const lines: Line[] = [];
  for (const l of doc.lines) {
    const text = fn(l.text);
    if (text === l.text) {
      lines.push(l);
      continue;
    }
    changed = true;
    if (!text.includes('\n')) {
      lines.push({ text, eol: l.eol, src: 0 });
      continue;
    }
    const parts = text.split('\n');
    parts.forEach((p, i) => {
      lines.push({ text: p, eol: i < parts.length - 1 ? doc.nl : l.eol, src: 0 });
    });
  }
  return changed ? { ...doc, lines } : doc;
}

// CSI (colours, cursor moves), OSC (titles, hyperlinks; ended by BEL or ST), and two-byte escapes.
const ANSI_RE =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]/g;

export function stripAnsiText(text: string): string {
  return text.includes('\x1b') || text.includes('\x9b') ? text.replace(ANSI_RE, '') : text;
}

/** Stage 1. */
export function stripAnsi(doc: Doc): Doc {
  return mapLines(doc, stripAnsiText);
}

/** Stage 2: every rule, in order, over every line (rule 2 sees rule 1's result). */
export function replaceLines(doc: Doc, rules: readonly ((line: string) => string)[]): Doc {
  if (rules.length === 0) return doc;
  return mapLines(doc, (text) => {
    let t = text;
    for (const r of rules) t = r(t);
    return t;
  });
}

export interface OutputRule {
  /** Tested against the whole text (lines joined by "\n"). */
  test: (blob: string) => boolean;
  unless?: (blob: string) => boolean;
  message: string;
}

/** Stage 3: the message of the first rule whose pattern matches the text and whose `unless` does not. */
export function matchOutput(doc: Doc, rules: readonly OutputRule[]): string | undefined {
  if (rules.length === 0) return undefined;
  const blob = doc.lines.map((l) => l.text).join('\n');
  for (const r of rules) {
    if (r.test(blob) && !r.unless?.(blob)) return r.message;
  }
  return undefined;
}

/** Stage 4: keep=false drops the lines the predicate matches; keep=true keeps only those. */
export function filterLines(doc: Doc, matches: (line: string) => boolean, keep: boolean): Doc {
  const lines = doc.lines.filter((l) => matches(l.text) === keep);
  return lines.length === doc.lines.length ? doc : { ...doc, lines };
}

/**
 * A line longer than `max` characters (code points, so no surrogate pair is split) is cut to
 * max - 3 and ends with "...": the result is exactly `max` long, so truncating again changes nothing.
 */
export function truncateLine(text: string, max: number): string {
  if (text.length <= max) return text;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) i++;
    count++;
  }
  if (count <= max) return text;
  let end = 0;
  for (let k = 0; k < max - 3; k++) {
    const c = text.charCodeAt(end);
    end += c >= 0xd800 && c <= 0xdbff && end + 1 < text.length ? 2 : 1;
  }
  return `${text.slice(0, end)}...`;
}

/** Stage 5. */
export function truncateLines(doc: Doc, max: number): Doc {
  return mapLines(doc, (t) => truncateLine(t, max));
}

export function omissionText(n: number): string {
  return `... (${n} lines omitted)`;
}

function omission(n: number, doc: Doc): Line {
  return { text: omissionText(n), eol: doc.nl, src: 0, omitted: n };
}

/** How many lines a run of lines stands for (an omission line counts what it replaced). */
function weight(lines: readonly Line[]): number {
  let n = 0;
  for (const l of lines) n += l.omitted ?? 1;
  return n;
}

/**
 * Stage 6: the first `head` and last `tail` lines, one omission line where the rest was. With only
 * head, the omission line ends the text; with only tail, it starts it. Nothing changes when the
 * kept lines would be all of them.
 */
export function headTail(doc: Doc, head: number | undefined, tail: number | undefined): Doc {
  const h = head ?? 0;
  const t = tail ?? 0;
  if (h + t === 0 || doc.lines.length <= h + t) return doc;
  const dropped = doc.lines.slice(h, doc.lines.length - t);
  const lines = [
    ...doc.lines.slice(0, h),
    omission(weight(dropped), doc),
    ...doc.lines.slice(doc.lines.length - t),
  ];
  return { ...doc, lines };
}

/**
 * Stage 7: at most `max` lines, then one omission line for the rest (merged with an omission line
 * that would end the kept part, so two never stand side by side).
 */
export function maxLines(doc: Doc, max: number): Doc {
  if (doc.lines.length <= max) return doc;
  const kept = doc.lines.slice(0, max);
  let n = weight(doc.lines.slice(max));
  const last = kept[kept.length - 1];
  if (last?.omitted !== undefined) {
    kept.pop();
    n += last.omitted;
  }
  return { ...doc, lines: [...kept, omission(n, doc)] };
}

/** Stage 8: the message, when nothing but blank lines (or nothing at all) is left. */
export function onEmpty(doc: Doc, message: string): Doc {
  if (doc.lines.some((l) => l.text.trim() !== '')) return doc;
  return { ...doc, lines: [{ text: message, eol: doc.nl, src: 0 }] };
}

/** A message that replaces the whole text (stage 3), with the input's final newline. */
export function messageDoc(doc: Doc, message: string): Doc {
  return { ...doc, lines: [{ text: message, eol: doc.nl, src: 0 }] };
}

/**
 * The loss of a run: none when the output is the input; tail when the output is input lines 1..k
 * unchanged, optionally followed by one omission line, with k ≥ 1 and lines k+1.. dropped (then the
 * omission line is made to count exactly those lines, so `cg expand KEY --lines k+1-` gives what it
 * says); whole otherwise.
 */
export function classify(input: string, inputLines: number, doc: Doc): FilterResult {
  const text = joinLines(doc);
  if (text === input) return { text, loss: 'none' };
  const { lines } = doc;
  const last = lines[lines.length - 1];
  const k = last?.omitted !== undefined ? lines.length - 1 : lines.length;
  if (k === 0 || k >= inputLines) return { text, loss: 'whole' };
  for (let i = 0; i < k; i++) if (lines[i]!.src !== i + 1) return { text, loss: 'whole' };
  if (last?.omitted !== undefined && last.omitted !== inputLines - k) {
    const fixed = { ...doc, lines: [...lines.slice(0, k), omission(inputLines - k, doc)] };
    return { text: joinLines(fixed), loss: 'tail', tailFrom: k + 1 };
  }
  return { text, loss: 'tail', tailFrom: k + 1 };
}
