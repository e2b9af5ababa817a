/**
 * The check that keeps a model-written filter honest: its output may only delete from the tool
 * output, never add, reorder or rewrite. Compared by Unicode code points, so deleting half of a
 * surrogate pair — or gluing two halves from different places into a character the input never had —
 * is a change, not a deletion.
 */

/**
 * Whether `result` is an in-order subsequence of `input`, compared by Unicode code points (so a
 * surrogate pair is never split or recombined into a character the input did not have). Linear time.
 * A result that is not well-formed UTF-16 (a lone surrogate) is rejected outright.
 */
export function isSubsequence(result: string, input: string): boolean {
  if (result.length > input.length) return false;
  if (!(result as string & { isWellFormed(): boolean }).isWellFormed()) return false;
  let j = 0; // index into input, in UTF-16 units, always at a code point boundary
  for (let i = 0; i < result.length; ) {
    const want = result.codePointAt(i) as number;
    const width = want > 0xffff ? 2 : 1;
    for (;;) {
      if (j >= input.length) return false;
      const have = input.codePointAt(j) as number;
      j += have > 0xffff ? 2 : 1;
      if (have === want) break;
    }
    i += width;
  }
  return true;
}

const WORD_CHAR = String.raw`[\p{L}\p{N}\p{M}_]`;

/**
 * A word, or any other single code point. A word is a run of letters, digits, marks and underscores,
 * joined through an inner apostrophe, hyphen or dot ("can't", "non-zero", "x7.txt", "0.5", "1,000"
 * between digits), with the sign of a number it starts ("-5"): cutting any of these short, or
 * dropping part of it, can turn its meaning round ("can't" → "can", "non-zero" → "zero").
 */
const TOKEN = new RegExp(
  String.raw`(?:(?<!${WORD_CHAR})[-+](?=\p{N}))?${WORD_CHAR}+(?:(?:['\u2019.\-]|(?<=\p{N}),(?=\p{N}))${WORD_CHAR}+)*|[\s\S]`,
  'gu',
);

/**
 * The stricter check extract uses: `result` must be an in-order subsequence of `input`'s tokens —
 * whole words, and single punctuation or whitespace characters — so kept text can lose words and
 * the characters between them, but no word is ever cut short ("error: can" out of "error: cannot"),
 * and none can be spelled out of letters picked from elsewhere ("passed" out of "3 failed,
 * bypassed"). Linear time.
 */
export function isTokenSubsequence(result: string, input: string): boolean {
  if (result.length > input.length) return false;
  if (!(result as string & { isWellFormed(): boolean }).isWellFormed()) return false;
  const inputTokens = input.matchAll(TOKEN);
  for (const m of result.matchAll(TOKEN)) {
    const want = m[0];
    for (;;) {
      const next = inputTokens.next();
      if (next.done) return false;
      if (next.value[0] === want) break;
    }
  }
  return true;
}
