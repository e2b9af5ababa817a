/**
 * cmdfilter — lossy: applies the declarative filter (src/dsl/) that the output's selector picks —
 * `$ <command>` when the command is known (--command, `cg run`, the matching tool call), then the
 * first output lines. The filter's result is the rewrite; the pipeline stashes the original, adds
 * the marker and keeps the rewrite only when it is fewer tokens.
 *
 * On a large tool error it runs too (usesFilters): the pipeline then hands it only the filters whose
 * inline tests prove they keep every failure line, and checks the rewrite kept them all.
 *
 * The rewrite is final for the run — no later stage shortens it — when the filter kept at most
 * max_tokens (8,000 tokens, counted: under the 30,000 characters Claude Code's Bash tool passes on
 * whole, BASH_MAX_OUTPUT_LENGTH). A filter knows its output's shape
 * and fold does not: after git-diff it folds changed lines into `[×N] +…` templates, after grep its
 * file headers, after tsc it cuts location lists mid-line; a filter bounds itself within that
 * (group_max_chars, runs_max_chars). One that kept more is still shortened by fold or collapse,
 * under the same marker: an output the host would otherwise cut must not reach the model whole
 * (in real Claude Code a 20-commit `git log -p` reaches the model as ~900 tokens without cg).
 *
 * A tail cut (the filter kept lines 1..k untouched and dropped the rest) gets a hint naming the cut,
 * `cg expand KEY --lines k+1-`, with the marker on the omission line; any other loss gets the plain
 * hint on a line of its own. An unchanged output is skipped.
 *
 * min_tokens (default 50): below it the marker and hint (≈ 30 tokens) would eat most of what any
 * filter could save, and skipping spares loading filter files and re2js for small outputs — the
 * common `echo hi | cg` start-up path never reaches them. It is judged on an estimate of 4 UTF-8
 * bytes a token, never an exact count: loading the tokenizer (~0.4 s) to decide whether to try a
 * filter would cost more than the filter saves on small outputs.
 *
 * max_input_lines (default 100,000): a filter's stages hold a line object per line, so a larger
 * output (`seq 1 5000000` took 900 MB and 20 s under git-log's filter) is left to fold and collapse,
 * which walk it by offsets.
 *
 * newest_only (default false; the agent preset, which the proxy runs, sets it): only the outputs of
 * a request's newest turn are filtered (newest-turn.ts).
 */
import { MARKER_SLOT, type Outcome, type OutputComponent } from '../component.js';
import { boolean, type ConfigOf, integer, list, section, string } from '../config/fields.js';
import { linesAbove } from '../text/line-count.js';
import { byteLength } from '../tokens.js';
import { inNewestTurn } from './newest-turn.js';

/** The settings, declared once: parser, defaults and the reference tables (scripts/docs.mjs). */
export const CONFIG = section({
  /** Outputs with fewer tokens (estimated at 4 bytes a token) are left alone. */
  min_tokens: integer().or(50).doc('smaller outputs (estimated at 4 bytes a token) never load a filter'),
  /** Filter names never to apply (the next matching filter is used instead). */
  disabled: list(string(), 'a list of strings').doc('filter names never to apply (the next match is used)'),
  /**
   * A rewrite of at most this many tokens is final for the run; a longer one may still be shortened
   * by the later stages (fold, collapse) under the same marker.
   */
  max_tokens: integer().or(8000).doc('a rewrite of at most this many tokens (counted) is final'),
  /**
   * Outputs of more lines are left to the later stages: a filter's stages hold a line object per
   * line (~200 bytes each), which past this would put a run over its memory budget.
   */
  max_input_lines: integer().or(100_000).doc('outputs of more lines are left to fold and collapse'),
  /**
   * Only the outputs of a request's newest turn (after the last assistant message): what a proxy
   * sets (preset agent), so a conversation first seen mid-way keeps its older outputs' bytes.
   */
  newest_only: boolean().or(false).doc("only the newest turn's outputs (the agent preset sets it)"),
});
export type CmdfilterConfig = ConfigOf<typeof CONFIG>;
const BYTES_PER_TOKEN = 4;
/** Tries with cut budgets before a rewrite over max_tokens is left to the later stages. */
const RETRIES = 4;

export const cmdfilter: OutputComponent<CmdfilterConfig> = {
  name: 'cmdfilter',
  lossy: true,
  scope: 'output',
  summary: "Apply the declarative filter for the output's command (builtin, user, project or --filters YAML)",
  defaults: CONFIG.defaults,
  parseConfig: CONFIG.parse,
  usesFilters: true,

  applies(o, cfg) {
    // A UTF-16 unit is at most 3 UTF-8 bytes: texts this short are under min_tokens for sure.
    return o.text.length > 0 && o.text.length * 3 >= cfg.min_tokens * BYTES_PER_TOKEN;
  },

  async run(o, cfg, ctx): Promise<Outcome> {
    if (!ctx.filters) return { kind: 'skip', gate: 'no filters in this context' };
    if (cfg.newest_only && !inNewestTurn(o, ctx))
      return { kind: 'skip', gate: 'not an output of the newest turn' };
    if (byteLength(o.text) < cfg.min_tokens * BYTES_PER_TOKEN)
      return { kind: 'skip', gate: 'under min_tokens' };
    const filter = await ctx.filters.select(o.command, o.text, { exclude: cfg.disabled });
    if (!filter) return { kind: 'skip', gate: 'no filter matches' };
    // After the selection, which is cheap (the selector is the first lines) and is where a broken
    // filter file is found: that stays a config error whatever the output's size.
    if (linesAbove(o.text, cfg.max_input_lines)) return { kind: 'skip', gate: 'over max_input_lines' };
    // Counted as fold counts its max_tokens: an output this filter leaves whole as small (ls -l's
    // columns) is one fold leaves alone too, never one it templates.
    if (filter.minTokens !== undefined && !(await ctx.tokens.exceeds(o.text, filter.minTokens - 1)))
      return { kind: 'skip', gate: `under filter ${filter.name}'s min_tokens` };
    const memo = {};
    let r = filter.run(o.text, { memo });
    if (r.loss === 'none' || r.text === o.text)
      return { kind: 'skip', gate: `filter ${filter.name} changed nothing` };
    // Counted, not estimated: diffs and code run 3 bytes a token, so 4 would let 30 % more through.
    let final = !(await ctx.tokens.exceeds(r.text, cfg.max_tokens));
    // A filter's budgets are characters, the ceiling tokens: a rewrite denser than the budgets
    // assumed (a tree of short path names runs 2.5 characters a token) tries again with them cut
    // to the ratio, so it keeps its own shape instead of going to fold's templates.
    for (let attempt = 0; !final && attempt < RETRIES; attempt++) {
      const cap = Math.floor((r.text.length * cfg.max_tokens * 0.9) / (await ctx.tokens.count(r.text)));
      const again = filter.run(o.text, { cap, memo });
      if (again.loss === 'none' || again.text === r.text) break;
      r = again;
      final = !(await ctx.tokens.exceeds(r.text, cfg.max_tokens));
    }
    if (r.loss === 'tail' && r.tailFrom !== undefined) {
      const kept = r.tailFrom - 1;
      const outcome: Outcome = {
        kind: 'rewrite',
        text: withSlotOnOmission(r.text),
        loss: 'tail',
        expandArgs: `--lines ${r.tailFrom}-`,
        note: `filter ${filter.name}: kept lines 1-${kept}, cut the rest`,
      };
      return final ? { ...outcome, final } : outcome;
    }
    const cap = r.listed
      ? ', every group named in a list to fit group_max_chars'
      : r.itemCap !== undefined
        ? `, at most ${r.itemCap} item${r.itemCap === 1 ? '' : 's'} a group to fit group_max_chars`
        : r.runsKept !== undefined
          ? `, at most ${r.runsKept} line${r.runsKept === 1 ? '' : 's'} a run to fit runs_max_chars`
          : '';
    const note = `filter ${filter.name}: ${countLines(o.text)} → ${countLines(r.text)} lines${cap}`;
    const text = withSlotOnOmission(r.text, false);
    return final
      ? { kind: 'rewrite', text, loss: 'whole', note, final }
      : { kind: 'rewrite', text, loss: 'whole', note };
  },
};

const OMISSION_RE = /^\.\.\. \(\d+ lines omitted\)$/;
const OMISSION_LINES_RE = /^\.\.\. \(\d+ lines omitted\)(?=\r?$)/gm;

/**
 * Puts the marker slot at the end of the omission line — the last line for a tail cut, the only
 * one otherwise — so the hint sits where lines are missing. Without one, the pipeline appends the
 * marker on a line of its own.
 */
function withSlotOnOmission(text: string, tail = true): string {
  let at = -1;
  if (tail) {
    const body = text.endsWith('\n') ? text.slice(0, text.endsWith('\r\n') ? -2 : -1) : text;
    if (OMISSION_RE.test(body.slice(body.lastIndexOf('\n') + 1))) at = body.length;
  } else {
    const found = [...text.matchAll(OMISSION_LINES_RE)];
    if (found.length === 1) at = found[0]!.index! + found[0]![0].length;
  }
  return at === -1 ? text : `${text.slice(0, at)} ${MARKER_SLOT}${text.slice(at)}`;
}

function countLines(text: string): number {
  if (text === '') return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}
