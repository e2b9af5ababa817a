/**
 * Comment blocks in an outline: comments on consecutive lines, each alone on its lines, are one
 * block (a run of `//` or `#` lines is one doc comment), and a block is cut down to its first line
 * of text, its closing delimiter kept on that line (`/** Summary. … *\/`, `"""Summary. … """`), or
 * dropped whole without keepDocstrings. Lines of XML doc markup (`/// <summary>`) say nothing and go
 * with the rest.
 */
import type { LineIndex } from './lines.js';
import type { Cut } from './render.js';

/** A comment (or docstring) outside every replaced body, with the lines it covers. */
export interface Note {
  start: number;
  end: number;
  first: number;
  last: number;
  docstring: boolean;
  /** A docstring that is the only statement of its block: dropping it would leave the block empty. */
  alone: boolean;
}

const TEXT = /[\p{L}\p{N}]/u;
const MARKUP = /<\/?[A-Za-z][^>]*>/g;
/** Characters of closing delimiters: `*\/`, `"""`, `'''`. */
const CLOSER = /[*/"'`]/;

/** Whether a comment line says something: a letter or digit outside XML doc tags. */
function hasText(line: string): boolean {
  return TEXT.test(line.replace(MARKUP, ''));
}

/** The note for a comment or docstring spanning [start, end): a line comment's own newline excluded. */
export function noteOf(
  lines: LineIndex,
  start: number,
  endIndex: number,
  docstring = false,
  alone = false,
): Note {
  const code = lines.text;
  let end = endIndex;
  // Some grammars end a line comment after its newline; the comment itself stops before it.
  while (end > start && (code[end - 1] === '\n' || code[end - 1] === '\r')) end--;
  return { start, end, first: lines.lineOf(start), last: lines.lineOf(end), docstring, alone };
}

/**
 * One comment block: the cuts that trim it and, for a block on lines of its own, the cut that
 * drops those lines (with what that takes out). A comment after code on its line has no drop: the
 * line would change with nothing to show it had.
 */
export interface CommentBlock {
  trims: Cut[];
  drop?: { cut: Cut; shown: string };
}

/** Every comment block of a file (notes in document order). */
export function commentBlocks(notes: readonly Note[], lines: LineIndex, keep: boolean): CommentBlock[] {
  const blocks: CommentBlock[] = [];
  for (const group of groupNotes(notes, lines)) {
    const trims = trimNote(group, lines, keep);
    const whole = startsLine(lines, group[0]!.start) && endsLine(lines, group[group.length - 1]!.end);
    if (!keep || !whole) {
      blocks.push({ trims });
      continue;
    }
    const cut = trimNote(group, lines, false)[0]!;
    blocks.push({ trims, drop: { cut, shown: applied(lines.text, cut, trims) } });
  }
  return blocks;
}

/** The text of [range.start, range.end) with cuts inside it applied. */
function applied(code: string, range: Cut, cuts: readonly Cut[]): string {
  let out = '';
  let pos = range.start;
  for (const c of cuts) {
    if (c.start < pos || c.end > range.end) continue;
    out += code.slice(pos, c.start) + c.text;
    pos = c.end;
  }
  return out + code.slice(pos, range.end);
}

/** Whether only whitespace lies between the line's start and `offset`. */
function startsLine(lines: LineIndex, offset: number): boolean {
  return lines.text.slice(lines.start(lines.lineOf(offset)), offset).trim() === '';
}

function endsLine(lines: LineIndex, offset: number): boolean {
  return lines.text.slice(offset, lines.contentEnd(lines.lineOf(offset))).trim() === '';
}

/**
 * Comments on consecutive lines, each alone on its lines, form one block (a run of `//` or `#`
 * lines is one doc comment). A docstring is always a block of its own.
 */
function groupNotes(notes: readonly Note[], lines: LineIndex): Note[][] {
  const groups: Note[][] = [];
  let current: Note[] = [];
  for (const n of notes) {
    const prev = current[current.length - 1];
    const whole = startsLine(lines, n.start) && endsLine(lines, n.end);
    if (
      prev &&
      whole &&
      !n.docstring &&
      !prev.docstring &&
      n.first === prev.last + 1 &&
      endsLine(lines, prev.end) &&
      startsLine(lines, prev.start)
    ) {
      current.push(n);
      continue;
    }
    if (current.length > 0) groups.push(current);
    current = [n];
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/**
 * Cuts that reduce a comment block to its first line of text, closing a block comment on that line
 * (`/** Summary. … *\/`, `"""Summary. … """`), or that drop the block (keep = false).
 */
export function trimNote(group: readonly Note[], lines: LineIndex, keep: boolean): Cut[] {
  const code = lines.text;
  const head = group[0]!;
  const tail = group[group.length - 1]!;
  const whole = startsLine(lines, head.start) && endsLine(lines, tail.end);
  if (!keep) {
    if (head.alone) return [{ start: head.start, end: tail.end, text: '...' }];
    if (!whole) {
      // A comment after code on its line: drop it and the spaces before it.
      let from = head.start;
      while (from > 0 && (code[from - 1] === ' ' || code[from - 1] === '\t')) from--;
      return [{ start: from, end: tail.end, text: '' }];
    }
    const from = lines.start(head.first);
    // Between two blank lines (or after the file's start), one of them goes too: the block was a
    // paragraph of its own, and two blank lines in a row would say nothing more.
    const blank = (l: number) => l < lines.count && lines.content(l).trim() === '';
    const after = tail.last + 1;
    const skip = blank(after) && (head.first === 0 || blank(head.first - 1)) && after + 1 < lines.count;
    const next = skip ? after + 1 : after;
    const to = next < lines.count ? lines.start(next) : code.length;
    return [{ start: from, end: to, text: '' }];
  }
  if (!whole) return [];
  let first = -1;
  for (let l = head.first; l <= tail.last; l++) {
    if (hasText(lines.content(l))) {
      first = l;
      break;
    }
  }
  if (first === -1) return [];
  let more = false;
  for (let l = first + 1; l <= tail.last && !more; l++) more = hasText(lines.content(l));
  const markupOnly =
    !more && first > head.first && group.find((n) => n.first <= first && first <= n.last)!.first === first;
  if (!more && !markupOnly) return [];
  // `…` says text was dropped; when only markup lines go, nothing is claimed.
  const ellipsis = more ? ' …' : '';

  const at = lines.contentEnd(first);
  const holder = group.find((n) => n.first <= first && first <= n.last)!;
  const cuts: Cut[] = [];
  // Line comments before the text line hold only markup (`/// <summary>`): they go too.
  if (holder.first === first && first > head.first) {
    cuts.push({ start: lines.start(head.first), end: lines.start(first), text: '' });
  }
  if (holder.last > first) {
    const closer = closerStart(lines, holder);
    if (closer !== undefined) {
      cuts.push({ start: at, end: closer, text: `${ellipsis} ` });
    } else {
      // A closer that is a word (Ruby's =end) keeps its own line.
      cuts.push({ start: at, end: lines.contentEnd(holder.last - 1), text: ellipsis });
    }
    if (holder.last < tail.last) {
      cuts.push({ start: lines.contentEnd(holder.last), end: lines.contentEnd(tail.last), text: '' });
    }
  } else {
    cuts.push({ start: at, end: lines.contentEnd(tail.last), text: ellipsis });
  }
  return cuts;
}

/**
 * Where a block comment's closing delimiter (`*\/`, `"""`, `'''`) starts on its last line.
 * Undefined when the closer is a word (Ruby's `=end`).
 */
function closerStart(lines: LineIndex, n: Note): number | undefined {
  const code = lines.text;
  const lineStart = Math.max(n.start, lines.start(n.last));
  let i = n.end;
  while (i > lineStart && CLOSER.test(code[i - 1]!)) i--;
  return i === n.end ? undefined : i;
}
