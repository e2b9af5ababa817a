/**
 * format — lossless: pretty-printed JSON becomes compact JSON, where it is a whole JSON document in
 * its context (src/json/documents.ts): the whole output, a fenced ```json block, or a multi-line
 * object or array that opens in a line's first column and closes at a line's end, as programs print
 * JSON into logs. A `{ … }` in code, a diff or prose is never a document, so it is never touched —
 * line numbers of a file and a patch's context stay as they were. Only whitespace outside strings is
 * removed; every other character stays as written (no parse/stringify round trip). The pipeline
 * checks the claim (proof 'json'): anything outside documents that changed, or a document whose
 * tokens changed, reverts the rewrite. Already-compact JSON is a skip.
 */
import type { Outcome, OutputComponent } from '../component.js';
import { type ConfigOf, integer, section } from '../config/fields.js';
import { jsonDocuments } from '../json/documents.js';
import { compactJson } from '../json/text.js';

/** The settings, declared once: parser, defaults and the reference tables (scripts/docs.mjs). */
export const CONFIG = section({
  /** Outputs with fewer tokens than this are left alone. */
  min_tokens: integer().or(0).doc('smaller outputs are left alone'),
});
export type FormatConfig = ConfigOf<typeof CONFIG>;

export const format: OutputComponent<FormatConfig> = {
  name: 'format',
  lossy: false,
  scope: 'output',
  summary: 'Compact pretty-printed JSON (whole output or blocks in text), whitespace only',
  defaults: CONFIG.defaults,
  parseConfig: CONFIG.parse,

  applies(o) {
    return o.text.includes('{') || o.text.includes('[');
  },

  async run(o, cfg, ctx): Promise<Outcome> {
    const text = o.text;
    if (cfg.min_tokens > 0 && !(await ctx.tokens.exceeds(text, cfg.min_tokens - 1))) {
      return { kind: 'skip', gate: 'below min_tokens' };
    }
    // Concatenation, not join: a whole-output block stays the rope compactJson built (no extra copy).
    let out = '';
    let at = 0;
    let blocks = 0;
    const docs = jsonDocuments(text);
    for (const d of docs) {
      if (!d.spaced) continue;
      out += text.slice(at, d.start) + compactJson(text, d.start, d.end);
      at = d.end;
      blocks++;
    }
    if (docs.length === 0) return { kind: 'skip', gate: 'no pretty json' };
    if (blocks === 0) return { kind: 'skip', gate: 'already compact' };
    out += text.slice(at);
    return {
      kind: 'rewrite',
      text: out,
      loss: 'none',
      proof: 'json',
      note: `compacted ${blocks} JSON block${blocks === 1 ? '' : 's'}`,
    };
  },
};
