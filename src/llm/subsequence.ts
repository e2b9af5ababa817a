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
