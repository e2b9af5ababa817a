import { describe, expect, it } from 'vitest';
import { findLanguage } from '../../../src/code/languages.js';
import { withoutConditionals } from '../../../src/code/preprocessor.js';
import { outlineRegion } from '../../../src/code/skeletonize.js';
import { wholeRegion } from '../../../src/code/sources.js';
import { createTokens } from '../../../src/tokens.js';

const tokens = createTokens('o200k');
const lines = (...l: string[]) => l.join('\n');

/** inih's shape: a branch of an `else if` chain under #if, which splits the function for the grammar. */
const SPLIT = lines(
  'int parse(const char* start, int error)',
  '{',
  "    if (*start == ';') {",
  '        error = 0;',
  '    }',
  '#if ALLOW_MULTILINE',
  "    else if (*start == ' ') {",
  '        error = continue_line(start, error, "a continuation of the previous value");',
  '    }',
  '#endif',
  "    else if (*start == '[') {",
  '        error = section(start, error, "a section header in square brackets here");',
  '    }',
  '    return error;',
  '}',
  '',
  'int after(void) { return 1; }',
  '',
);

describe('C-preprocessor conditionals', () => {
  it('are blanked to spaces with every offset and newline kept, and only directive lines', () => {
    const code = lines(
      '#if A',
      'int x; // #if in a comment',
      '  #  elif defined(B) && \\',
      '    C',
      '#endif',
      '',
    );
    const blanked = withoutConditionals(code)!;
    expect(blanked).toHaveLength(code.length);
    expect(blanked.split('\n')).toEqual([
      '     ',
      'int x; // #if in a comment',
      ' '.repeat(25),
      '     ',
      '      ',
      '',
    ]);
    expect(withoutConditionals('int x;\n#define A 1\n#include "a.h"\n')).toBeUndefined();
  });

  it('that split a statement still leave the whole function one body in the outline', async () => {
    const r = await outlineRegion(wholeRegion(SPLIT, findLanguage('c')!), {
      minTokens: 12,
      keepDocstrings: true,
      targetRatio: 1,
      maxErrorShare: 0.05,
      count: (t) => tokens.atLeast(t),
    });
    expect(r.kind === 'outline' && r.text).toBe(
      lines('int parse(const char* start, int error)', '{ … }', '', 'int after(void) { return 1; }', ''),
    );
  });
});
