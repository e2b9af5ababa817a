/**
 * Where the code is in a tool output. Either the whole output is one file — said by --lang, by the
 * path a read tool call names (Claude Code's Read: input.file_path), or by the command that printed
 * it (`cat x.py`, `sed -n '1,200p' x.go`, `head -n 300 x.rs`, `cd d && cat x.py | head`) — or the
 * code sits in fenced blocks (```lang … ```) inside other text.
 *
 * A region is a run of lines, each split into a prefix kept as it is and the code after it: the
 * line-number prefix of a numbered read (`    12→`, `cat -n`'s `    12\t`), or a fenced block's
 * indentation. The code is parsed without prefixes, and every kept line gets its own prefix back.
 * Pure string work: cheap, and nothing here loads a parser.
 */
import type { OutputView } from '../component.js';
import { findLanguage, type LanguageSpec, languageOfPath } from './languages.js';

export interface CodeRegion {
  lang: LanguageSpec;
  /** Offsets in the output text of the region's first and last line (end excludes a final newline). */
  start: number;
  end: number;
  /** One prefix per line of the region. */
  prefixes: string[];
  /** The lines without their prefixes, joined by '\n'. */
  code: string;
  /** True when the prefixes are line numbers. */
  numbered: boolean;
  /** The region's text as it stands in the output, prefixes included. */
  source: string;
}

export type WholeFile =
  | { kind: 'file'; lang: LanguageSpec; via: string }
  | { kind: 'unknown'; word: string }
  | undefined;

/** Tools whose output is a file's content when they name a path. */
const READ_TOOLS = /^(?:read|read_?file|view|view_?file|open|open_?file|cat)$/i;
// `   12→`: the arrow escaped, so the CLI bundle stays ASCII (scripts/code-cache.mjs says why).
const NUMBERED = /^( *\d+(?:\u2192|\t))/;

/** Whether the output is one whole file, and in which language. */
export function wholeFile(o: OutputView, lang: string | undefined): WholeFile {
  if (lang !== undefined) {
    const spec = findLanguage(lang);
    return spec ? { kind: 'file', lang: spec, via: '--lang' } : { kind: 'unknown', word: lang };
  }
  if (o.path !== undefined) {
    const spec = languageOfPath(o.path);
    if (spec && (NUMBERED.test(o.text) || (o.toolName !== undefined && READ_TOOLS.test(o.toolName)))) {
      return { kind: 'file', lang: spec, via: 'path' };
    }
  }
  if (o.command !== undefined) {
    const file = fileOfCommand(o.command);
    const spec = file === undefined ? undefined : languageOfPath(file);
    if (spec) return { kind: 'file', lang: spec, via: 'command' };
  }
  return undefined;
}

/**
 * The whole output as one region. A numbered read is the run of numbered lines from the top; what
 * follows it (Claude Code appends a <system-reminder>) stays outside the region, untouched.
 */
export function wholeRegion(text: string, lang: LanguageSpec): CodeRegion {
  if (NUMBERED.test(text)) {
    const prefixes: string[] = [];
    const code: string[] = [];
    let pos = 0;
    let end = 0;
    while (pos <= text.length) {
      const nl = text.indexOf('\n', pos);
      const stop = nl === -1 ? text.length : nl;
      const line = text.slice(pos, stop);
      const m = NUMBERED.exec(line);
      if (!m) break;
      prefixes.push(m[1]!);
      code.push(line.slice(m[1]!.length));
      end = stop;
      if (nl === -1) break;
      pos = nl + 1;
    }
    return {
      lang,
      start: 0,
      end,
      prefixes,
      code: code.join('\n'),
      numbered: true,
      source: text.slice(0, end),
    };
  }
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  const prefixes = new Array<string>(lines).fill('');
  return { lang, start: 0, end: text.length, prefixes, code: text, numbered: false, source: text };
}

const FENCE_OPEN = /^([ \t]*)(`{3,}|~{3,})[ \t]*([^\s`]*)[^\n`]*$/;

/**
 * Fenced blocks whose info string names a known language, in order. Only lines holding three fence
 * characters in a row can open or close a block, so the text is searched for those and never split
 * into lines: an output of millions of short lines costs a few indexOf passes, no array per line.
 */
export function fencedRegions(text: string): { regions: CodeRegion[]; unknown: string[] } {
  const regions: CodeRegion[] = [];
  const unknown: string[] = [];
  const marks = new FenceMarks(text);
  for (let open = marks.lineWith(0, '```', '~~~'); open; ) {
    const m = FENCE_OPEN.exec(open.line);
    if (!m) {
      open = marks.lineWith(open.next, '```', '~~~');
      continue;
    }
    const [, indent = '', fence = '', tag = ''] = m;
    const close = closingLine(marks, open.next, fence);
    if (!close) break;
    const lang = tag ? findLanguage(tag) : undefined;
    if (!lang) {
      if (tag) unknown.push(tag);
    } else if (close.s > open.next) {
      const region = fencedRegion(text, open.next, close.s - 1, indent, lang);
      regions.push(region);
    }
    open = marks.lineWith(close.next, '```', '~~~');
  }
  return { regions, unknown };
}

/** The first line from `from` on that closes a block opened by `fence`: that fence character alone, as long or longer. */
function closingLine(marks: FenceMarks, from: number, fence: string): FenceLine | undefined {
  const run = fence[0]!.repeat(3);
  for (let c = marks.lineWith(from, run); c; c = marks.lineWith(c.next, run)) {
    const t = c.line.trim();
    if (t.length >= fence.length && t === fence[0]!.repeat(t.length)) return c;
  }
  return undefined;
}

/** The block between an opening line and its closing line: [s, e) holds its lines. */
function fencedRegion(text: string, s: number, e: number, indent: string, lang: LanguageSpec): CodeRegion {
  const body = text.slice(s, e).split('\n');
  // Content indented like its fence (a fence inside a list item) is parsed without that indentation.
  const strip = indent.length > 0 && body.every((l) => l.trim() === '' || l.startsWith(indent));
  const prefixes = body.map((l) => (strip && l.startsWith(indent) ? indent : ''));
  const code = body.map((l, i) => l.slice(prefixes[i]!.length)).join('\n');
  return { lang, start: s, end: e, prefixes, code, numbered: false, source: text.slice(s, e) };
}

/** A line of the text: its start, the start of the next line, and its content without "\r\n". */
interface FenceLine {
  s: number;
  next: number;
  line: string;
}

/**
 * The lines that hold a fence mark, found by indexOf. Each mark's next occurrence is remembered, so
 * a mark that is rare or absent is searched for once, not again from every line: linear in the text.
 */
class FenceMarks {
  private readonly at = new Map<string, number>();
  constructor(private readonly text: string) {}

  /** The first line starting at or after `from` that holds one of the marks. */
  lineWith(from: number, ...marks: string[]): FenceLine | undefined {
    let hit = -1;
    for (const mark of marks) {
      const i = this.next(mark, from);
      if (i !== -1 && (hit === -1 || i < hit)) hit = i;
    }
    if (hit === -1) return undefined;
    const { text } = this;
    const s = text.lastIndexOf('\n', hit - 1) + 1;
    const nl = text.indexOf('\n', hit);
    const e = nl === -1 ? text.length : nl;
    const line = text.charCodeAt(e - 1) === 0x0d && e > s ? text.slice(s, e - 1) : text.slice(s, e);
    return { s, next: nl === -1 ? text.length + 1 : nl + 1, line };
  }

  /** Where the mark next occurs at or after `from`, in a line starting at or after it. */
  private next(mark: string, from: number): number {
    let i = this.at.get(mark);
    if (i === undefined || (i !== -1 && i < from)) {
      i = this.text.indexOf(mark, from);
      this.at.set(mark, i);
    }
    return i;
  }
}

/** Commands that print a file, and their options that take a value. */
const PRINTERS: Record<string, { values: readonly string[]; script?: boolean }> = {
  cat: { values: [] },
  head: { values: ['-n', '-c', '--lines', '--bytes'] },
  tail: { values: ['-n', '-c', '--lines', '--bytes'] },
  sed: { values: ['-e', '-f', '-l'], script: true },
  bat: { values: ['-l', '--language', '-r', '--line-range', '--style', '--theme', '-H', '--highlight-line'] },
  batcat: {
    values: ['-l', '--language', '-r', '--line-range', '--style', '--theme', '-H', '--highlight-line'],
  },
  nl: { values: ['-b', '-v', '-i', '-w', '-s', '-n'] },
  less: { values: [] },
  more: { values: [] },
};

/**
 * The one file a shell command prints whole or in part, if that is all it does: the last step of a
 * `&&`/`;` chain, optionally piped through more printers (`cat x.py | head -50`).
 */
export function fileOfCommand(command: string): string | undefined {
  const steps = splitOutsideQuotes(command, /&&|\|\||;/);
  const last = steps[steps.length - 1];
  if (last === undefined) return undefined;
  const stages = splitOutsideQuotes(last, /\|/);
  let file: string | undefined;
  for (const [i, stage] of stages.entries()) {
    const files = printedFiles(stage);
    if (files === undefined) return undefined;
    if (i === 0 ? files.length !== 1 : files.length !== 0) return undefined;
    if (i === 0) file = files[0];
  }
  return file;
}

/** The file operands of one printer invocation, or undefined when it is not a printer. */
function printedFiles(stage: string): string[] | undefined {
  const words = shellWords(stage);
  while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) words.shift();
  const name = words.shift()?.replace(/^.*\//, '');
  const spec = name === undefined ? undefined : PRINTERS[name];
  if (!spec) return undefined;
  const operands: string[] = [];
  let options = true;
  let scriptSeen = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (/^\d*>/.test(w) || w === '<') {
      if (/^\d*>>?$/.test(w) || w === '<') i++;
      continue;
    }
    if (options && w === '--') {
      options = false;
      continue;
    }
    if (options && w.startsWith('-') && w.length > 1) {
      if (spec.values.includes(w)) i++;
      if (name === 'sed' && (w === '-e' || w === '-f')) scriptSeen = true;
      continue;
    }
    if (spec.script && !scriptSeen) {
      scriptSeen = true;
      continue;
    }
    operands.push(w);
  }
  return operands;
}

function splitOutsideQuotes(s: string, sep: RegExp): string[] {
  const parts: string[] = [];
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"') i++;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      continue;
    }
    if (c === '\\') {
      i++;
      continue;
    }
    const m = sep.exec(s.slice(i, i + 2));
    if (m && m.index === 0) {
      parts.push(s.slice(start, i));
      i += m[0].length - 1;
      start = i + 1;
    }
  }
  parts.push(s.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

/** Shell words with quotes removed (no expansion: a `$` word is just a word). */
function shellWords(s: string): string[] {
  const words: string[] = [];
  let word = '';
  let has = false;
  let quote: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < s.length) word += s[++i];
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      has = true;
    } else if (c === '\\' && i + 1 < s.length) {
      word += s[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has) words.push(word);
      word = '';
      has = false;
    } else {
      word += c;
      has = true;
    }
  }
  if (has) words.push(word);
  return words;
}
