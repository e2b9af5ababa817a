/**
 * skeleton — lossy: source code reduced to its shape. Every declared name stays: imports, type/
 * class/interface/struct/enum/trait declarations with their members and fields, function and method
 * signatures, decorators and attributes. Function, method, constructor and lambda bodies and data
 * literals of at least min_tokens become a placeholder (`{ … }`, `[…]`; `...` in Python, `…` in
 * Ruby); comment blocks and docstrings keep their first line of text (keep_docstrings). While a big
 * file would keep more than target_ratio of its tokens, more goes, the least telling first: shorter
 * bodies and values, import name lists, comments, then parameter lists (src/code/skeletonize.ts).
 * Those decisions count the tokenizer's pieces, so they load no tokenizer. The pipeline stashes the
 * whole original and appends the marker (loss 'whole').
 *
 * Code is found as a whole file (--lang, a read tool's path, or a `cat`/`sed -n`/`head` command) or
 * as fenced blocks in any output; a line-numbered read keeps every kept line's own number (see
 * src/code/sources.ts). 15 languages, listed as data in src/code/languages.ts; tree-sitter and a
 * grammar load only when code is actually met (src/code/parser.ts). A region whose parse fails on
 * more than MAX_ERROR_SHARE of its code is left alone, and so is one over max_bytes (1 MiB): a parse
 * tree takes tens of bytes a byte of code, and past a few MB the parse runs out its deadline anyway.
 */
import { findLanguage, LANGUAGE_NAMES } from '../code/languages.js';
import { type CodeRegion, fencedRegions, wholeFile, wholeRegion } from '../code/sources.js';
import type { Outcome, OutputComponent } from '../component.js';
import { boolean, type ConfigOf, integer, list, number, section, string } from '../config/fields.js';
import { ConfigError } from '../errors.js';
import { byteLength } from '../tokens.js';
import { inNewestTurn } from './newest-turn.js';

/** A language name or alias, as its canonical name. */
const language = string().to((word, path) => {
  const spec = findLanguage(word);
  if (!spec) {
    throw new ConfigError(
      path,
      `unknown language ${JSON.stringify(word)} (known: ${LANGUAGE_NAMES.join(', ')})`,
    );
  }
  return spec.name;
});

/** The settings, declared once: parser, defaults and the reference tables (scripts/docs.mjs). */
export const CONFIG = section({
  /** Bodies and values with fewer tokens (tokenizer pieces) than this stay, unless target_ratio needs them. */
  min_tokens: integer().or(80).doc('bodies and literals of fewer tokens stay (unless over budget)'),
  /** A region (a whole file, a fenced block) of fewer tokens than this stays as it is; 0: none does. */
  min_file_tokens: integer().or(0).doc('a file or fenced block of fewer tokens stays (`shell`: 2000)'),
  /**
   * A region of more UTF-8 bytes than this stays as it is: its parse tree takes tens of bytes a
   * byte (1.4 MB of JavaScript peaked at 118 MB, 39 MB of lines parsed as Python at 289 MB).
   */
  max_bytes: integer()
    .or(1024 * 1024)
    .doc('a larger file or block stays as it is', '1048576 (1 MiB)'),
  /** Languages to outline (names or aliases in config, canonical names once parsed). */
  languages: list(language, 'a list of strings')
    .to((names) => [...new Set(names)])
    .or([...LANGUAGE_NAMES])
    .doc('languages to outline: names, aliases or extensions', 'all 15'),
  /** Keep the first line of each doc comment and docstring (false drops them). */
  keep_docstrings: boolean().or(true).doc('keep the first line of each doc comment'),
  /**
   * When that leaves an outline above this share of the file's tokens, shorter bodies and values,
   * import name lists, comments and parameter lists go too, in that order, until it fits; 1 keeps
   * them all.
   */
  target_ratio: number({ min: 0, above: true, max: 1 })
    .or(0.125)
    .doc("past this share of a file's tokens, more goes; 1 keeps all"),
  /** Only the outputs of a request's newest turn (newest-turn.ts): what the agent preset sets. */
  newest_only: boolean().or(false).doc("only the newest turn's outputs (the agent preset sets it)"),
});
export type SkeletonConfig = ConfigOf<typeof CONFIG>;

/** A parse with more of its code under ERROR/MISSING nodes than this is not outlined. */
export const MAX_ERROR_SHARE = 0.05;

export const skeleton: OutputComponent<SkeletonConfig> = {
  name: 'skeleton',
  lossy: true,
  scope: 'output',
  summary: 'Source code → its outline: signatures, types and imports kept, long bodies stashed',
  defaults: CONFIG.defaults,
  parseConfig: CONFIG.parse,

  applies(o, cfg) {
    // A body of min_tokens tokens needs at least that many bytes, and a UTF-16 unit is ≤ 3 bytes.
    return cfg.languages.length > 0 && o.text.length * 3 >= Math.max(cfg.min_tokens, cfg.min_file_tokens);
  },

  async run(o, cfg, ctx): Promise<Outcome> {
    if (cfg.newest_only && !inNewestTurn(o, ctx))
      return { kind: 'skip', gate: 'not an output of the newest turn' };
    const whole = wholeFile(o, ctx.lang);
    if (whole?.kind === 'unknown')
      return { kind: 'skip', gate: `unknown language ${JSON.stringify(whole.word)}` };
    let regions: CodeRegion[];
    if (whole) {
      // Asked before the region is made: it holds a prefix per line.
      if (byteLength(o.text) > cfg.max_bytes) return { kind: 'skip', gate: 'over max_bytes' };
      regions = [wholeRegion(o.text, whole.lang)];
    } else {
      regions = fencedRegions(o.text).regions;
      if (regions.length === 0) return { kind: 'skip', gate: 'no code found' };
    }
    const enabled = regions.filter((r) => cfg.languages.includes(r.lang.name));
    if (enabled.length === 0) {
      return {
        kind: 'skip',
        gate: `language not enabled: ${[...new Set(regions.map((r) => r.lang.name))].join(', ')}`,
      };
    }

    const { addReplaced, noneReplaced, outlineRegion, replacedNote } = await import('../code/skeletonize.js');
    const pieces: string[] = [];
    let pos = 0;
    const replaced = noneReplaced();
    let short = 0;
    let linesIn = 0;
    let linesOut = 0;
    const gates: string[] = [];
    const langs = new Set<string>();
    for (const region of enabled) {
      if (byteLength(region.source) > cfg.max_bytes) {
        gates.push('over max_bytes');
        continue;
      }
      if (cfg.min_file_tokens > 0 && !(await ctx.tokens.exceeds(region.source, cfg.min_file_tokens - 1))) {
        gates.push('under min_file_tokens');
        continue;
      }
      const result = await outlineRegion(region, {
        minTokens: cfg.min_tokens,
        keepDocstrings: cfg.keep_docstrings,
        targetRatio: cfg.target_ratio,
        maxErrorShare: MAX_ERROR_SHARE,
        // Pieces, not exact counts: the decisions here need no tokenizer, so none is loaded for them.
        count: (t) => ctx.tokens.atLeast(t),
      });
      if (result.kind === 'skip') {
        gates.push(result.gate);
        continue;
      }
      pieces.push(o.text.slice(pos, region.start), result.text);
      pos = region.end;
      addReplaced(replaced, result.replaced);
      short += result.short;
      linesIn += result.linesIn;
      linesOut += result.linesOut;
      langs.add(region.lang.name);
    }
    if (langs.size === 0) return { kind: 'skip', gate: gates[0] ?? 'nothing to outline' };
    pieces.push(o.text.slice(pos));
    return {
      kind: 'rewrite',
      text: pieces.join(''),
      loss: 'whole',
      note:
        `${[...langs].join(', ')}: ${replacedNote(replaced, short)}` +
        `, kept ${linesOut} of ${linesIn} lines`,
    };
  },
};
