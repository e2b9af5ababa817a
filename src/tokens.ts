/**
 * Token counting, lazily. The tokenizer (gpt-tokenizer: its rank table takes ~0.2–0.4 s to load,
 * and it counts ~8 MB/s) is imported only when a decision cannot be made from bounds:
 *   - bytes: a BPE token covers at least 1 and at most MAX_TOKEN_BYTES bytes of UTF-8, so
 *     bytes/MAX ≤ tokens ≤ bytes;
 *   - pieces (bpe/bounds.ts): the tokenizer first splits text into pieces that no token spans, and
 *     encodes each alone: each piece is at least one token, and at most its bytes — exactly one
 *     when it is a piece known to be a single token in both vocabularies (every ASCII character,
 *     1–3 digits, the common pieces of bpe/single-tokens.ts). Finding the pieces needs only the
 *     split rule (bpe/pieces.ts), not the vocabulary; for code, logs and prose the bounds are
 *     within a few per cent of the count, so most decisions need no count at all.
 *   - deletions (bpe/deletions.ts): when one text is the other with some whitespace deleted (format's
 *     rewrite), their difference is counted only around the deletions, never over either whole text.
 * Every decision is exact: the bounds only ever answer when they prove the answer the counts
 * would give (test/unit/bpe/bounds.property.test.ts). Special-token text such as `<|endoftext|>`
 * is counted as ordinary text, never rejected. Exact counts are gpt-tokenizer's, in time linear in
 * the text whatever its shape (bpe/count.ts).
 */
import type { PieceBounds } from './bpe/bounds.js';
import type { ExactCounter } from './bpe/count.js';
import { MAX_TOKEN_BYTES } from './bpe/limits.js';
import type { PieceScanner } from './bpe/pieces.js';

export type TokenizerName = 'o200k' | 'cl100k';
export const TOKENIZERS: readonly TokenizerName[] = ['o200k', 'cl100k'];

export { MAX_TOKEN_BYTES };

/**
 * The one guess of a token's size, 4 UTF-8 bytes, for where a count cannot be made (the ledger's
 * texts gone) or would cost more than it decides (loading the tokenizer to skip a small output).
 * Never a bound: code and diffs run about 3 bytes a token.
 */
export const ESTIMATED_BYTES_PER_TOKEN = 4;

/** Estimated tokens for `bytes` UTF-8 bytes; wherever shown, flagged as an estimate. */
export function estimateTokens(bytes: number): number {
  return Math.ceil(bytes / ESTIMATED_BYTES_PER_TOKEN);
}

/** About how many UTF-8 bytes `tokens` tokens take (the same guess, the other way). */
export function estimatedBytes(tokens: number): number {
  return tokens * ESTIMATED_BYTES_PER_TOKEN;
}

export interface Tokens {
  readonly name: TokenizerName;
  /** Exact token count (loads the tokenizer on first use). */
  count(text: string): Promise<number>;
  /** Whether tokens(text) > limit, from byte bounds when they decide. */
  exceeds(text: string, limit: number): Promise<boolean>;
  /** Whether tokens(a) < tokens(b), from byte bounds when they decide. */
  fewer(a: string, b: string): Promise<boolean>;
  /**
   * A lower bound on tokens(text), the same for the same text: its pre-split pieces, counted
   * without loading the tokenizer.
   */
  atLeast(text: string): Promise<number>;
  /**
   * An upper bound on tokens(text), the same for the same text: its pieces, each counted 1 when it
   * is known to be one token and its bytes otherwise, without loading the tokenizer.
   */
  atMost(text: string): Promise<number>;
  /** Lower and upper bounds on tokens(text) from its pieces (both at once: one pass). */
  bounds(text: string): Promise<PieceBounds>;
  /** Whether text has more than n pre-split pieces (so more than n tokens), scanning no further than that takes. */
  piecesAbove(text: string, n: number): Promise<boolean>;
  /**
   * Whether the text `parts` join into has more than n pre-split pieces (so more than n tokens),
   * without that text ever existing whole and without keeping any part: each part's pieces are
   * counted, less one per join (cutting a text adds at most one piece: the one the cut falls in
   * becomes two), scanning no
   * further than that takes.
   */
  partsAbove(parts: Iterable<string>, n: number): Promise<boolean>;
  /** How many exact counts were needed (for --verbose and tests of laziness). */
  readonly exactCounts: number;
  /** The exact count already made of text, if one was (never counts: for stats, after a run). */
  known(text: string): number | undefined;
  /**
   * A run is over: what was remembered for it alone (how many pieces the texts it scanned have at
   * least) is let go of, so a long-lived counter keeps no run's originals alive by it.
   */
  endRun?(): void;
}

const loaded = new Map<TokenizerName, Promise<ExactCounter>>();

function loadCounter(name: TokenizerName): Promise<ExactCounter> {
  let p = loaded.get(name);
  if (!p) {
    p = import('./bpe/count.js').then((m) => m.loadExactCounter(name));
    loaded.set(name, p);
  }
  return p;
}

const scanners = new Map<TokenizerName, Promise<PieceScanner>>();

/** The pre-split of the named encoding: its regex (bpe/split-regex.ts) and the fast scanner over it. */
function loadScanner(name: TokenizerName): Promise<PieceScanner> {
  let p = scanners.get(name);
  if (!p) {
    p = Promise.all([import('./bpe/split-regex.js'), import('./bpe/pieces.js')]).then(
      ([{ splitSource }, { PieceScanner }]) => new PieceScanner(name, splitSource(name)),
    );
    scanners.set(name, p);
  }
  return p;
}

const NO_PIECES: PieceBounds = { pieces: 0, lower: 0, upper: 0 };

/**
 * Texts longer than this (UTF-16 units) are not bounded piece by piece: on them a pass over the
 * pieces costs about what counting costs, so only the cheaper shortcuts are tried before a count.
 */
export const BOUNDS_MAX_CHARS = 1 << 18;

/**
 * Below this many UTF-16 units a text's byte length is measured each time it is asked for; above,
 * the last few answers are kept. The pipeline asks about the same large output many times (each
 * stage's gate, the component's size gate, never-worse, the event), and each answer is a pass over
 * the whole text: six passes over a 100 MB log before this.
 */
const MEASURE_ALWAYS_BELOW = 1 << 16;
/** How many large texts' lengths are kept: each entry holds its text alive, so few. */
const KEPT_LENGTHS = 2;
const keptTexts: string[] = [];
const keptBytes: number[] = [];

/**
 * A text's UTF-8 length. A large text is measured once: the answer is kept by the text (`===` on
 * the same string is a pointer comparison; on an equal copy it is equal content, the same answer).
 */
export function byteLength(text: string): number {
  if (text.length < MEASURE_ALWAYS_BELOW) return Buffer.byteLength(text, 'utf8');
  const at = keptTexts.indexOf(text);
  if (at !== -1) return keptBytes[at]!;
  const bytes = Buffer.byteLength(text, 'utf8');
  keepByteLength(text, bytes);
  return bytes;
}

/**
 * Tells byteLength what a text decoded from bytes measures (the caller holds those bytes), so not
 * even one pass is spent on it. `bytes` must be exactly text's UTF-8 length.
 */
export function keepByteLength(text: string, bytes: number): void {
  if (text.length < MEASURE_ALWAYS_BELOW || keptTexts.includes(text)) return;
  keptTexts.unshift(text);
  keptBytes.unshift(bytes);
  keptTexts.length = Math.min(keptTexts.length, KEPT_LENGTHS);
  keptBytes.length = keptTexts.length;
}

/**
 * Whether a text of aBytes has fewer tokens than one of bBytes, when the byte bounds alone decide
 * (a's most tokens below b's fewest, or a's fewest at or above b's most); undefined when only a
 * count can tell.
 */
export function fewerByBytes(aBytes: number, bBytes: number): boolean | undefined {
  if (aBytes < Math.ceil(bBytes / MAX_TOKEN_BYTES)) return true;
  if (Math.ceil(aBytes / MAX_TOKEN_BYTES) >= bBytes) return false;
  return undefined;
}

export function createTokens(name: TokenizerName = 'o200k'): Tokens {
  const cache = new Map<string, number>();
  const bounded = new Map<string, PieceBounds>();
  /** Large texts known to have at least this many pieces (a scan that stopped once it had them). */
  const piecesSeen = new Map<string, number>();
  /**
   * The same for the smaller texts of the run under way: a component asks whether an output has
   * more than min_tokens pieces, and the never-worse gate then asks again, for each of a first
   * sight's 17,000 outputs (src/pipeline/never-worse.ts). Emptied when the run ends (endRun).
   */
  const runSeen = new Map<string, number>();
  let exact = 0;
  const count = async (text: string): Promise<number> => {
    if (text.length === 0) return 0;
    const hit = cache.get(text);
    if (hit !== undefined) return hit;
    const counter = await loadCounter(name);
    exact++;
    const n = await counter.count(text);
    cache.set(text, n);
    return n;
  };
  // Always from the pieces, never from a cached exact count: callers may measure with them, and
  // the same text must get the same figure whatever was counted before.
  const bounds = async (text: string): Promise<PieceBounds> => {
    if (text.length === 0) return NO_PIECES;
    const hit = bounded.get(text);
    if (hit) return hit;
    const [scanner, { pieceBounds }] = await Promise.all([loadScanner(name), import('./bpe/bounds.js')]);
    const b = pieceBounds(text, scanner);
    bounded.set(text, b);
    return b;
  };
  /** Whether text has more than n pieces, scanning only as far as it takes. */
  const scanPiecesAbove = async (text: string, n: number): Promise<boolean> => {
    if (text.length <= n) return false;
    // The pipeline asks again what a component just asked (toon's check, then never-worse).
    const large = text.length > BOUNDS_MAX_CHARS;
    const seen = (large ? piecesSeen : runSeen).get(text);
    if (seen !== undefined && seen > n) return true;
    const scanner = await loadScanner(name);
    let pieces = 0;
    for (let i = 0; i < text.length; i = scanner.end(text, i))
      if (++pieces > n) {
        (large ? piecesSeen : runSeen).set(text, pieces);
        return true;
      }
    return false;
  };
  /**
   * Whether text has more than n pieces (so more than n tokens), scanning only as far as it takes.
   * Worth trying only where it may succeed early: a piece is at least one UTF-16 unit, and prose,
   * code and logs have three or more to the piece.
   */
  const piecesAbove = async (text: string, n: number): Promise<boolean> => {
    if (text.length <= n) return false;
    const known = bounded.get(text);
    if (known) return known.pieces > n;
    if (n * 4 > text.length && text.length > BOUNDS_MAX_CHARS) return false;
    return scanPiecesAbove(text, n);
  };
  return {
    name,
    count,
    bounds,
    atLeast: async (text) => (await bounds(text)).pieces,
    atMost: async (text) => (await bounds(text)).upper,
    get exactCounts() {
      return exact;
    },
    known: (text) => (text.length === 0 ? 0 : cache.get(text)),
    endRun: () => runSeen.clear(),
    async exceeds(text, limit) {
      const bytes = byteLength(text);
      if (bytes <= limit) return false;
      if (Math.ceil(bytes / MAX_TOKEN_BYTES) > limit) return true;
      if (await piecesAbove(text, limit)) return true;
      if (text.length <= BOUNDS_MAX_CHARS && (await bounds(text)).upper <= limit) return false;
      return (await count(text)) > limit;
    },
    async fewer(a, b) {
      const aBytes = byteLength(a);
      const byBytes = fewerByBytes(aBytes, byteLength(b));
      if (byBytes !== undefined) return byBytes;
      if (await piecesAbove(b, aBytes)) return true;
      if (a.length < b.length) {
        // A whitespace deletion (format's rewrite) is counted only where it deleted (bpe/deletions.ts),
        // first from its stretches' bounds alone: a large pretty document then never loads the
        // vocabulary (10 MB resident, when nothing else in the run needs an exact count).
        const [{ deletionDelta }, scanner, { pieceBounds }] = await Promise.all([
          import('./bpe/deletions.js'),
          loadScanner(name),
          import('./bpe/bounds.js'),
        ]);
        const most = deletionDelta(
          b,
          a,
          (t) => pieceBounds(t, scanner).lower,
          (t) => pieceBounds(t, scanner).upper,
        );
        if (most !== undefined) {
          if (most < 0) return true;
          const counter = await loadCounter(name);
          const d = deletionDelta(b, a, (t) => counter.countNow(t));
          if (d !== undefined) {
            exact++;
            return d < 0;
          }
        }
      }
      if (a.length <= BOUNDS_MAX_CHARS && b.length <= BOUNDS_MAX_CHARS) {
        const [ab, bb] = await Promise.all([bounds(a), bounds(b)]);
        if (ab.upper < bb.lower) return true;
        if (ab.lower >= bb.upper) return false;
      }
      const na = await count(a);
      // b's pieces bound its tokens from below: when it has more of them than a has tokens, a is
      // fewer, found by scanning b's pieces only as far as that (a third of what counting b costs).
      if (b.length > BOUNDS_MAX_CHARS && !cache.has(b) && (await scanPiecesAbove(b, na))) return true;
      return na < (await count(b));
    },
    piecesAbove,
    async partsAbove(parts, n) {
      const scanner = await loadScanner(name);
      let pieces = 1; // the first part has no join before it
      for (const part of parts) {
        pieces--;
        for (let i = 0; i < part.length; i = scanner.end(part, i)) if (++pieces > n) return true;
      }
      return false;
    },
  };
}
