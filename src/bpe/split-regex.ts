/**
 * The pre-split regexes of o200k and cl100k, as gpt-tokenizer (the pinned release) writes them in
 * gpt-tokenizer/encodingParams/constants: copied here so that finding piece bounds (pieces.ts)
 * needs no package resolved and loaded at start-up (≈ 3 ms of a compacting hook call: the package
 * exports map, its package.json, the module). The regex itself is compiled only on a first piece
 * the ASCII scanner cannot decide. Equal to the package's own (test/unit/bpe/split-regex.test.ts).
 */
import type { TokenizerName } from '../tokens.js';

export const O200K_SPLIT_SOURCE =
  "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

export const CL100K_SPLIT_SOURCE =
  "'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s+$|\\s*[\\r\\n]|\\s+(?!\\S)|\\s";

/** gpt-tokenizer's flags for both. */
export const SPLIT_FLAGS = 'gu';

/** The split regex of an encoding (a new object: a global regex carries lastIndex). */
export function splitRegex(name: TokenizerName): RegExp {
  return new RegExp(name === 'o200k' ? O200K_SPLIT_SOURCE : CL100K_SPLIT_SOURCE, SPLIT_FLAGS);
}

/**
 * The split regex's source and flags, without the regex: building it parses the Unicode classes
 * (≈ 4 ms for o200k's), which the piece scanner needs only on a piece it cannot decide itself.
 */
export function splitSource(name: TokenizerName): { source: string; flags: string } {
  return { source: name === 'o200k' ? O200K_SPLIT_SOURCE : CL100K_SPLIT_SOURCE, flags: SPLIT_FLAGS };
}
