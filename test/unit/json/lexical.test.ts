import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  closingQuote,
  scanLiteral,
  scanNumber,
  scanString,
  stringFailure,
} from '../../../src/json/lexical.js';

const accepts = (literal: string) => {
  try {
    JSON.parse(literal);
    return true;
  } catch {
    return false;
  }
};

describe('JSON tokens', () => {
  it('scanString accepts exactly the string literals JSON.parse accepts', () => {
    const piece = fc.constantFrom(
      'a',
      'é',
      '\\n',
      '\\u00e9',
      '\\u00g9',
      '\\q',
      '\\',
      '"',
      '\n',
      '\t',
      '\\"',
      '/',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const literal = `"${pieces.join('')}"`;
        const end = scanString(literal, 0);
        if (accepts(literal)) expect(end).toBe(literal.length);
        else expect(end === literal.length).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('says where and why a string is not JSON', () => {
    expect(stringFailure('"ok \\q"', 0)).toEqual({ at: 5, problem: 'escape' });
    expect(stringFailure('"\\u12x4"', 0)).toEqual({ at: 1, problem: 'unicode' });
    expect(stringFailure('"a\nb"', 0)).toEqual({ at: 2, problem: 'control' });
    expect(stringFailure('"open', 0)).toEqual({ at: 5, problem: 'unterminated' });
  });

  it('closingQuote skips quotes escaped by an odd run of backslashes only', () => {
    expect(closingQuote('"a\\"b"', 0)).toBe(5);
    expect(closingQuote('"a\\\\"b"', 0)).toBe(4);
    expect(closingQuote('"open', 0)).toBe(-1);
  });

  it('scanNumber and scanLiteral end where JSON.parse would stop reading', () => {
    expect(scanNumber('-12.5e+3,', 0)).toBe(8);
    expect(scanNumber('01', 0)).toBe(1);
    expect(scanNumber('-x', 0)).toBe(~1);
    expect(scanNumber('1.', 0)).toBe(~2);
    expect(scanLiteral('nul', 0)).toBe(~3);
    expect(scanLiteral('false]', 0)).toBe(5);
  });
});
