/**
 * One code region → its outline text: parse (lazily loading tree-sitter and the grammar), refuse a
 * parse that failed on too much of the code, plan the cuts (src/code/outline.ts), choose the bodies
 * to replace, and render with every kept line's own prefix. A skip carries the gate name.
 *
 * Bodies of at least minTokens are always replaced. When that still keeps more than targetRatio of
 * a region of TARGET_MIN_TOKENS or more, shorter bodies go too, longest first, until the outline
 * fits (or none is left): a big file of many small methods still gets an outline that is one.
 */
import { LineIndex } from './lines.js';
import { type BodyCut, cutsOf, type Plan, plan } from './outline.js';
import { errorShare, parse } from './parser.js';
import { type Cut, type OutputLine, render } from './render.js';
import type { CodeRegion } from './sources.js';
import { closersFor } from './truncated.js';

export interface RegionOptions {
  minTokens: number;
  keepDocstrings: boolean;
  /** Largest share of the region's tokens an outline should keep; 1 never replaces short bodies. */
  targetRatio: number;
  /** A parse with a larger share of its code under ERROR/MISSING nodes is left alone. */
  maxErrorShare: number;
  count(text: string): Promise<number>;
}

export type RegionResult =
  | { kind: 'skip'; gate: string }
  | { kind: 'outline'; text: string; bodies: number; short: number; linesIn: number; linesOut: number };

/** Tokens the marker and hint appended by the pipeline take (≈30 for the default hint). */
const MARKER_ALLOWANCE = 32;
/** targetRatio applies from this size on: a smaller file is cheap to read with its short bodies. */
export const TARGET_MIN_TOKENS = 1000;

export async function outlineRegion(region: CodeRegion, opts: RegionOptions): Promise<RegionResult> {
  const { lang, code } = region;
  const lines = new LineIndex(code);
  const parsed = await planOf(region, opts);
  if ('gate' in parsed) return { kind: 'skip', gate: parsed.gate };
  const p = parsed.plan;

  const sizes = new Map<BodyCut, number>();
  const size = async (b: BodyCut): Promise<number> => {
    let n = sizes.get(b);
    if (n === undefined) {
      n = await opts.count(b.text);
      sizes.set(b, n);
    }
    return n;
  };
  const chosen = new Set<BodyCut>();
  for (const b of p.bodies) {
    // A token is at least one byte: a body of fewer bytes than minTokens cannot reach it.
    if (Buffer.byteLength(b.text, 'utf8') >= opts.minTokens && (await size(b)) >= opts.minTokens)
      chosen.add(b);
  }
  const long = chosen.size;
  const textOf = (out: readonly OutputLine[]) =>
    out.map((l) => (region.prefixes[l.line] ?? '') + l.text).join('\n');
  const build = () => {
    const cuts = cutsOf(
      p,
      p.bodies.filter((b) => chosen.has(b)),
    );
    return textOf(render(lines, cuts));
  };
  let text = build();

  const rest = p.bodies.filter((b) => !chosen.has(b));
  const total = opts.targetRatio < 1 && rest.length > 0 ? await opts.count(region.source) : 0;
  if (total >= TARGET_MIN_TOKENS) {
    const goal = Math.floor(total * opts.targetRatio) - MARKER_ALLOWANCE;
    let kept = await opts.count(text);
    if (kept > goal) {
      for (const b of rest) await size(b);
      rest.sort((a, b) => sizes.get(b)! - sizes.get(a)! || a.cut.start - b.cut.start);
      let next = 0;
      while (kept > goal && next < rest.length) {
        // Estimate from body sizes, then measure: token counts of parts do not add up exactly.
        let estimate = kept;
        while (estimate > goal && next < rest.length) {
          const b = rest[next++]!;
          chosen.add(b);
          estimate -= sizes.get(b)! - 1;
        }
        text = build();
        kept = await opts.count(text);
      }
    }
  }

  if (chosen.size === 0 && p.comments.length === 0) {
    return { kind: 'skip', gate: `no ${lang.name} body of at least ${opts.minTokens} tokens` };
  }
  return {
    kind: 'outline',
    text,
    bodies: chosen.size,
    short: chosen.size - long,
    linesIn: lines.count,
    linesOut: text.split('\n').length,
  };
}

/**
 * Parses the region and plans its cuts. A brace-language region that fails to parse is tried once
 * more with the brackets a cut-off end leaves open closed after it (see truncated.ts); cuts past
 * the end of the real code are clipped to it, so an unfinished last function reads `f() { … }`.
 */
async function planOf(region: CodeRegion, opts: RegionOptions): Promise<{ plan: Plan } | { gate: string }> {
  const { lang, code } = region;
  let text = code;
  let tree = await parse(lang, text);
  if (!tree) return { gate: `${lang.name} parse took too long` };
  try {
    let share = errorShare(tree, text.length);
    if (share > opts.maxErrorShare && lang.placeholder === '{ … }') {
      const closers = closersFor(code, lang.quotes);
      const retry = closers ? await parse(lang, code + closers) : undefined;
      if (retry) {
        const again = errorShare(retry, code.length + closers.length);
        if (again <= opts.maxErrorShare) {
          tree.delete();
          tree = retry;
          text = code + closers;
          share = again;
        } else {
          retry.delete();
        }
      }
    }
    if (share > opts.maxErrorShare) {
      return { gate: `${lang.name} parse errors in ${(share * 100).toFixed(1)}% of the code` };
    }
    const p = plan(tree, new LineIndex(text), lang, opts.keepDocstrings);
    return { plan: text === code ? p : clip(p, code) };
  } finally {
    tree.delete();
  }
}

/** The plan with every cut clipped to the real code (the closers after it were only for parsing). */
function clip(p: Plan, code: string): Plan {
  // A clipped cut stops before the trailing whitespace, so a final newline stays.
  let end = code.length;
  while (end > 0 && /\s/.test(code[end - 1]!)) end--;
  const inside = (c: Cut) => c.start < end;
  const cut = (c: Cut): Cut => (c.end > end ? { ...c, end } : c);
  return {
    comments: p.comments.filter(inside).map(cut),
    bodies: p.bodies
      .filter((b) => inside(b.cut))
      .map((b) => {
        const clipped = cut(b.cut);
        return {
          cut: clipped,
          text: code.slice(clipped.start, clipped.end),
          extra: b.extra.filter(inside).map(cut),
        };
      })
      .filter((b) => b.text.length > b.cut.text.length),
  };
}
