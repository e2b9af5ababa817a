/**
 * Token counting, lazily. The tokenizer (gpt-tokenizer, ~0.4 s to load, ~8 MB/s) is imported only
 * when a decision cannot be made from byte bounds: a BPE token covers at least 1 and at most
 * MAX_TOKEN_BYTES bytes of UTF-8, so bytes/MAX ≤ tokens ≤ bytes. Special-token text such as
 * `<|endoftext|>` is counted as ordinary text, never rejected. Exact counts are gpt-tokenizer's, in
 * time linear in the text whatever its shape (bpe/count.ts).
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

export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
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
  return {
    name,
    count,
    get exactCounts() {
      return exact;
    },
    async exceeds(text, limit) {
      const bytes = byteLength(text);
      if (bytes <= limit) return false;
      if (Math.ceil(bytes / MAX_TOKEN_BYTES) > limit) return true;
      return (await count(text)) > limit;
    },
    async fewer(a, b) {
      const aBytes = byteLength(a);
      const bBytes = byteLength(b);
      if (aBytes < Math.ceil(bBytes / MAX_TOKEN_BYTES)) return true;
      if (Math.ceil(aBytes / MAX_TOKEN_BYTES) >= bBytes) return false;
      return (await count(a)) < (await count(b));
    },
  };
}
