/**
 * A stronger prefilter for a pattern (regex.ts Prefilter: a literal, or all/any of several, that
 * every text the pattern matches must contain), computed at build time from the pattern's RE2 syntax
 * tree the way RE2's C++ prefilter does it, with exact sets: a node that can match only a few short
 * strings (a literal, a small character class such as `\s`, an optional literal, an alternation of
 * literals) is known as that set, and a concatenation multiplies the sets out, so `stat\s` asks for
 * "stat " or "stat\t"… rather than "stat" (which `status=200` contains), and `-{70}` for seventy
 * dashes rather than one. re2js's own prefilter keeps only whole literals; choosing a filter compiled
 * every pattern whose literals a selector happened to hold (≈ 30 ms for the first, on every hook call
 * whose output no filter is for).
 *
 * Sound by construction: zero-width assertions (^ $ \A \z \b) consume nothing, so the strings either
 * side of them stay adjacent in any match; a node that may match text of no known shape asks for
 * nothing; case-folded literals and classes, and look-behinds, ask for nothing. Tested against RE2
 * itself on every builtin filter's inline tests and on random texts (test/unit/dsl/exact-prefilter.test.ts).
 *
 * It reads re2js's parser, which the package does not export: the build evaluates the pinned
 * package's own file with its internal classes added to the exports. Should anything differ from
 * what is expected here, the answer is undefined and the build keeps re2js's prefilter alone.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { Prefilter } from './regex.js';

/** What an exact set may hold before it is given up for the strings it requires. */
const MAX_SET = 16;
/** The longest string an exact set keeps growing: longer ones are required as they stand. */
const MAX_LENGTH = 64;
/** Character classes of up to this many characters become exact sets (`\s` is 6). */
const MAX_CLASS = 8;

interface Node {
  op: number;
  flags: number;
  subs: Node[];
  runes: Int32Array | number[];
  min: number;
  max: number;
}

interface Internals {
  parse(pattern: string): Node;
  op: Record<string, number>;
  foldCase: number;
}

let internals: Internals | null | undefined;

/** re2js's Parser and Simplify, from the package's own CommonJS file; null when they are not there. */
function loadInternals(): Internals | null {
  if (internals !== undefined) return internals;
  internals = null;
  try {
    const req = createRequire(import.meta.url);
    const file = req.resolve('re2js');
    const mod: { exports: Record<string, unknown> } = { exports: {} };
    const source = `${readFileSync(file, 'utf8')}
;module.exports.__cgInternals = { Parser, Simplify, Regexp, RE2Flags };`;
    new Function('exports', 'require', 'module', '__filename', '__dirname', source)(
      mod.exports,
      createRequire(file),
      mod,
      file,
      dirname(file),
    );
    const x = mod.exports.__cgInternals as {
      Parser: { parse(p: string, flags: number): Node };
      Simplify: { simplify(n: Node): Node };
      Regexp: { Op: Record<string, number> };
      RE2Flags: { PERL: number; FOLD_CASE: number };
    };
    if (typeof x?.Parser?.parse !== 'function' || typeof x.Simplify?.simplify !== 'function') return null;
    // What RE2JS.compile(pattern, RE2JS.MULTILINE) parses (src/dsl/regex.ts compileRegex).
    internals = {
      parse: (p) => x.Simplify.simplify(x.Parser.parse(`(?m)${p}`, x.RE2Flags.PERL)),
      op: x.Regexp.Op,
      foldCase: x.RE2Flags.FOLD_CASE,
    };
  } catch {
    internals = null;
  }
  return internals;
}

/** What is known of a node's matches: exactly one of a set of strings, or a text that contains `needs` (null: nothing). */
type Info = { exact: Set<string> } | { needs: Prefilter | null };

const EMPTY: Info = { exact: new Set(['']) };
const NOTHING: Info = { needs: null };

/** Whether a code point can be looked for with String.includes as RE2 would match it. */
function searchable(r: number): boolean {
  return r >= 0 && r <= 0x10ffff && r !== 0xfffd && (r < 0xd800 || r > 0xdfff);
}

/** The requirement an exact set makes: one of its strings (nothing, if one is empty). */
function needsOf(info: Info): Prefilter | null {
  if ('needs' in info) return info.needs;
  const strings = [...info.exact];
  if (strings.includes('')) return null;
  return strings.length === 1 ? strings[0]! : { or: strings };
}

function and(parts: (Prefilter | null)[]): Prefilter | null {
  const kept = parts.filter((p): p is Prefilter => p !== null);
  return kept.length === 0 ? null : kept.length === 1 ? kept[0]! : { and: kept };
}

/** a × b, or undefined when the product would be too large. */
function cross(a: Set<string>, b: Set<string>): Set<string> | undefined {
  if (a.size * b.size > MAX_SET) return undefined;
  const out = new Set<string>();
  for (const x of a) for (const y of b) out.add(x + y);
  for (const s of out) if (s.length > MAX_LENGTH) return undefined;
  return out;
}

function analyse(n: Node, x: Internals): Info {
  const Op = x.op;
  const folded = (n.flags & x.foldCase) !== 0;
  switch (n.op) {
    case Op.EMPTY_MATCH:
    case Op.BEGIN_LINE:
    case Op.END_LINE:
    case Op.BEGIN_TEXT:
    case Op.END_TEXT:
    case Op.WORD_BOUNDARY:
    case Op.NO_WORD_BOUNDARY:
      return EMPTY;
    case Op.LITERAL: {
      if (folded || n.runes.length === 0) return NOTHING;
      let s = '';
      for (const r of n.runes) {
        if (!searchable(r)) return NOTHING;
        s += String.fromCodePoint(r);
      }
      return s.length > MAX_LENGTH ? { needs: s } : { exact: new Set([s]) };
    }
    case Op.CHAR_CLASS: {
      if (folded) return NOTHING;
      const set = new Set<string>();
      for (let i = 0; i + 1 < n.runes.length; i += 2) {
        const lo = n.runes[i]!;
        const hi = n.runes[i + 1]!;
        if (hi - lo + 1 + set.size > MAX_CLASS) return NOTHING;
        for (let r = lo; r <= hi; r++) {
          if (!searchable(r)) return NOTHING;
          set.add(String.fromCodePoint(r));
        }
      }
      return set.size === 0 ? NOTHING : { exact: set };
    }
    case Op.CAPTURE:
      return n.subs.length === 1 ? analyse(n.subs[0]!, x) : NOTHING;
    case Op.QUEST: {
      const sub = n.subs.length === 1 ? analyse(n.subs[0]!, x) : NOTHING;
      if ('exact' in sub && sub.exact.size < MAX_SET) return { exact: new Set(['', ...sub.exact]) };
      return NOTHING;
    }
    case Op.PLUS:
      // At least one copy: whatever one copy needs.
      return n.subs.length === 1 ? { needs: needsOf(analyse(n.subs[0]!, x)) } : NOTHING;
    case Op.REPEAT: {
      if (n.subs.length !== 1 || n.min < 1) return NOTHING;
      const sub = analyse(n.subs[0]!, x);
      if (!('exact' in sub)) return sub;
      // min copies in a row (a prefix of every match): their product, as far as it stays small;
      // exactly that when every copy fitted and there are never more.
      let run = sub.exact;
      let copies = 1;
      for (; copies < n.min; copies++) {
        const next = cross(run, sub.exact);
        if (!next) break;
        run = next;
      }
      return copies === n.min && n.min === n.max ? { exact: run } : { needs: needsOf({ exact: run }) };
    }
    case Op.CONCAT: {
      const needs: (Prefilter | null)[] = [];
      let run: Set<string> = new Set(['']);
      let exact = true;
      for (const s of n.subs) {
        const sub = analyse(s, x);
        if ('exact' in sub) {
          const next = cross(run, sub.exact);
          if (next) {
            run = next;
            continue;
          }
          needs.push(needsOf({ exact: run }));
          run = sub.exact;
          exact = false;
          continue;
        }
        needs.push(needsOf({ exact: run }), sub.needs);
        run = new Set(['']);
        exact = false;
      }
      if (exact) return { exact: run };
      needs.push(needsOf({ exact: run }));
      return { needs: and(needs) };
    }
    case Op.ALTERNATE: {
      const subs = n.subs.map((s) => analyse(s, x));
      if (subs.every((s) => 'exact' in s)) {
        const union = new Set<string>();
        for (const s of subs) for (const v of (s as { exact: Set<string> }).exact) union.add(v);
        if (union.size <= MAX_SET) return { exact: union };
      }
      const any: Prefilter[] = [];
      for (const s of subs) {
        const p = needsOf(s);
        if (p === null) return NOTHING;
        any.push(p);
      }
      return { needs: any.length === 1 ? any[0]! : { or: any } };
    }
    default:
      // Any character, a repetition that may be empty, a look-behind, no match: no known text.
      return NOTHING;
  }
}

/**
 * The prefilter of `pattern` from its exact sets (null: it needs nothing), or undefined when
 * re2js's parser is out of reach or refuses the pattern.
 */
export function exactPrefilter(pattern: string): Prefilter | null | undefined {
  const x = loadInternals();
  if (!x) return undefined;
  try {
    return needsOf(analyse(x.parse(pattern), x));
  } catch {
    return undefined;
  }
}
