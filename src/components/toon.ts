/**
 * toon — lossless: a whole-output JSON value that holds a uniform array of flat objects (a table)
 * is rewritten as TOON (https://toonformat.dev), which states the keys once per table, when that is
 * strictly fewer tokens than the compact JSON (for an input that is compact JSON already: the
 * rewrite fewer than the input, exactly the pipeline's never-worse question). The claim is the
 * pipeline's to prove (proof 'toon', src/pipeline/lossless.ts and src/toon/prove.ts): every
 * number's written form survives a JS number round trip, parsing dropped no duplicate or reordered
 * keys, and decoding the TOON gives back a value deep-equal (key order included) to the parsed
 * JSON; what it cannot prove is reverted.
 *
 * Memory stays a small multiple of the output: a document that is one table (an array of rows,
 * however large) is read, encoded and proven a chunk of rows at a time (src/toon/encode-table.ts),
 * with the same bytes as encoding it whole. Any other document goes through JSON.parse and the
 * library whole, which costs several times its size, so only up to WHOLE_MAX_CHARS (4 MB,
 * src/toon/limits.ts); a larger one is skipped, gate 'too large for a whole-document toon' (shown
 * by --verbose). @toon-format/toon is imported lazily inside run().
 */
import type { Outcome, OutputComponent } from '../component.js';
import { type ConfigOf, integer, oneOf, section } from '../config/fields.js';
import { OPEN_BRACKET } from '../json/lexical.js';
import { compactJson, compactJsonParts, scanJson, trimmedRange } from '../json/text.js';
import type { Tokens } from '../tokens.js';
import { WHOLE_MAX_CHARS } from '../toon/limits.js';
import { countTables, type Json } from '../toon/table-shape.js';

export const TOON_DELIMITERS = [',', '\t', '|'] as const;
export type ToonDelimiter = (typeof TOON_DELIMITERS)[number];

/** The settings, declared once: parser, defaults and the reference tables (scripts/docs.mjs). */
export const CONFIG = section({
  /** Fewest rows an array of flat objects needs to count as a table. */
  min_rows: integer({ min: 1 }).or(3).doc('fewest rows of flat objects that make a table'),
  /** Outputs with fewer tokens than this are left alone. */
  min_tokens: integer().or(0).doc('smaller outputs are left alone'),
  delimiter: oneOf(TOON_DELIMITERS).or(',').doc('`,`, tab or `|`'),
});
export type ToonConfig = ConfigOf<typeof CONFIG>;

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
    const toon = await rewrite(text, start, end, cfg);
    if (typeof toon === 'string') return skip(toon);
    const { rewritten, tables } = toon;
    // TOON must beat the JSON at its most compact. When the input is compact already, that is the
    // pipeline's own never-worse question about this very rewrite: asked the same way, its counts
    // are the ones the pipeline then finds cached (a second count of a 30 MB table cost a second).
    const smaller = scan.spaced
      ? await fewerThanCompact(ctx.tokens, rewritten, text, start, end)
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

/**
 * Whether the TOON has fewer tokens than text[start, end) written as compact JSON. A large document
 * is first asked without its compact form ever existing whole (toon now runs before format on the
 * pretty text itself; making the compact copy here put it beside that text and the TOON): when the
 * compact parts have more pieces than the TOON (with the whitespace around it) has tokens, it is
 * fewer; the pipeline's never-worse check then finds that count made. (The TOON's upper bound from
 * its pieces alone, which would spare loading the vocabulary, measured too loose to decide on
 * tables of ids and hashes.) Only where that does not decide is the compact text made, and the two
 * compared exactly.
 */
async function fewerThanCompact(
  tokens: Tokens,
  rewritten: string,
  text: string,
  start: number,
  end: number,
): Promise<boolean> {
  if (end - start > WHOLE_MAX_CHARS) {
    const parts = compactJsonParts(text, start, end);
    if (await tokens.partsAbove(parts, await tokens.count(rewritten))) return true;
  }
  return tokens.fewer(
    rewritten.slice(start, rewritten.length - (text.length - end)),
    compactJson(text, start, end),
  );
}

/**
 * The text with its JSON document text[start, end) written as TOON, and how many tables that
 * holds; or the gate that stops it. A document that is one table goes a chunk of rows at a time
 * (encode-table.ts), an object with tables among its members member by member (encode-members.ts);
 * any other only up to WHOLE_MAX_CHARS, through JSON.parse and the library.
 */
async function rewrite(
  text: string,
  start: number,
  end: number,
  cfg: ToonConfig,
): Promise<{ rewritten: string; tables: number } | string> {
  const [{ encode }, { encodeTable }, { encodeMembers }] = await Promise.all([
    import('@toon-format/toon'),
    import('../toon/encode-table.js'),
    import('../toon/encode-members.js'),
  ]);
  const o = { minRows: cfg.min_rows, delimiter: cfg.delimiter };
  const around = (toon: string[]) => [text.slice(0, start), ...toon, text.slice(end)].join('');
  if (text.charCodeAt(start) === OPEN_BRACKET) {
    const table = encodeTable(text, start, o, encode);
    if (table.kind === 'cannot encode') return 'toon cannot encode';
    if (table.kind === 'table') return { rewritten: around(table.toon), tables: 1 };
  } else {
    const members = encodeMembers(text, start, o, encode);
    if (members.kind === 'cannot encode') return 'toon cannot encode';
    if (members.kind === 'too large') return 'too large for a whole-document toon';
    if (members.kind === 'members') return { rewritten: around(members.toon), tables: members.tables };
  }
  if (end - start > WHOLE_MAX_CHARS) return 'too large for a whole-document toon';
  const value = JSON.parse(text) as Json;
  const tables = countTables(value, cfg.min_rows);
  if (tables === 0) return 'no uniform array';
  try {
    const encoded = encode(value, { delimiter: cfg.delimiter });
    return { rewritten: text.slice(0, start) + encoded + text.slice(end), tables };
  } catch {
    // e.g. an unpaired surrogate, which TOON refuses to write
    return 'toon cannot encode';
  }
}
