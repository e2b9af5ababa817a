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
 *
 * strategy `code` (and `rlm`, which maps to it for now) first asks a model to write a filter
 * program for a large output in a large request (src/llm/code-strategy.ts); whenever that
 * does not apply or fails, the deterministic strategy above runs instead, and --verbose says why.
 */
import {
  MARKER_SLOT,
  type Outcome,
  type OutputComponent,
  type OutputView,
  type RunContext,
} from '../component.js';
import { ConfigError } from '../errors.js';
import { keywords } from '../input/keywords.js';
import type { CodeStrategyConfig } from '../llm/code-strategy.js';
import { boolean, integer, mapping, number, oneOf } from '../validate.js';

export type ExtractStrategy = 'deterministic' | 'code' | 'rlm';
const STRATEGIES: readonly ExtractStrategy[] = ['deterministic', 'code', 'rlm'];

export interface ExtractConfig extends CodeStrategyConfig {
  strategy: ExtractStrategy;
  min_tokens: number;
  head_lines: number;
  tail_lines: number;
  /** Query keywords on a larger share of the lines than this (0..1) select nothing. */
  max_keyword_share: number;
}

const DEFAULTS: ExtractConfig = {
  strategy: 'deterministic',
  min_tokens: 300,
  head_lines: 5,
  tail_lines: 5,
  max_keyword_share: 0.25,
  rewrite: false,
  min_output_tokens: 2000,
  min_request_tokens: 8000,
  min_messages: 4,
  max_model_chars: 32_000,
  program_timeout_ms: 2000,
};

const ERROR_WORD =
  /\b(?:error|errors|failed|failure|failures|fatal|exception|panic|panicked|traceback|abort|aborted|segfault|critical)\b/i;
const FOLD = '…';
const MODEL_CONCURRENCY = 4;
const FALLBACK_MS = 10_000;

export const extract: OutputComponent<ExtractConfig> = {
  name: 'extract',
  lossy: true,
  scope: 'output',
  summary: 'Keep head, tail, query-matching and error lines of a large output; the rest is stashed',
  defaults: DEFAULTS,

  parseConfig(raw: unknown): ExtractConfig {
    const m = mapping(raw, '', [
      'strategy',
      'min_tokens',
      'head_lines',
      'tail_lines',
      'max_keyword_share',
      'rewrite',
      'min_output_tokens',
      'min_request_tokens',
      'min_messages',
      'max_model_chars',
      'program_timeout_ms',
    ]);
    const share = number(m.max_keyword_share, 'max_keyword_share', DEFAULTS.max_keyword_share);
    if (share > 1) throw new ConfigError('max_keyword_share', `expected a number in 0..1, got ${share}`);
    const int = (k: keyof ExtractConfig, min = 0) => integer(m[k], k, DEFAULTS[k] as number, min);
    return {
      strategy: oneOf(m.strategy, 'strategy', STRATEGIES, DEFAULTS.strategy),
      rewrite: boolean(m.rewrite, 'rewrite', DEFAULTS.rewrite),
      min_output_tokens: int('min_output_tokens'),
      min_request_tokens: int('min_request_tokens'),
      min_messages: int('min_messages'),
      max_model_chars: int('max_model_chars', 1000),
      program_timeout_ms: integer(
        m.program_timeout_ms,
        'program_timeout_ms',
        DEFAULTS.program_timeout_ms,
        100,
        60_000,
      ),
      min_tokens: integer(m.min_tokens, 'min_tokens', DEFAULTS.min_tokens),
      head_lines: integer(m.head_lines, 'head_lines', DEFAULTS.head_lines),
      tail_lines: integer(m.tail_lines, 'tail_lines', DEFAULTS.tail_lines),
      max_keyword_share: share,
    };
  },

  // A model strategy mostly waits on the model: the newest turn's outputs (parallel tool calls) are
  // asked about together.
  // A model's result is memoised, raw text included, so the same output gets the same bytes.
  keepsSessionState: (cfg) => cfg.strategy !== 'deterministic',
  concurrency: (cfg) => (cfg.strategy === 'deterministic' ? 1 : MODEL_CONCURRENCY),
  // Room for the model call, the program (and the worker's backstop), then the fallback.
  deadlineMs: (cfg, ctx) =>
    cfg.strategy === 'deterministic' || !ctx.model?.available
      ? 0
      : ctx.model.budgetMs + cfg.program_timeout_ms + FALLBACK_MS,

  applies(o, cfg) {
    // A UTF-16 unit is at most 3 UTF-8 bytes and a token at least 1 byte: shorter texts cannot qualify.
    const lines = o.text.length * 3 >= cfg.min_tokens && o.text.includes('\n');
    return lines || (cfg.strategy !== 'deterministic' && o.text.length * 3 >= cfg.min_output_tokens);
  },

  async run(o, cfg, ctx): Promise<Outcome> {
    if (cfg.strategy === 'deterministic') return deterministic(o, cfg, ctx);
    const { codeStrategy } = await import('../llm/code-strategy.js');
    const r = await codeStrategy(o, cfg, ctx);
    if (r.ok) return framed(o.text, r.text, r.note);
    const fallback = await deterministic(o, cfg, ctx);
    const why = `model strategy not used: ${r.why}`;
    return fallback.kind === 'skip'
      ? { kind: 'skip', gate: `${why}; ${fallback.gate}` }
      : { ...fallback, note: `${fallback.note}; ${why}` };
  },
};

/** The model's result with cg's closing line `[note] <<cg:KEY>>`, line endings as the input's. */
function framed(input: string, result: string, note: string): Outcome {
  const eol = input.includes('\r\n') ? '\r\n' : '\n';
  const body = result.endsWith('\n') || result === '' ? result : `${result}${eol}`;
  return {
    kind: 'rewrite',
    text: `${body}[${note}] ${MARKER_SLOT}${input.endsWith('\n') ? eol : ''}`,
    loss: 'whole',
    note,
  };
}

async function deterministic(o: OutputView, cfg: ExtractConfig, ctx: RunContext): Promise<Outcome> {
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
}

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
