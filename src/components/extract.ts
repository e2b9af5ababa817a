/**
 * extract — lossy, deterministic strategy: a large output (min_tokens) keeps its first head_lines
 * and last tail_lines lines, every line sharing a keyword with the query, and every line with an
 * error word; each run of dropped lines folds to one `…` line, and a closing line
 * `[kept K of N lines] <<cg:KEY>>` + hint says how to get the rest back.
 *
 * The query is --query, or for a request body the task plus the latest user and assistant turns
 * (src/input/query.ts). A query keyword found on more than max_keyword_share of the output's lines
 * does not select lines: it does not tell lines apart (the project's name in every path, say), and
 * would keep nearly everything. Line endings (LF or CRLF) and a final newline are preserved.
 */
import { MARKER_SLOT, type Outcome, type OutputComponent } from '../component.js';
import { ConfigError } from '../errors.js';
import { integer, mapping, number } from '../validate.js';
import { keywords } from './keywords.js';

export interface ExtractConfig {
  min_tokens: number;
  head_lines: number;
  tail_lines: number;
  /** Query keywords on a larger share of the lines than this (0..1) select nothing. */
  max_keyword_share: number;
}

const DEFAULTS: ExtractConfig = { min_tokens: 300, head_lines: 5, tail_lines: 5, max_keyword_share: 0.25 };

const ERROR_WORD =
  /\b(?:error|errors|failed|failure|failures|fatal|exception|panic|panicked|traceback|abort|aborted|segfault|critical)\b/i;
const FOLD = '…';

export const extract: OutputComponent<ExtractConfig> = {
  name: 'extract',
  lossy: true,
  scope: 'output',
  summary: 'Keep head, tail, query-matching and error lines of a large output; the rest is stashed',
  defaults: DEFAULTS,

  parseConfig(raw: unknown): ExtractConfig {
    const m = mapping(raw, '', ['min_tokens', 'head_lines', 'tail_lines', 'max_keyword_share']);
    const share = number(m.max_keyword_share, 'max_keyword_share', DEFAULTS.max_keyword_share);
    if (share > 1) throw new ConfigError('max_keyword_share', `expected a number in 0..1, got ${share}`);
    return {
      min_tokens: integer(m.min_tokens, 'min_tokens', DEFAULTS.min_tokens),
      head_lines: integer(m.head_lines, 'head_lines', DEFAULTS.head_lines),
      tail_lines: integer(m.tail_lines, 'tail_lines', DEFAULTS.tail_lines),
      max_keyword_share: share,
    };
  },

  applies(o, cfg) {
    // A UTF-16 unit is at most 3 UTF-8 bytes and a token at least 1 byte: shorter texts cannot qualify.
    return o.text.length * 3 >= cfg.min_tokens && o.text.includes('\n');
  },

  async run(o, cfg, ctx): Promise<Outcome> {
    const text = o.text;
    if (cfg.min_tokens > 0 && !(await ctx.tokens.exceeds(text, cfg.min_tokens - 1)))
      return { kind: 'skip', gate: 'under min_tokens' };
    const finalNewline = text.endsWith('\n');
    const lines = (finalNewline ? text.slice(0, -1) : text).split('\n');
    const n = lines.length;
    if (n <= cfg.head_lines + cfg.tail_lines + 1) return { kind: 'skip', gate: 'too few lines' };

    const matched = queryMatches(lines, ctx.query, cfg.max_keyword_share);
    const keep = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      if (i < cfg.head_lines || i >= n - cfg.tail_lines || matched[i]) keep[i] = 1;
      else if (ERROR_WORD.test(lines[i]!)) keep[i] = 1;
    }
    const out: string[] = [];
    let kept = 0;
    for (let i = 0; i < n; i++) {
      if (keep[i]) {
        out.push(lines[i]!);
        kept++;
      } else if (i === 0 || keep[i - 1]) {
        // The fold takes the dropped line's CR, so CRLF text stays CRLF throughout.
        out.push(lines[i]!.endsWith('\r') ? `${FOLD}\r` : FOLD);
      }
    }
    if (kept === n) return { kind: 'skip', gate: 'nothing to drop' };
    const eol = lines[0]!.endsWith('\r') ? '\r\n' : '\n';
    const body = out.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)).join(eol);
    const note = `kept ${kept} of ${n} lines`;
    return {
      kind: 'rewrite',
      text: `${body}${eol}[${note}] ${MARKER_SLOT}${finalNewline ? eol : ''}`,
      loss: 'whole',
      note,
    };
  },
};

/**
 * Per line, whether it holds a query keyword that occurs on at most `share` of the lines. One
 * keyword pass over the lines: each line's query keywords are kept until the counts are known.
 */
function queryMatches(lines: readonly string[], query: string | undefined, share: number): Uint8Array {
  const matched = new Uint8Array(lines.length);
  const q = query ? keywords(query) : new Set<string>();
  if (q.size === 0) return matched;
  const count = new Map<string, number>();
  const perLine: (string[] | undefined)[] = new Array(lines.length);
  lines.forEach((line, i) => {
    const found = [...keywords(line)].filter((k) => q.has(k));
    for (const k of found) count.set(k, (count.get(k) ?? 0) + 1);
    if (found.length > 0) perLine[i] = found;
  });
  const limit = share * lines.length;
  perLine.forEach((found, i) => {
    if (found?.some((k) => count.get(k)! <= limit)) matched[i] = 1;
  });
  return matched;
}
