/**
 * A path list rolled up into a tree (find, fd, git ls-files, tar t, ls -R, du -a, rsync -v): every
 * directory down to the depth that fits a budget, each with what lies under it, and file names
 * where room is left — never a template over path names.
 *
 *   /usr/share/doc/ (3263 files, 696 dirs)
 *     python3/ (41 files, 3 dirs): README.gz changelog.gz … +36
 *       examples/ (12), tests/ (9)
 *     gcc-12-base/ (15), bash/ (15), systemd/ (14), …
 *     … +12 more dirs
 *
 * The root is the longest directory every path shares (`./` when relative paths share none). Each
 * directory counts everything beneath it (`N files, M dirs`), so a level left out is still
 * summarised by its parent; a directory with nothing shown beneath it shares a line with its
 * siblings, as `name/ (N)` when all it holds is N files. Siblings go largest first (by size when
 * the list gives sizes, else by entries beneath), ties in the order they were listed. Directories
 * are shown in one order — every directory of depth 1, then of depth 2, …, largest first within a
 * depth — and the most of them that fit the budget (characters, line ends counted) are shown, so
 * a level is shown whole before the next one starts, and a parent showing only some of its
 * directories says `… +K more dirs`; what room is left lists file names, the same cap for every
 * shown directory, the largest that fits. A path list says nothing about a leaf that is not marked
 * a directory (tar's trailing `/`, ls -l's `d`), so one is counted a file.
 */
import { largestFitting } from './largest-fitting.js';

export interface PathEntry {
  path: string;
  /** Marked a directory by the listing itself. */
  dir: boolean;
  /** A size the listing gives (du, tar tv, ls -l), as written and as a number. */
  sizeText?: string;
  size?: number;
}

interface Node {
  name: string;
  children: Map<string, Node>;
  order: number;
  dir: boolean;
  files: number;
  dirs: number;
  weight: number;
  size?: number;
  sizeText?: string;
}

const newNode = (name: string, order: number): Node => ({
  name,
  children: new Map(),
  order,
  dir: false,
  files: 0,
  dirs: 0,
  weight: 0,
});

/** The path's segments: a leading `/` is the segment '' (the filesystem root), empty ones go. */
function segmentsOf(path: string): string[] {
  const parts = path.split('/');
  const out: string[] = [];
  parts.forEach((p, i) => {
    if (p !== '' || (i === 0 && parts.length > 1)) out.push(p);
  });
  return out;
}

function build(entries: readonly PathEntry[]): { top: Node; sized: boolean } {
  const top = newNode('', -1);
  let order = 0;
  let sized = false;
  for (const e of entries) {
    let node = top;
    for (const seg of segmentsOf(e.path)) {
      let child = node.children.get(seg);
      if (!child) {
        child = newNode(seg, order++);
        node.children.set(seg, child);
      }
      node = child;
    }
    if (node === top) continue;
    if (e.dir || e.path.endsWith('/')) node.dir = true;
    if (e.size !== undefined) {
      node.size = e.size;
      node.sizeText = e.sizeText;
      sized = true;
    }
  }
  tally(top, sized);
  return { top, sized };
}

/** Counts and weights from the leaves up (iteratively: a path list may nest deep). */
function tally(top: Node, sized: boolean): void {
  const post: Node[] = [];
  const stack = [top];
  while (stack.length > 0) {
    const n = stack.pop()!;
    post.push(n);
    for (const c of n.children.values()) stack.push(c);
  }
  for (let i = post.length - 1; i >= 0; i--) {
    const n = post[i]!;
    if (n.children.size > 0) n.dir = true;
    let files = 0;
    let dirs = 0;
    let weight = 0;
    for (const c of n.children.values()) {
      if (c.dir) {
        dirs += 1 + c.dirs;
        files += c.files;
      } else files++;
      weight += c.weight;
    }
    n.files = files;
    n.dirs = dirs;
    n.weight = sized ? Math.max(n.size ?? 0, weight) : n.dir ? files + dirs : 1;
  }
}

const bySize = (a: Node, b: Node) => b.weight - a.weight || a.order - b.order;

function sortedDirs(n: Node): Node[] {
  return [...n.children.values()].filter((c) => c.dir).sort(bySize);
}

function sortedFiles(n: Node): Node[] {
  return [...n.children.values()].filter((c) => !c.dir).sort(bySize);
}

/** The root: down the chain of directories that are their parent's only child. */
function rootOf(top: Node): { node: Node; label: string } {
  let node = top;
  const names: string[] = [];
  while (node.children.size === 1) {
    const only = [...node.children.values()][0]!;
    if (!only.dir) break;
    names.push(only.name);
    node = only;
  }
  if (names.length === 0) return { node, label: './' };
  const label = names.join('/');
  return { node, label: label === '' ? '/' : label.endsWith('/') ? label : `${label}/` };
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

function counts(n: Node): string {
  const parts: string[] = [];
  if (n.files > 0) parts.push(plural(n.files, 'file'));
  if (n.dirs > 0) parts.push(plural(n.dirs, 'dir'));
  return parts.length === 0 ? '(empty)' : `(${parts.join(', ')})`;
}

/** A name as a list item: quoted when it holds a space (as ls quotes it). */
function item(n: Node): string {
  const name = /\s/.test(n.name) ? `'${n.name}'` : n.name;
  return n.sizeText !== undefined ? `${name} (${n.sizeText})` : name;
}

/**
 * A directory's own size is shown only where the listing gives it as a total (du's: `totals`);
 * ls -l's and tar tv's size of the directory entry itself says nothing.
 */
const ownSize = (n: Node, totals: boolean) => (totals && n.sizeText !== undefined ? ` ${n.sizeText}` : '');

function dirLine(n: Node, depth: number, totals: boolean, label?: string): string {
  const size = ownSize(n, totals);
  const name = label ?? `${/\s/.test(n.name) ? `'${n.name}'` : n.name}/`;
  return `${'  '.repeat(depth)}${name}${size} ${counts(n)}`;
}

/**
 * A directory shown by name among its siblings on a shared line: `name/ (12)` when all it holds is
 * files (its parent's line says what the counts are), else with its full counts.
 */
function joinedItem(n: Node, totals: boolean): string {
  if (n.dirs > 0 || n.files === 0) return dirLine(n, 0, totals);
  return `${/\s/.test(n.name) ? `'${n.name}'` : n.name}/${ownSize(n, totals)} (${n.files})`;
}

/** The file names a directory's line lists with at most cap of them. */
function filesPart(files: readonly Node[], cap: number): string {
  if (cap <= 0 || files.length === 0) return '';
  const shown = files.slice(0, cap).map(item).join(' ');
  return `: ${shown}${files.length > cap ? ` … +${files.length - cap}` : ''}`;
}

const moreLine = (depth: number, k: number) =>
  `${'  '.repeat(depth)}… +${k} more ${k === 1 ? 'dir' : 'dirs'}`;

/** Directories shown only by name and counts share lines up to about this width. */
const JOINED_WIDTH = 160;

interface Dir {
  node: Node;
  depth: number;
  dirs: Node[];
  files: Node[];
}

/**
 * The tree's lines within maxChars (see the header); undefined for a list of fewer than two paths.
 * Directories are shown in one order — by depth, then largest first — and the most of them that fit
 * are shown (then all their ancestors are), found by bisection on the rendered length; then the
 * largest cap on file names a directory that still fits.
 */
export function renderPathTree(
  entries: readonly PathEntry[],
  maxChars: number,
  opts: { dirTotals?: boolean } = {},
): string[] | undefined {
  if (entries.length < 2) return undefined;
  const totals = opts.dirTotals === true;
  const { top } = build(entries);
  const root = rootOf(top);
  const order: Dir[] = [];
  const info = new Map<Node, Dir>();
  let level = [root.node];
  for (let depth = 0; level.length > 0; depth++) {
    const next: Node[] = [];
    const here = level.map((node) => {
      const d: Dir = { node, depth, dirs: sortedDirs(node), files: sortedFiles(node) };
      info.set(node, d);
      next.push(...d.dirs);
      return d;
    });
    here.sort((a, b) => (depth === 0 ? 0 : bySize(a.node, b.node)));
    order.push(...here);
    level = next;
  }
  const rank = new Map<Node, number>();
  order.forEach((d, i) => {
    rank.set(d.node, i);
  });
  const render = (shownDirs: number, cap: number): string[] => {
    const out: string[] = [];
    const isShown = (n: Node) => (rank.get(n) ?? Number.POSITIVE_INFINITY) < shownDirs;
    const ownLine = (d: Dir) => (cap > 0 && d.files.length > 0) || d.dirs.some(isShown);
    const walk = (d: Dir, line: string) => {
      out.push(line + filesPart(d.files, cap));
      const shown = d.dirs.filter(isShown).map((n) => info.get(n)!);
      const joined: string[] = [];
      for (const c of shown) {
        if (ownLine(c)) walk(c, dirLine(c.node, c.depth, totals));
        else joined.push(joinedItem(c.node, totals));
      }
      const indent = '  '.repeat(d.depth + 1);
      let row = '';
      for (const j of joined) {
        if (row !== '' && row.length + j.length + 2 > JOINED_WIDTH) {
          out.push(`${indent}${row},`);
          row = '';
        }
        row = row === '' ? j : `${row}, ${j}`;
      }
      if (row !== '') out.push(indent + row);
      if (shown.length > 0 && shown.length < d.dirs.length)
        out.push(moreLine(d.depth + 1, d.dirs.length - shown.length));
    };
    walk(order[0]!, dirLine(root.node, 0, totals, root.label));
    return out;
  };
  const fits = (lines: string[]) => lines.reduce((n, l) => n + l.length + 1, 0) <= maxChars;
  const shownDirs = largestFitting(1, order.length, (n) => fits(render(n, 0)));
  const most = Math.max(0, ...order.slice(0, shownDirs).map((d) => d.files.length));
  const cap = largestFitting(0, most, (c) => fits(render(shownDirs, c)));
  return render(shownDirs, cap);
}

const UNITS: Record<string, number> = { K: 1, M: 2, G: 3, T: 4, P: 5 };

/** A size as listings write it (`4096`, `1,234`, `1.5M`, `12K`), as a number; undefined if not one. */
export function parseSize(text: string): number | undefined {
  const m = /^(\d+(?:[.,]\d+)*)([KMGTP])?i?B?$/i.exec(text.trim());
  if (!m) return undefined;
  const unit = m[2] ? (UNITS[m[2].toUpperCase()] ?? 0) : 0;
  const digits = unit > 0 ? m[1]!.replace(',', '.') : m[1]!.replace(/,/g, '');
  const n = Number(digits);
  return Number.isFinite(n) ? n * 1024 ** unit : undefined;
}
