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
import { boolean, type ConfigOf, integer, number, oneOf, section } from '../config/fields.js';
import { keywords } from '../input/keywords.js';

export type ExtractStrategy = 'deterministic' | 'code' | 'rlm';
const STRATEGIES: readonly ExtractStrategy[] = ['deterministic', 'code', 'rlm'];

/** The settings, declared once: parser, defaults and the reference tables (scripts/docs.mjs). */
export const CONFIG = section({
  strategy: oneOf(STRATEGIES)
    .or('deterministic')
    .doc('`deterministic`, or `code` (`rlm`): a model writes the filter'),
  min_tokens: integer().or(300).doc('smaller outputs are left alone'),
  head_lines: integer().or(5).doc('first lines always kept'),
  tail_lines: integer().or(5).doc('last lines always kept'),
  /** Query keywords on a larger share of the lines than this (0..1) select nothing. */
  max_keyword_share: number({ max: 1 })
    .or(0.25)
    .doc('a query word on more of the lines than this selects nothing'),
  // The model strategy's triggers and limits (src/llm/code-strategy.ts).
  rewrite: boolean().or(false).doc('code: allow rewording (the result need only be shorter)'),
  min_output_tokens: integer().or(2000).doc('code: smallest output a model is asked about'),
  min_request_tokens: integer().or(8000).doc('code: smallest request (raw text: not checked)'),
  min_messages: integer().or(4).doc('code: fewest messages in the request (raw text: not checked)'),
  max_model_chars: integer({ min: 1000 })
    .or(32_000)
    .doc('code: the output the model sees, cut to head and tail'),
  program_timeout_ms: integer({ min: 100, max: 60_000 }).or(2000).doc("code: the filter program's deadline"),
});
export type ExtractConfig = ConfigOf<typeof CONFIG>;

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
  defaults: CONFIG.defaults,
  parseConfig: CONFIG.parse,

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
  const lines = new LineWalk(text);
  const n = lines.count;
  if (n <= cfg.head_lines + cfg.tail_lines + 1) return { kind: 'skip', gate: 'too few lines' };

  const matched = queryMatcher(lines, ctx.query, cfg.max_keyword_share);
  const errors = new NextMatch(text, ERROR_WORD);
  const eol = lines.firstEndsWithCr() ? '\r\n' : '\n';
  const out = new Kept(text, eol);
  let kept = 0;
  let dropping = false;
  lines.each((s, e, i) => {
    const keep =
      i < cfg.head_lines || i >= n - cfg.tail_lines || matched(s, e) || errors.within(s, e) !== undefined;
    if (keep) {
      out.line(s, e);
      kept++;
    } else if (!dropping) out.fold();
    dropping = !keep;
  });
  if (kept === n) return { kind: 'skip', gate: 'nothing to drop' };
  const note = `kept ${kept} of ${n} lines`;
  return {
    kind: 'rewrite',
    text: out.joined(`[${note}] ${MARKER_SLOT}${lines.finalNewline ? eol : ''}`),
    loss: 'whole',
    note,
  };
}

/**
 * The lines of a text, walked by offsets (the text is never split: an output of a hundred million
 * short lines would be as many strings). Lines are what split('\n') gives once one final newline is
 * dropped; [s, e) excludes the "\n", a "\r" before it included.
 */
class LineWalk {
  readonly finalNewline: boolean;
  readonly count: number;
  private readonly end: number;

  constructor(readonly text: string) {
    this.finalNewline = text.endsWith('\n');
    this.end = this.finalNewline ? text.length - 1 : text.length;
    let n = 1;
    for (let i = text.indexOf('\n'); i !== -1 && i < this.end; i = text.indexOf('\n', i + 1)) n++;
    this.count = n;
  }

  each(f: (s: number, e: number, i: number) => void): void {
    const { text, end } = this;
    for (let s = 0, i = 0; ; i++) {
      let e = text.indexOf('\n', s);
      if (e === -1 || e > end) e = end;
      f(s, e, i);
      if (e >= end) return;
      s = e + 1;
    }
  }

  firstEndsWithCr(): boolean {
    const nl = this.text.indexOf('\n');
    const e = nl === -1 || nl > this.end ? this.end : nl;
    return e > 0 && this.text.charCodeAt(e - 1) === 0x0d;
  }
}

/**
 * Where a regex next matches in the text, searched once over the whole text rather than line by
 * line. A match never spans lines (the patterns hold no "\n"), and a "\n" is no word character, so
 * `\b` at a line's edge answers as it would in the line alone.
 */
class NextMatch {
  private at = -2;
  private readonly re: RegExp;
  constructor(
    private readonly text: string,
    pattern: RegExp,
  ) {
    this.re = new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`);
  }

  /** The first match in [s, e), if any; s never decreases from one call to the next. */
  within(s: number, e: number): number | undefined {
    if (this.at !== -1 && this.at < s) {
      this.re.lastIndex = s;
      this.at = this.re.exec(this.text)?.index ?? -1;
    }
    return this.at !== -1 && this.at < e ? this.at : undefined;
  }
}

/**
 * The output: kept lines (a run of them that keeps its own line endings is one slice of the text)
 * and one fold line per run of dropped ones, every line ending in the input's first line ending.
 */
class Kept {
  private readonly parts: string[] = [];
  private run = -1;
  private runEnd = 0;
  constructor(
    private readonly text: string,
    private readonly eol: string,
  ) {}

  line(s: number, e: number): void {
    const cr = e > s && this.text.charCodeAt(e - 1) === 0x0d;
    // Ends as the output ends its lines: the text between such lines is already the output.
    if (cr === (this.eol === '\r\n')) {
      if (this.run === -1) this.run = s;
      this.runEnd = e;
      return;
    }
    this.flush();
    this.parts.push(cr ? this.text.slice(s, e - 1) : this.text.slice(s, e), this.eol);
  }

  fold(): void {
    this.flush();
    this.parts.push(FOLD, this.eol);
  }

  /** The output, `last` after it, joined once (a large one flat, never a copy plus a suffix). */
  joined(last: string): string {
    this.flush();
    this.parts.push(last);
    return this.parts.join('');
  }

  private flush(): void {
    if (this.run === -1) return;
    // The run's last line keeps its own "\r" (CRLF text), so either way it needs only a "\n".
    this.parts.push(this.text.slice(this.run, this.runEnd), '\n');
    this.run = -1;
  }
}

/**
 * Whether the line [s, e) holds a query keyword that occurs on at most `share` of the lines. The
 * counts take one keyword pass over the lines; each line's keywords are found again when it is
 * asked about, rather than kept for every line.
 */
function queryMatcher(
  lines: LineWalk,
  query: string | undefined,
  share: number,
): (s: number, e: number) => boolean {
  const q = query ? keywords(query) : new Set<string>();
  if (q.size === 0) return () => false;
  const found = (s: number, e: number) => [...keywords(lines.text.slice(s, e))].filter((k) => q.has(k));
  const count = new Map<string, number>();
  lines.each((s, e) => {
    for (const k of found(s, e)) count.set(k, (count.get(k) ?? 0) + 1);
  });
  const limit = share * lines.count;
  return (s, e) => found(s, e).some((k) => count.get(k)! <= limit);
}
