/**
 * fold — lossy: the fallback for a long text that no filter claimed. Lines that share a template
 * (equal once numbers, hex, paths, quoted strings and timestamps are masked) fold into one line with
 * their count and the values that varied; every template with an error or warning signal is shown
 * at its first signal line with a little context (a rare one line by line); head and tail stay
 * verbatim; the rest is left to the marker on the closing line (src/text/fold.ts says exactly what
 * is kept). Everything but the error templates fits in the bytes collapse would keep of the same
 * text, so on tokens fold is never worse than collapse except to show errors, and those are bounded
 * by signal_share of the input.
 *
 * Inputs over max_bytes (4 MB) are left to collapse (after it in the presets): folding is linear
 * (about 15 MB/s here, against collapse's hundreds) and its tables cost memory, so the largest
 * outputs keep collapse's speed and footprint. Up to exact_check_bytes (1 MB) the "never longer
 * than collapse" budget is checked in exact tokens; above, a fixed margin of the byte budget.
 */
import {
  MARKER_SLOT,
  type Outcome,
  type OutputComponent,
  type OutputView,
  type RunContext,
} from '../component.js';
import { type ConfigOf, integer, number, section } from '../config/fields.js';
import { type FoldOptions, foldText } from '../text/fold.js';
import { byteLength } from '../tokens.js';
import { collapse, cutLine } from './collapse.js';

/** The settings, declared once: parser, defaults and the reference tables (scripts/docs.mjs). */
export const CONFIG = section({
  /** Outputs with at most this many tokens are left alone (as with collapse). */
  max_tokens: integer().or(2000).doc('outputs of at most this many tokens are left alone'),
  head_lines: integer().or(5).doc('first lines kept'),
  tail_lines: integer().or(5).doc('last lines kept'),
  /** Lines kept before and after the first line of each error/warning template. */
  context_lines: integer().or(1).doc("lines kept around an error template's first line"),
  /** An error template seen at most this often shows every one of its lines. */
  verbatim_max: integer().or(3).doc('an error template seen at most this often shows every line'),
  /** Values listed per varying slot of a folded template. */
  max_values: integer().or(6).doc('values listed per varying slot, else a range or `+K`'),
  /** Everything but the error templates fits in as many bytes as this many head + tail lines. */
  budget_lines: integer().or(40).doc("all but error templates fits in this many lines' bytes"),
  /** The error templates' share of the input, at most (0..1). */
  signal_share: number({ max: 1 }).or(0.2).doc("error templates' share of the input, at most"),
  /** And at most this many tokens (estimated at 4 bytes a token). */
  max_signal_tokens: integer().or(12000).doc("error templates' tokens, at most"),
  max_templates: integer().or(4096).doc('templates tracked (bounds memory)'),
  max_line_chars: integer().or(400).doc('kept lines longer than this are cut in the middle'),
  /** Larger inputs are left to collapse. */
  max_bytes: integer()
    .or(4 * 1024 * 1024)
    .doc('larger inputs are left to collapse', '4194304 (4 MiB)'),
  /** Up to this size the base budget is checked in exact tokens against collapse's output. */
  exact_check_bytes: integer()
    .or(1024 * 1024)
    .doc('up to this size the budget is checked in exact tokens', '1048576 (1 MiB)'),
});
export type FoldConfig = ConfigOf<typeof CONFIG>;

/** The base budget's share for inputs too large for the exact check (folded lines are token-dense). */
const LARGE_INPUT_SCALE = 0.6;

export const fold: OutputComponent<FoldConfig> = {
  name: 'fold',
  lossy: true,
  scope: 'output',
  summary:
    'Fold a long text by line template: counts and varying values, every error template, head and tail',
  defaults: CONFIG.defaults,
  parseConfig: CONFIG.parse,

  applies(o, cfg) {
    // A UTF-16 unit is at most 3 UTF-8 bytes and a token at least 1 byte: shorter texts cannot exceed.
    return o.text.length * 3 > cfg.max_tokens && o.text.length <= cfg.max_bytes;
  },

  async run(o, cfg, ctx): Promise<Outcome> {
    if (!(await ctx.tokens.exceeds(o.text, cfg.max_tokens)))
      return { kind: 'skip', gate: 'under max_tokens' };
    // Bytes are the budget's currency, but folded lines spend more tokens per byte than plain ones:
    // shrink the base budget until the part it pays for is no more tokens than collapse's output.
    // Above exact_check_bytes the tokenizer is not loaded for that: a fixed margin stands in.
    if (byteLength(o.text) > cfg.exact_check_bytes) {
      const r = foldText(o.text, options(cfg, LARGE_INPUT_SCALE));
      if (!r) return { kind: 'skip', gate: 'too few lines to fold' };
      return { kind: 'rewrite', text: r.text, loss: 'whole', note: r.note };
    }
    const collapsed = await collapseText(o, cfg, ctx);
    let scale = 1;
    for (let attempt = 0; ; attempt++) {
      const r = foldText(o.text, options(cfg, scale));
      if (!r) return { kind: 'skip', gate: 'too few lines to fold' };
      const base = r.base.replace(MARKER_SLOT, '');
      // tokens(base) ≤ tokens(collapsed), decided by bounds where they can (the hook's common case
      // then never loads the tokenizer); the counts are needed only to shrink the budget.
      if (scale === 0 || !(await ctx.tokens.fewer(collapsed, base)))
        return { kind: 'rewrite', text: r.text, loss: 'whole', note: r.note };
      const bound = await ctx.tokens.count(collapsed);
      scale = attempt < 3 ? (scale * bound * 0.95) / (await ctx.tokens.count(base)) : 0;
    }
  },
};

function options(cfg: FoldConfig, baseScale: number): FoldOptions {
  return {
    headLines: cfg.head_lines,
    tailLines: cfg.tail_lines,
    context: cfg.context_lines,
    verbatimMax: cfg.verbatim_max,
    maxValues: cfg.max_values,
    budgetLines: cfg.budget_lines,
    baseScale,
    signalShare: cfg.signal_share,
    maxSignalBytes: cfg.max_signal_tokens * 4,
    maxTemplates: cfg.max_templates,
    maxLineChars: cfg.max_line_chars,
    closingSuffix: ` ${MARKER_SLOT}`,
    cut: (line, max) => cutLine(line, 0, line.length, max) ?? line,
  };
}

/** What collapse would make of the same text (its first and last budget_lines / 2), marker aside. */
async function collapseText(o: OutputView, cfg: FoldConfig, ctx: RunContext): Promise<string> {
  const half = Math.ceil(cfg.budget_lines / 2);
  const c = { max_tokens: 0, head_lines: half, tail_lines: half, max_line_chars: cfg.max_line_chars };
  const r = await collapse.run(o, c, ctx);
  return r.kind === 'rewrite' ? r.text.replace(MARKER_SLOT, '') : o.text;
}
