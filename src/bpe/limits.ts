/**
 * What holds for every token of the vocabularies cg counts with, known without loading one: the
 * bounds (bounds.ts) and tokens.ts's byte-only decisions both rest on it.
 */

/** Longest byte length of any single token in o200k_base and cl100k_base (checked by a unit test). */
export const MAX_TOKEN_BYTES = 128;
