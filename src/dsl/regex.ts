/**
 * RE2 regexes for filters, via re2js (linear time: a filter can never hang on a crafted output).
 * re2js is imported only by loadRe2(), which the registry awaits before a filter matches or runs,
 * so `echo hi | cg` never loads it. After that, compileRegex() is synchronous and memoised: each
 * distinct pattern is compiled once per process, however many filters share it.
 *
 * Look-around and back-references are refused with a reason a filter author can act on, found by a
 * small syntax scan before re2js sees the pattern (its own message for them is an opaque "invalid
 * escape sequence"). Every pattern is compiled with MULTILINE, so `^`/`$` are line anchors in the
 * multi-line texts (the selector, the match_output blob); `\A` and `\z` anchor the whole text.
 */
import type { RE2JS } from 're2js';
import { ConfigError } from '../errors.js';

type Re2Module = typeof import('re2js');
let mod: Re2Module | undefined;
let loading: Promise<Re2Module> | undefined;

/** Loads re2js once; every later compileRegex() is synchronous. */
export async function loadRe2(): Promise<void> {
  if (mod) return;
  loading ??= import('re2js');
  mod = await loading;
}

/** Whether loadRe2() has finished (for tests of when it is needed). */
export function re2Loaded(): boolean {
  return mod !== undefined;
}

export type Regex = RE2JS;

const cache = new Map<string, Regex>();

/** Where a pattern sits, for error messages: file and dotted path (filters.NAME.field[i]). */
export interface PatternSite {
  file: string;
  path: string;
}

/**
 * The construct in `pattern` that RE2 cannot run in linear time (look-around, back-references,
 * atomic groups), or undefined. Character classes and \Q…\E quotes are skipped, so `[(?=]` is fine.
 */
export function unsupportedConstruct(pattern: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const n = pattern[i + 1];
      if (n === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        i = end === -1 ? pattern.length : end + 1;
        continue;
      }
      if (!inClass && n !== undefined) {
        if (n >= '1' && n <= '9') return `a back-reference (\\${n})`;
        if (n === 'k' && /[<{']/.test(pattern[i + 2] ?? '')) return 'a named back-reference (\\k<…>)';
        if (n === 'g' && /[\d{<'-]/.test(pattern[i + 2] ?? '')) return 'a back-reference (\\g…)';
      }
      i++;
      continue;
    }
    if (inClass) {
      if (c === '[' && pattern[i + 1] === ':') {
        const end = pattern.indexOf(':]', i + 2);
        if (end !== -1) i = end + 1;
      } else if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      if (pattern[i + 1] === '^') i++;
      if (pattern[i + 1] === ']') i++; // a ']' first in a class is a literal
      continue;
    }
    if (c === '(' && pattern[i + 1] === '?') {
      const a = pattern[i + 2];
      const b = pattern[i + 3];
      if (a === '=') return 'a look-ahead (?=…)';
      if (a === '!') return 'a negative look-ahead (?!…)';
      if (a === '<' && b === '=') return 'a look-behind (?<=…)';
      if (a === '<' && b === '!') return 'a negative look-behind (?<!…)';
      if (a === '>') return 'an atomic group (?>…)';
    }
  }
  return undefined;
}

/**
 * Checks a pattern without re2js (look-around and back-references only): lets load-time checks
 * that need no compiled regex stay free of the import.
 */
export function checkSyntax(pattern: string, site: PatternSite): void {
  const bad = unsupportedConstruct(pattern);
  if (bad) {
    throw new ConfigError(
      site.path,
      `pattern ${JSON.stringify(pattern)} uses ${bad}, which RE2 does not support ` +
        '(filters match in linear time: no look-around, no back-references); ' +
        'use keep_lines_matching/strip_lines_matching or match_output.unless instead',
      site.file,
    );
  }
}

/**
 * A necessary condition for a regex to match, from RE2's own prefilter: a literal the text must
 * contain, or all/any of several. Compiling an RE2 regex costs milliseconds (parse, simplify,
 * program); checking a few literals with String.includes costs microseconds. The build step records
 * the prefilter of every builtin pattern, so at run time a pattern whose literals are absent from
 * the text is never compiled at all — choosing among 40 filters compiles only the plausible ones.
 */
export type Prefilter = string | { and: Prefilter[] } | { or: Prefilter[] };

const prefilters = new Map<string, Prefilter | null>();
/**
 * Prefilters recorded as their JSON text, parsed when their pattern is first tried: a hook call
 * tries the `match` patterns of every filter but the line patterns of the one chosen only, and
 * parsing all 380 builtin prefilters as objects at load cost ~1.5 ms of each call.
 */
const prefilterTexts = new Map<string, string>();

/** Records known prefilters (null: none exists, the pattern must always be tried). */
export function registerPrefilters(entries: Record<string, Prefilter | null>): void {
  for (const [pattern, p] of Object.entries(entries)) {
    prefilters.set(pattern, p);
    prefilterTexts.delete(pattern);
  }
}

/** Records known prefilters as JSON texts (`null` for none), parsed on first use. */
export function registerPrefilterTexts(entries: Record<string, string>): void {
  for (const [pattern, text] of Object.entries(entries)) {
    prefilters.delete(pattern);
    prefilterTexts.set(pattern, text);
  }
}

/** The prefilter recorded for a pattern (null: none exists), or undefined when none was recorded. */
function prefilterFor(pattern: string): Prefilter | null | undefined {
  const known = prefilters.get(pattern);
  if (known !== undefined) return known;
  const text = prefilterTexts.get(pattern);
  if (text === undefined) return undefined;
  const p = JSON.parse(text) as Prefilter | null;
  prefilters.set(pattern, p);
  prefilterTexts.delete(pattern);
  return p;
}

/** False only when the pattern cannot match anywhere in text (its prefilter fails). */
export function mayMatch(pattern: string, text: string): boolean {
  const p = prefilterFor(pattern);
  return p === undefined || p === null || passes(p, text);
}

export function passes(p: Prefilter, text: string): boolean {
  if (typeof p === 'string') return text.includes(p);
  if ('and' in p) return p.and.every((q) => passes(q, text));
  return p.or.some((q) => passes(q, text));
}

interface RawPrefilter {
  type: number;
  str: string;
  subs: RawPrefilter[];
}

/**
 * The prefilter re2js built for a compiled regex, as plain data; null when there is none. Reads
 * re2js internals (pinned version): anything unexpected yields null, which only costs speed.
 */
export function prefilterOf(re: Regex): Prefilter | null {
  const raw = (re as unknown as { re2Input?: { prefilter?: RawPrefilter | null } }).re2Input?.prefilter;
  const convert = (p: RawPrefilter | null | undefined): Prefilter | null => {
    if (!p || typeof p.type !== 'number') return null;
    if (p.type === 1) return typeof p.str === 'string' && p.str !== '' ? p.str : null;
    if (p.type !== 2 && p.type !== 3) return null;
    const subs = (p.subs ?? []).map(convert);
    if (p.type === 3)
      return subs.some((x) => x === null) || subs.length === 0 ? null : { or: subs as Prefilter[] };
    const kept = subs.filter((x): x is Prefilter => x !== null);
    return kept.length === 0 ? null : { and: kept };
  };
  return convert(raw);
}

/** The compiled regex (memoised by pattern). Needs loadRe2() first; throws ConfigError on a bad pattern. */
export function compileRegex(pattern: string, site: PatternSite): Regex {
  const hit = cache.get(pattern);
  if (hit) return hit;
  checkSyntax(pattern, site);
  if (!mod) throw new Error('internal: re2js used before loadRe2()');
  let re: Regex;
  try {
    re = mod.RE2JS.compile(pattern, mod.RE2JS.MULTILINE);
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).replace(/^error parsing regexp: /, '');
    throw new ConfigError(
      site.path,
      `pattern ${JSON.stringify(pattern)} is not a valid RE2 regex: ${why}`,
      site.file,
    );
  }
  cache.set(pattern, re);
  return re;
}
