import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it } from 'vitest';
import { splitRegex, splitSource } from '../../../src/bpe/split-regex.js';

describe('the split regexes cg carries', () => {
  it("are gpt-tokenizer's own, source and flags", () => {
    for (const [name, theirs] of [
      ['o200k', O200K_TOKEN_SPLIT_REGEX],
      ['cl100k', CL100K_TOKEN_SPLIT_REGEX],
    ] as const) {
      const ours = splitRegex(name);
      expect(ours.source, name).toBe(theirs.source);
      expect(ours.flags, name).toBe(theirs.flags);
      // What the piece scanner gets instead of the regex (built only when it needs one).
      expect(splitSource(name), name).toEqual({ source: theirs.source, flags: theirs.flags });
    }
  });
});
