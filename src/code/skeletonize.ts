/**
 * One code region → its outline text: parse (lazily loading tree-sitter and the grammar), refuse a
 * parse that failed on too much of the code, plan the cuts (src/code/outline.ts), choose the bodies
 * to replace, and render with every kept line's own prefix. A skip carries the gate name.
 *
 * Bodies and values of at least minTokens are always replaced. When that still keeps more than
 * targetRatio of a region of TARGET_MIN_TOKENS or more, more goes, the least telling first, until
 * the outline fits or nothing is left: shorter bodies and values (longest first), then the name
 * lists of imports, then parameter lists (longest first). A big file of many small methods still
 * gets an outline that is one, and every name it declares stays.
 */
import { LineIndex } from './lines.js';
import { type Candidate, type CandidateKind, cutsOf, type Plan, plan } from './outline.js';
import { errorShare, parse } from './parser.js';
import { withoutConditionals } from './preprocessor.js';
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
  /**
   * Tokens of a text as min_tokens and targetRatio measure them: the exact count, or a lower bound
   * that tracks it (the component passes the tokenizer's pre-split pieces, which need no vocabulary).
   */
  count(text: string): Promise<number>;
}

export type RegionResult =
  | { kind: 'skip'; gate: string }
  | {
      kind: 'outline';
      text: string;
      /** How many candidates of each kind were replaced. */
      replaced: Record<CandidateKind, number>;
      /** How many of them only targetRatio replaced (under minTokens, or of a later kind). */
      short: number;
      linesIn: number;
      linesOut: number;
    };

/** Tokens the marker and hint appended by the pipeline take (≈30 for the default hint). */
const MARKER_ALLOWANCE = 32;
/** targetRatio applies from this size on: a smaller file is cheap to read with its short bodies. */
export const TARGET_MIN_TOKENS = 1000;
/** The order in which candidates below minTokens go for targetRatio: what tells least goes first. */
const STAGE: Record<CandidateKind, number> = { body: 0, value: 0, imports: 1, comment: 2, parameters: 3 };

export async function outlineRegion(region: CodeRegion, opts: RegionOptions): Promise<RegionResult> {
  const { lang, code } = region;
  const lines = new LineIndex(code);
  const parsed = await planOf(region, opts);
  if ('gate' in parsed) return { kind: 'skip', gate: parsed.gate };
  const p = parsed.plan;

  const sizes = new Map<Candidate, number>();
  const size = async (b: Candidate): Promise<number> => {
    let n = sizes.get(b);
    if (n === undefined) {
      n = await opts.count(b.text);
      sizes.set(b, n);
    }
    return n;
  };
  const chosen = new Set<Candidate>();
  for (const b of p.candidates) {
    if (STAGE[b.kind] !== 0) continue;
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
      p.candidates.filter((b) => chosen.has(b)),
    );
    return textOf(render(lines, cuts));
  };
  let text = build();

  const rest = p.candidates.filter((b) => !chosen.has(b));
  const total = opts.targetRatio < 1 && rest.length > 0 ? await opts.count(region.source) : 0;
  if (total >= TARGET_MIN_TOKENS) {
    const goal = Math.floor(total * opts.targetRatio) - MARKER_ALLOWANCE;
    let kept = await opts.count(text);
    if (kept > goal) {
      for (const b of rest) await size(b);
      rest.sort(
        (a, b) => STAGE[a.kind] - STAGE[b.kind] || sizes.get(b)! - sizes.get(a)! || a.cut.start - b.cut.start,
      );
      let next = 0;
      while (kept > goal && next < rest.length) {
        // Estimate from candidate sizes, then measure: counts of parts do not add up exactly.
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
  const replaced = noneReplaced();
  for (const b of chosen) replaced[b.kind]++;
  return {
    kind: 'outline',
    text,
    replaced,
    short: chosen.size - long,
    linesIn: lines.count,
    linesOut: text.split('\n').length,
  };
}

/**
 * Parses the region and plans its cuts. Code with C-preprocessor conditionals that parses with
 * errors is parsed again with them blanked (see preprocessor.ts), and the cleaner tree is kept. A
 * brace-language region that still fails to parse is tried once more with the brackets a cut-off end
 * leaves open closed after it (see truncated.ts); cuts past the end of the real code are clipped
 * to it, so an unfinished last function reads `f() { … }`.
 */
async function planOf(region: CodeRegion, opts: RegionOptions): Promise<{ plan: Plan } | { gate: string }> {
  const { lang, code } = region;
  let text = code;
  let tree = await parse(lang, text);
  if (!tree) return { gate: `${lang.name} parse took too long` };
  try {
    let share = errorShare(tree, text.length);
    // Offsets into the blanked code are offsets into the code: the plan reads the code itself.
    const masked = share > 0 && lang.preprocessor ? withoutConditionals(code) : undefined;
    if (masked !== undefined) {
      const retry = await parse(lang, masked);
      const again = retry ? errorShare(retry, masked.length) : 1;
      if (retry && again < share) {
        tree.delete();
        tree = retry;
        text = masked;
        share = again;
      } else {
        retry?.delete();
      }
    }
    if (share > opts.maxErrorShare && lang.placeholder === '{ … }') {
      const closers = closersFor(text, lang.quotes);
      const retry = closers ? await parse(lang, text + closers) : undefined;
      if (retry) {
        const again = errorShare(retry, text.length + closers.length);
        if (again <= opts.maxErrorShare) {
          tree.delete();
          tree = retry;
          text += closers;
          share = again;
        } else {
          retry.delete();
        }
      }
    }
    if (share > opts.maxErrorShare) {
      return { gate: `${lang.name} parse errors in ${(share * 100).toFixed(1)}% of the code` };
    }
    const p = plan(tree, new LineIndex(code + text.slice(code.length)), lang, opts.keepDocstrings);
    return { plan: text.length === code.length ? p : clip(p, code) };
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
    candidates: p.candidates
      .filter((b) => inside(b.cut))
      .map((b) => {
        const clipped = cut(b.cut);
        return {
          kind: b.kind,
          cut: clipped,
          text: code.slice(clipped.start, clipped.end),
          extra: b.extra.filter(inside).map(cut),
        };
      })
      .filter((b) => b.text.length > b.cut.text.length),
  };
}

const NOUNS: Record<CandidateKind, [string, string]> = {
  body: ['body', 'bodies'],
  value: ['value', 'values'],
  imports: ['import list', 'import lists'],
  comment: ['comment', 'comments'],
  parameters: ['parameter list', 'parameter lists'],
};

/**
 * `12 bodies, 2 parameter lists replaced (5 for target_ratio)` for --verbose: `short` of them were
 * under min_tokens or of a kind only target_ratio replaces. Bodies are always named.
 */
export function replacedNote(replaced: Readonly<Record<CandidateKind, number>>, short: number): string {
  const parts: string[] = [];
  for (const kind of Object.keys(NOUNS) as CandidateKind[]) {
    const n = replaced[kind];
    if (n === 0 && kind !== 'body') continue;
    const [one, many] = NOUNS[kind];
    parts.push(`${n} ${n === 1 ? one : many}`);
  }
  return `${parts.join(', ')} replaced${short > 0 ? ` (${short} for target_ratio)` : ''}`;
}

/** Replaced counts of nothing replaced yet. */
export function noneReplaced(): Record<CandidateKind, number> {
  return { body: 0, value: 0, imports: 0, comment: 0, parameters: 0 };
}

/** Adds replaced counts into a running total, kind by kind. */
export function addReplaced(
  into: Record<CandidateKind, number>,
  more: Readonly<Record<CandidateKind, number>>,
): void {
  for (const kind of Object.keys(into) as CandidateKind[]) into[kind] += more[kind];
}
