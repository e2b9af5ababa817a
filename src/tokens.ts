/**
 * Token counting, lazily. The tokenizer (gpt-tokenizer, ~0.4 s to load, ~8 MB/s) is imported only
 * when a decision cannot be made from bounds: a BPE token covers at least 1 and at most
 * MAX_TOKEN_BYTES bytes of UTF-8, so bytes/MAX ≤ tokens ≤ bytes; and the tokenizer first splits
 * text with a regex into pieces that no token spans, so pieces ≤ tokens (for code and prose the
 * pieces are 85–98 % of the tokens, and counting them needs only that regex, not the vocabulary).
 * Special-token text such as `<|endoftext|>` is counted as ordinary text, never rejected. Exact
 * counts are gpt-tokenizer's, in time linear in the text whatever its shape (bpe/count.ts).
 */
import type { CountFn } from './bpe/count.js';

export type TokenizerName = 'o200k' | 'cl100k';
export const TOKENIZERS: readonly TokenizerName[] = ['o200k', 'cl100k'];

/** Longest byte length of any single token in o200k_base and cl100k_base (checked by a unit test). */
export const MAX_TOKEN_BYTES = 128;

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
  /** How many exact counts were needed (for --verbose and tests of laziness). */
  readonly exactCounts: number;
}

const loaded = new Map<TokenizerName, Promise<CountFn>>();

function loadCounter(name: TokenizerName): Promise<CountFn> {
  let p = loaded.get(name);
  if (!p) {
    p = import('./bpe/count.js').then((m) => m.loadExactCounter(name));
    loaded.set(name, p);
  }
  return p;
}

const splitters = new Map<TokenizerName, Promise<RegExp>>();

function loadSplitter(name: TokenizerName): Promise<RegExp> {
  let p = splitters.get(name);
  if (!p) {
    p = import('gpt-tokenizer/encodingParams/constants').then((m) =>
      name === 'o200k' ? m.O200K_TOKEN_SPLIT_REGEX : m.CL100K_TOKEN_SPLIT_REGEX,
    );
    splitters.set(name, p);
  }
  return p;
}

/** How many pieces the tokenizer's pre-split regex cuts the text into (each is ≥ 1 token). */
async function pieceCount(name: TokenizerName, text: string): Promise<number> {
  if (text.length === 0) return 0;
  const re = new RegExp(await loadSplitter(name));
  let n = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    n++;
    // No piece is empty; should one be, step past it rather than loop on it.
    if (m[0].length === 0) re.lastIndex++;
  }
  return n;
}

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
  let exact = 0;
  const count = async (text: string): Promise<number> => {
    if (text.length === 0) return 0;
    const hit = cache.get(text);
    if (hit !== undefined) return hit;
    const fn = await loadCounter(name);
    exact++;
    const n = fn(text);
    cache.set(text, n);
    return n;
  };
  // Always the pieces, never a cached exact count: callers may measure with it, and the same
  // text must get the same figure whatever was counted before.
  const atLeast = (text: string): Promise<number> => pieceCount(name, text);
  return {
    name,
    count,
    atLeast,
    get exactCounts() {
      return exact;
    },
    async exceeds(text, limit) {
      const bytes = byteLength(text);
      if (bytes <= limit) return false;
      if (Math.ceil(bytes / MAX_TOKEN_BYTES) > limit) return true;
      if ((await atLeast(text)) > limit) return true;
      return (await count(text)) > limit;
    },
    async fewer(a, b) {
      const aBytes = byteLength(a);
      const byBytes = fewerByBytes(aBytes, byteLength(b));
      if (byBytes !== undefined) return byBytes;
      if (aBytes < (await atLeast(b))) return true;
      return (await count(a)) < (await count(b));
    },
  };
}
