/**
 * toon — lossless: a whole-output JSON value that holds a uniform array of flat objects (a table)
 * is rewritten as TOON (https://toonformat.dev), which states the keys once per table, when that is
 * strictly fewer tokens than the compact JSON (for an input that is compact JSON already: the
 * rewrite fewer than the input, exactly the pipeline's never-worse question). The claim is the
 * pipeline's to prove (proof 'toon', src/pipeline/lossless.ts): every number's written form
 * survives a JS number round trip, parsing dropped no duplicate or reordered keys, and decoding the
 * TOON gives back a value deep-equal (key order included) to the parsed JSON; what it cannot prove
 * is reverted. @toon-format/toon is
 * imported lazily inside run().
 */
import type { Outcome, OutputComponent } from '../component.js';
import { type ConfigOf, integer, oneOf, section } from '../config/fields.js';
import { compactJson, scanJson, trimmedRange } from '../json/text.js';

export const TOON_DELIMITERS = [',', '\t', '|'] as const;
export type ToonDelimiter = (typeof TOON_DELIMITERS)[number];

const CONFIG = section({
  /** Fewest rows an array of flat objects needs to count as a table. */
  min_rows: integer({ min: 1 }).or(3),
  /** Outputs with fewer tokens than this are left alone. */
  min_tokens: integer().or(0),
  delimiter: oneOf(TOON_DELIMITERS).or(','),
});
export type ToonConfig = ConfigOf<typeof CONFIG>;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const skip = (gate: string): Outcome => ({ kind: 'skip', gate });

export const toon: OutputComponent<ToonConfig> = {
  name: 'toon',
  lossy: false,
  scope: 'output',
  summary: 'Rewrite JSON holding uniform arrays of flat objects as TOON tables, when provably lossless',
  defaults: CONFIG.defaults,
  parseConfig: CONFIG.parse,

  applies(o) {
    return /^[ \t\r\n]*[[{]/.test(o.text);
  },

  async run(o, cfg, ctx): Promise<Outcome> {
    const text = o.text;
    if (cfg.min_tokens > 0 && !(await ctx.tokens.exceeds(text, cfg.min_tokens - 1))) {
      return skip('below min_tokens');
    }
    const [start, end] = trimmedRange(text);
    const scan = start < end ? scanJson(text, start) : undefined;
    if (!scan?.ok || scan.end !== end) return skip('not json');
    const value = JSON.parse(text) as Json;
    const tables = countTables(value, cfg.min_rows);
    if (tables === 0) return skip('no uniform array');
    const { encode } = await import('@toon-format/toon');
    let encoded: string;
    try {
      encoded = encode(value, { delimiter: cfg.delimiter });
    } catch {
      // e.g. an unpaired surrogate, which TOON refuses to write
      return skip('toon cannot encode');
    }
    const rewritten = text.slice(0, start) + encoded + text.slice(end);
    // TOON must beat the JSON at its most compact. When the input is compact already, that is the
    // pipeline's own never-worse question about this very rewrite: asked the same way, its counts
    // are the ones the pipeline then finds cached (a second count of a 30 MB table cost a second).
    const smaller = scan.spaced
      ? await ctx.tokens.fewer(encoded, compactJson(text, start, end))
      : await ctx.tokens.fewer(rewritten, text);
    if (!smaller) return skip('not smaller');
    const rows = tables === 1 ? '1 table' : `${tables} tables`;
    return {
      kind: 'rewrite',
      text: rewritten,
      loss: 'none',
      proof: 'toon',
      note: `json → toon (${rows})`,
    };
  },
};

function isPrimitive(v: Json): boolean {
  return v === null || typeof v !== 'object';
}

/** A table: ≥ minRows objects, each with the same keys in the same order, all values primitive. */
function isTable(a: Json[], minRows: number): boolean {
  if (a.length < minRows || a.length === 0) return false;
  const first = a[0];
  if (first === null || typeof first !== 'object' || Array.isArray(first)) return false;
  const keys = Object.keys(first);
  if (keys.length === 0) return false;
  return a.every((row) => {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) return false;
    const k = Object.keys(row);
    return k.length === keys.length && k.every((key, i) => key === keys[i] && isPrimitive(row[key] as Json));
  });
}

/** How many arrays in the value are tables (depth-first, iterative). */
function countTables(root: Json, minRows: number): number {
  let n = 0;
  const todo: Json[] = [root];
  while (todo.length > 0) {
    const v = todo.pop() as Json;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      if (isTable(v, minRows)) n++;
      else for (const x of v) todo.push(x);
    } else {
      for (const x of Object.values(v)) todo.push(x);
    }
  }
  return n;
}
