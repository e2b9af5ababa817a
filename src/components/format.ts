/**
 * format — lossless: pretty-printed JSON becomes compact JSON, whether the whole output is one JSON
 * value or JSON blocks sit inside other text (a log line followed by a `{ … }` spanning lines).
 * Only whitespace outside strings is removed; every other character stays as written (no
 * parse/stringify round trip), and only text that validates as JSON is touched. Inside other text
 * a block must span several lines: single-line snippets such as `[1, 2]` in code are left alone,
 * because an agent may need to match them verbatim later. Already-compact JSON is a skip.
 */
import type { Outcome, OutputComponent } from '../component.js';
import { compactJson, scanJson, trimmedRange } from '../json/text.js';
import { integer, mapping } from '../validate.js';

export interface FormatConfig {
  /** Outputs with fewer tokens than this are left alone. */
  min_tokens: number;
}

const DEFAULTS: FormatConfig = { min_tokens: 0 };

/** Search effort per input char; past it, later candidates are left alone (pathological input). */
const SCAN_BUDGET_FACTOR = 4;

/**
 * Calls onBlock(start, end) for each JSON object or array in `text` worth compacting, left to
 * right, outermost first, and returns how many valid ones it saw. Worth compacting: it has
 * whitespace between tokens and either spans several lines or is the whole output. Linear: a
 * failed scan reports the containers still open where it failed, and those are never rescanned
 * (they would fail at the same place); a work budget bounds the rest.
 */
export function findJsonBlocks(text: string, onBlock: (start: number, end: number) => void): number {
  const [first, last] = trimmedRange(text);
  const doomed = new Set<number>();
  let found = 0;
  let budget = SCAN_BUDGET_FACTOR * text.length + 65_536;
  // Next `{` and `[` at or after pos, each searched again only once pos passes it.
  let brace = -1;
  let bracket = -1;
  let pos = first;
  while (pos < last && budget > 0) {
    if (brace < pos) brace = nextIndex(text, '{', pos);
    if (bracket < pos) bracket = nextIndex(text, '[', pos);
    const q = Math.min(brace, bracket);
    if (q >= last) break;
    pos = q + 1;
    if (doomed.delete(q)) continue;
    if (q !== first && !opensLine(text, q)) continue;
    const r = scanJson(text, q);
    if (!r.ok) {
      budget -= r.at - q + 1;
      for (const o of r.open) if (o !== q) doomed.add(o);
      continue;
    }
    budget -= r.end - q;
    found++;
    if (r.spaced && (r.multiline || (q === first && r.end === last))) onBlock(q, r.end);
    pos = r.end;
  }
  return found;
}

/**
 * Whether the opener at q ends its line, as every pretty-printer (JSON.stringify, json.dumps, jq)
 * writes it. Inside text only such openers are scanned: `[worker-3]` or `{id}` in a 100 MB log then
 * cost an indexOf, not a JSON scan, and a block that opens mid-line would rarely be pretty anyway.
 */
function opensLine(text: string, q: number): boolean {
  for (let i = q + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || c === 0x0d) return true;
    if (c !== 0x20 && c !== 0x09) return false;
  }
  return false;
}

function nextIndex(text: string, ch: string, from: number): number {
  const k = text.indexOf(ch, from);
  return k === -1 ? Number.POSITIVE_INFINITY : k;
}

export const format: OutputComponent<FormatConfig> = {
  name: 'format',
  lossy: false,
  scope: 'output',
  summary: 'Compact pretty-printed JSON (whole output or blocks in text), whitespace only',
  defaults: DEFAULTS,

  parseConfig(raw: unknown): FormatConfig {
    const m = mapping(raw, '', ['min_tokens']);
    return { min_tokens: integer(m.min_tokens, 'min_tokens', DEFAULTS.min_tokens) };
  },

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
    const found = findJsonBlocks(text, (start, end) => {
      out += text.slice(at, start) + compactJson(text, start, end);
      at = end;
      blocks++;
    });
    if (found === 0) return { kind: 'skip', gate: 'no pretty json' };
    if (blocks === 0) return { kind: 'skip', gate: 'already compact' };
    out += text.slice(at);
    return {
      kind: 'rewrite',
      text: out,
      loss: 'none',
      note: `compacted ${blocks} JSON block${blocks === 1 ? '' : 's'}`,
    };
  },
};
