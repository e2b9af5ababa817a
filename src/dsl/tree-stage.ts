/**
 * The path_tree stage: the lines of a path listing become one tree (src/text/path-tree.ts) written
 * where the first of them was; every other line (an error, rsync's totals) stays where it is. A
 * line is an entry when `entry` matches it; `path` (a replacement, default `$1`) gives its path,
 * `size` its size, and a line `dir` matches is a directory. With `header` (ls -R), a line it
 * matches names the directory (`path` applied to it) that the entries after it are in, and blank
 * lines between sections belong to the listing; `.` and `..` entries there are dropped. The tree
 * replaces the entries only when it is shorter than they are, so a short listing stays as it was.
 * Like the other stages it takes plain matchers (compile.ts builds them from RE2 regexes).
 */

import { type PathEntry, parseSize, renderPathTree } from '../text/path-tree.js';
import type { LineMatcher, LineRewriter } from './block-stages.js';
import type { Doc, Line } from './stages.js';

export interface TreeRule {
  entry: LineRewriter;
  path: string;
  size?: string;
  dir?: LineMatcher;
  header?: LineRewriter;
  /** A directory's size is the total beneath it (du), shown on its line. */
  totals?: boolean;
  maxChars: number;
  /** Names the rule (its patterns), so lines read once are not read again by the same rule. */
  key?: string;
}

/** What the stage read of a listing's lines. */
interface Listing {
  entries: PathEntry[];
  consumed: Uint8Array;
  first: number;
  chars: number;
}

/** Listings read, by the lines they were read from: a second run under a smaller budget reads none again. */
const read = new WeakMap<readonly Line[], Map<string, Listing>>();

function readListing(doc: Doc, rule: TreeRule): Listing {
  const byRule = read.get(doc.lines) ?? new Map<string, Listing>();
  read.set(doc.lines, byRule);
  const known = rule.key !== undefined ? byRule.get(rule.key) : undefined;
  if (known) return known;
  const listing: Listing = { entries: [], consumed: new Uint8Array(doc.lines.length), first: -1, chars: 0 };
  let section: string | undefined;
  for (let i = 0; i < doc.lines.length; i++) {
    const text = doc.lines[i]!.text;
    const entry = entryOf(text, rule, section);
    if (entry === undefined) continue;
    listing.consumed[i] = 1;
    if (listing.first === -1) listing.first = i;
    listing.chars += text.length + 1;
    if (entry === 'blank' || entry === 'skip') continue;
    if (entry.section) section = entry.path;
    listing.entries.push(entry.entry);
  }
  if (rule.key !== undefined) byRule.set(rule.key, listing);
  return listing;
}

export function pathTree(doc: Doc, rule: TreeRule): Doc {
  const { entries, consumed, first, chars } = readListing(doc, rule);
  const tree = renderPathTree(entries, rule.maxChars, { dirTotals: rule.totals === true });
  if (!tree || first === -1) return doc;
  const treeChars = tree.reduce((n, t) => n + t.length + 1, 0);
  if (treeChars >= chars) return doc;
  const out: Line[] = [];
  doc.lines.forEach((l, i) => {
    if (i === first) for (const t of tree) out.push({ text: t, eol: doc.nl, src: 0 });
    if (!consumed[i]) out.push(l);
  });
  return { ...doc, lines: out };
}

type Taken = 'blank' | 'skip' | { entry: PathEntry; section: boolean; path: string };

/** What a line is to the listing: not part of it (undefined), a blank or `.` line it absorbs, or an entry. */
function entryOf(text: string, rule: TreeRule, section: string | undefined): Taken | undefined {
  if (rule.header) {
    if (text.trim() === '') return section === undefined ? undefined : 'blank';
    if (rule.header.test(text)) {
      const path = rule.header.expand(text, '$1');
      return { entry: { path, dir: true }, section: true, path };
    }
  }
  // One regex pass a line where the path is the first capture (find, fd): re2js runs at about a
  // microsecond a line, and a path list may have a million.
  const simple = rule.path === '$1' && rule.size === undefined;
  const name = simple
    ? rule.entry.capture(text)
    : rule.entry.test(text)
      ? rule.entry.expand(text, rule.path)
      : undefined;
  if (name === undefined || name === '') return undefined;
  if (section !== undefined && (name === '.' || name === '..')) return 'skip';
  const path = section !== undefined && !name.startsWith('/') ? `${section}/${name}` : name;
  const entry: PathEntry = { path, dir: rule.dir?.test(text) ?? false };
  if (rule.size !== undefined) {
    const sizeText = rule.entry.expand(text, rule.size);
    const size = parseSize(sizeText);
    if (size !== undefined) {
      entry.size = size;
      entry.sizeText = sizeText;
    }
  }
  return { entry, section: false, path };
}
