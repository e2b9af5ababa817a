/**
 * What can be cut in one parsed file, as a plan: the outermost function, method, constructor and
 * lambda bodies (each with the placeholder that would replace it), and the cuts that bring every
 * comment block and docstring outside those bodies down to its first line of text (or drop it,
 * without keepDocstrings). Which bodies go is decided by the caller (src/code/skeletonize.ts) from
 * token counts; everything else — imports, declarations, member signatures, decorators, attributes,
 * fields — is never cut, so what remains is the file's shape.
 *
 * Only outermost bodies are candidates: what lies inside a replaced body is gone anyway, and a body
 * that is kept is kept verbatim with whatever it contains.
 */
import type { Node, Tree } from 'web-tree-sitter';
import type { LanguageSpec } from './languages.js';
import type { LineIndex } from './lines.js';
import type { Cut } from './render.js';

/** A body that may be replaced, with the cuts that replace it. */
export interface BodyCut {
  /** The replaced range and its placeholder. */
  cut: Cut;
  /** The body's original text (what min_tokens is measured on). */
  text: string;
  /** Cuts of the function's docstring (inside the body), applied with the body. */
  extra: Cut[];
}

/** What can be cut in one file: candidate bodies, and comment trims that always apply. */
export interface Plan {
  bodies: BodyCut[];
  comments: Cut[];
}

/** A comment (or docstring) outside every replaced body, with the lines it covers. */
interface Note {
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

/** Whether a comment line says something: a letter or digit outside XML doc tags. */
function hasText(line: string): boolean {
  return TEXT.test(line.replace(MARKUP, ''));
}
const EXPRESSION_LEAD = /^(?:=>|=|->)\s*/;
/** Characters of closing delimiters: `*\/`, `"""`, `'''`. */
const CLOSER = /[*/"'`]/;

/**
 * Walks the tree once. Bodies are the outermost function bodies (nothing inside one is visited);
 * a body no longer than its placeholder is not a candidate.
 */
export function plan(tree: Tree, lines: LineIndex, spec: LanguageSpec, keepDocstrings: boolean): Plan {
  const code = lines.text;
  const functions = new Set(spec.functions);
  const bodyTypes = new Set(spec.bodies);
  const notes: Note[] = [];
  const bodies: BodyCut[] = [];

  const note = (node: Node, docstring = false, alone = false): Note => {
    let end = node.endIndex;
    // Some grammars end a line comment after its newline; the comment itself stops before it.
    while (end > node.startIndex && (code[end - 1] === '\n' || code[end - 1] === '\r')) end--;
    const start = node.startIndex;
    return { start, end, first: lines.lineOf(start), last: lines.lineOf(end), docstring, alone };
  };

  const bodyCut = (span: Span): BodyCut | undefined => {
    let cut: Cut;
    let extra: Cut[] = [];
    if (spec.placeholder !== '{ … }') {
      const doc = spec.docstrings && span.node ? docstringOf(span.node) : undefined;
      if (doc && keepDocstrings) {
        const next = doc.nextNamedSibling;
        if (!next) return undefined;
        cut = { start: next.startIndex, end: span.end, text: spec.placeholder };
        extra = trimNote([note(doc, true)], lines, true);
      } else {
        cut = { start: span.start, end: span.end, text: spec.placeholder };
      }
    } else {
      // An expression body keeps its `=` or `=>` (`fun f() = { … }`): a bare `…` there does not
      // parse in Kotlin or Scala, and the next declaration would be read as part of it.
      const lead = code.startsWith('{', span.start)
        ? 0
        : (EXPRESSION_LEAD.exec(code.slice(span.start, span.end))?.[0].length ?? 0);
      cut = { start: span.start + lead, end: span.end, text: '{ … }' };
    }
    const text = code.slice(cut.start, cut.end);
    return text.length > cut.text.length ? { cut, text, extra } : undefined;
  };

  // Depth-first, in document order, with an explicit stack: generated code can nest deeper than
  // the call stack allows.
  const stack: Node[] = [tree.rootNode];
  const push = (children: readonly Node[]) => {
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  };
  while (stack.length > 0) {
    const node = stack.pop()!;
    const type = node.type;
    if (type.includes('comment')) {
      notes.push(note(node));
      continue;
    }
    const children = node.namedChildren.filter((c): c is Node => c !== null);
    if (functions.has(type)) {
      const span = bodyOf(node, bodyTypes);
      // A signature the parser could not read (a macro before a class, say) may have taken a
      // class body for a function body: such a node is walked like any other, never cut.
      if (span && !signatureHasError(node, span)) {
        const body = bodyCut(span);
        if (body) bodies.push(body);
        push(children.filter((c) => c.endIndex <= span.start || c.startIndex >= span.end));
        continue;
      }
    }
    if (
      spec.docstrings &&
      (type === 'module' || (type === 'block' && node.parent?.type === 'class_definition'))
    ) {
      const doc = docstringOf(node);
      if (doc) {
        notes.push(note(doc, true, node.namedChildCount === 1));
        push(children.filter((c) => !sameNode(c, doc)));
        continue;
      }
    }
    push(children);
  }

  const comments: Cut[] = [];
  for (const group of groupNotes(notes, lines)) comments.push(...trimNote(group, lines, keepDocstrings));
  return { bodies, comments };
}

/** The cuts for a choice of bodies, sorted; a cut overlapping the one before it is dropped. */
export function cutsOf(p: Plan, chosen: readonly BodyCut[]): Cut[] {
  const cuts: Cut[] = [...p.comments];
  for (const b of chosen) cuts.push(b.cut, ...b.extra);
  cuts.sort((a, b) => a.start - b.start || a.end - b.end);
  const clean: Cut[] = [];
  let reach = 0;
  for (const cut of cuts) {
    if (cut.start < reach) continue;
    clean.push(cut);
    reach = Math.max(reach, cut.end);
  }
  return clean;
}

interface Span {
  start: number;
  end: number;
  /** The body node, when the body is one node. */
  node?: Node;
}

function signatureHasError(fn: Node, body: Span): boolean {
  if (!fn.hasError) return false;
  return fn.children.some(
    (c) => c && (c.endIndex <= body.start || c.startIndex >= body.end) && (c.isError || c.hasError),
  );
}

function sameNode(a: Node, b: Node | undefined): boolean {
  return b !== undefined && a.startIndex === b.startIndex && a.endIndex === b.endIndex && a.type === b.type;
}

/** A function's body: its `body` field, a child of a body type, or its own `{ … }` span. */
function bodyOf(fn: Node, bodyTypes: ReadonlySet<string>): Span | undefined {
  const field = fn.childForFieldName('body');
  if (field) {
    return bodyTypes.has('*') || bodyTypes.has(field.type)
      ? { start: field.startIndex, end: field.endIndex, node: field }
      : undefined;
  }
  for (const child of fn.namedChildren) {
    if (child && bodyTypes.has(child.type))
      return { start: child.startIndex, end: child.endIndex, node: child };
  }
  if (bodyTypes.has(fn.type)) return { start: fn.startIndex, end: fn.endIndex, node: fn };
  const last = fn.lastChild;
  if (last?.type !== '}') return undefined;
  for (const child of fn.children) {
    if (child?.type === '{') return { start: child.startIndex, end: last.endIndex };
  }
  return undefined;
}

/** The leading string statement of a block or module (a Python docstring), if it has one. */
function docstringOf(block: Node): Node | undefined {
  for (const child of block.namedChildren) {
    if (!child || child.type.includes('comment')) continue;
    if (child.type !== 'expression_statement' || child.namedChildCount !== 1) return undefined;
    const inner = child.namedChild(0);
    return inner?.type === 'string' ? child : undefined;
  }
  return undefined;
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
function trimNote(group: readonly Note[], lines: LineIndex, keep: boolean): Cut[] {
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
    const to = tail.last + 1 < lines.count ? lines.start(tail.last + 1) : code.length;
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
