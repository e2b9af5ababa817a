/**
 * What can be cut in one parsed file, as a plan: candidates, each a range with the placeholder that
 * would replace it, and the cuts that bring every comment block and docstring outside the chosen
 * ranges down to its first line of text (src/code/comments.ts). Candidates come in kinds, from the
 * least to the most telling part of a file's shape:
 *
 * - `body`: the outermost function, method, constructor and lambda bodies;
 * - `value`: data literals (object, array, dictionary, initializer lists) outside every body that
 *   hold no function or class, so no name the outline promises goes with them;
 * - `imports`: the name lists of imports (`import { … } from 'x'` keeps where they come from);
 * - `parameters`: parameter lists (`f( … )` keeps the name and the return type), except one that
 *   declares members (TypeScript `private x`, PHP promoted properties), and type-parameter lists
 *   (`< … >`, C++ `template < … >`).
 *
 * Which candidates go is decided by the caller (src/code/skeletonize.ts) from token counts;
 * everything else — declarations, member names and fields, signatures' names and types, decorators,
 * attributes — is never cut, so what remains is the file's shape.
 *
 * Only outermost bodies and values are candidates: what lies inside a replaced one is gone anyway,
 * and one that is kept is kept verbatim with whatever it contains.
 */
import type { Node, Tree } from 'web-tree-sitter';
import { commentBlocks, type Note, noteOf, trimNote } from './comments.js';
import type { LanguageSpec } from './languages.js';
import type { LineIndex } from './lines.js';
import type { Cut } from './render.js';

export type CandidateKind = 'body' | 'value' | 'imports' | 'comment' | 'parameters';

/** A range that may be replaced, with the cuts that replace it. */
export interface Candidate {
  kind: CandidateKind;
  /** The replaced range and its placeholder. */
  cut: Cut;
  /**
   * What choosing the candidate takes out of the outline: the range's original text (what
   * min_tokens is measured on), or for a comment block the line its trimming left.
   */
  text: string;
  /** Cuts of the function's docstring (inside the body), applied with the body. */
  extra: Cut[];
}

/** What can be cut in one file: candidates, and comment trims that always apply. */
export interface Plan {
  candidates: Candidate[];
  comments: Cut[];
}

const EXPRESSION_LEAD = /^(?:=>|=|->)\s*/;
const CLOSING: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };

/** `[/*…*\/]` for `[1, 2, 3]`: a delimited range keeps its delimiters; anything else is elided whole. */
function delimited(text: string, elision: string): string {
  const close = CLOSING[text[0] ?? ''];
  return close !== undefined && text.endsWith(close) ? `${text[0]}${elision}${close}` : elision;
}

/**
 * Walks the tree once. Bodies are the outermost function bodies (nothing inside one is visited);
 * a candidate no longer than its placeholder is not one.
 */
export function plan(tree: Tree, lines: LineIndex, spec: LanguageSpec, keepDocstrings: boolean): Plan {
  const code = lines.text;
  const functions = new Set(spec.functions);
  const bodyTypes = new Set(spec.bodies);
  const valueTypes = new Set(spec.values ?? []);
  const importTypes = new Set(spec.imports ?? []);
  const genericTypes = new Set(spec.generics ?? []);
  const notes: Note[] = [];
  const candidates: Candidate[] = [];

  const note = (node: Node, docstring = false, alone = false): Note =>
    noteOf(lines, node.startIndex, node.endIndex, docstring, alone);

  const add = (kind: CandidateKind, cut: Cut, extra: Cut[] = []) => {
    const text = code.slice(cut.start, cut.end);
    if (text.length > cut.text.length) candidates.push({ kind, cut, text, extra });
  };
  const addDelimited = (kind: CandidateKind, start: number, end: number) => {
    add(kind, { start, end, text: delimited(code.slice(start, end), spec.elision ?? '/*…*/') });
  };

  const addBody = (span: Span) => {
    if (spec.placeholder !== '{ … }') {
      const doc = spec.docstrings && span.node ? docstringOf(span.node) : undefined;
      if (doc && keepDocstrings) {
        const next = doc.nextNamedSibling;
        if (!next) return;
        const extra = trimNote([note(doc, true)], lines, true);
        add('body', { start: next.startIndex, end: span.end, text: spec.placeholder }, extra);
      } else {
        add('body', { start: span.start, end: span.end, text: spec.placeholder });
      }
      return;
    }
    // An expression body keeps its `=` or `=>` (`fun f() = { … }`): a bare `…` there does not
    // parse in Kotlin or Scala, and the next declaration would be read as part of it.
    const lead = code.startsWith('{', span.start)
      ? 0
      : (EXPRESSION_LEAD.exec(code.slice(span.start, span.end))?.[0].length ?? 0);
    add('body', { start: span.start + lead, end: span.end, text: '{ … }' });
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
    if (valueTypes.has(type) && !holdsDefinition(node, functions)) {
      addDelimited('value', node.startIndex, node.endIndex);
      continue;
    }
    if (importTypes.has(type)) {
      addDelimited('imports', node.startIndex, node.endIndex);
      continue;
    }
    if (genericTypes.has(type)) {
      addDelimited('parameters', node.startIndex, node.endIndex);
      continue;
    }
    const children = node.namedChildren.filter((c): c is Node => c !== null);
    if (functions.has(type)) {
      const span = bodyOf(node, bodyTypes);
      // A signature the parser could not read (a macro before a class, say) may have taken a
      // class body for a function body: such a node is walked like any other, never cut.
      if (span && !signatureHasError(node, span)) {
        addBody(span);
        const params = parametersOf(node, span, spec);
        if (params && !declaresMembers(params, spec)) addDelimited('parameters', params.start, params.end);
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
  for (const block of commentBlocks(notes, lines, keepDocstrings)) {
    comments.push(...block.trims);
    // The only cut that can take a file's first line away: that line (a module docstring, a
    // header comment) says what the file is, and an outline never drops it (issue 30).
    const first = block.drop !== undefined && lines.lineOf(block.drop.cut.start) === 0;
    if (block.drop && !first && block.drop.shown.trim() !== '')
      candidates.push({ kind: 'comment', cut: block.drop.cut, text: block.drop.shown, extra: [] });
  }
  return { candidates, comments };
}

/**
 * The cuts for a choice of candidates, sorted and disjoint: a chosen cut overlapping one before it
 * is dropped, and a comment trim overlapping a chosen cut gives way to it (the body or the drop of
 * the block it is in).
 */
export function cutsOf(p: Plan, chosen: readonly Candidate[]): Cut[] {
  const picked = disjoint(chosen.flatMap((b) => [b.cut, ...b.extra]));
  const trims: Cut[] = [];
  let j = 0;
  for (const c of p.comments) {
    while (j < picked.length && picked[j]!.end <= c.start) j++;
    const next = picked[j];
    if (next === undefined || c.end <= next.start) trims.push(c);
  }
  return disjoint([...picked, ...trims]);
}

function disjoint(cuts: Cut[]): Cut[] {
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

/** Whether a function or class is defined anywhere inside the node (its names must stay). */
function holdsDefinition(node: Node, functions: ReadonlySet<string>): boolean {
  const stack: Node[] = [node];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n !== node && (functions.has(n.type) || n.type.includes('class'))) return true;
    for (const c of n.namedChildren) if (c) stack.push(c);
  }
  return false;
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

/**
 * A function's parameter list, outside its body: the nearest `parameters` field (C nests it in
 * the declarator), else a child of one of the language's parameter-list types, else the span of
 * the function's own `(` and `)` children.
 */
function parametersOf(fn: Node, body: Span, spec: LanguageSpec): Span | undefined {
  const outside = (n: Node) => n.endIndex <= body.start || n.startIndex >= body.end;
  const queue: Node[] = [fn];
  for (let i = 0; i < queue.length && i < 16; i++) {
    const n = queue[i]!;
    const field = n.childForFieldName('parameters');
    if (field && outside(field)) return { start: field.startIndex, end: field.endIndex, node: field };
    for (const c of n.namedChildren) if (c && outside(c)) queue.push(c);
  }
  const types = new Set(spec.parameters ?? []);
  let open: Node | undefined;
  for (const c of fn.children) {
    if (!c || !outside(c)) continue;
    if (types.has(c.type)) return { start: c.startIndex, end: c.endIndex, node: c };
    if (c.type === '(' && !open) open = c;
    else if (c.type === ')' && open) return { start: open.startIndex, end: c.endIndex };
  }
  return undefined;
}

/** Whether a parameter of the list declares a member (`constructor(private x: X)`). */
function declaresMembers(params: Span, spec: LanguageSpec): boolean {
  const marks = spec.memberParameters;
  if (!marks || !params.node) return false;
  for (const p of params.node.namedChildren) {
    if (!p) continue;
    if (marks.includes(p.type)) return true;
    for (const c of p.children) if (c && marks.includes(c.type)) return true;
  }
  return false;
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
