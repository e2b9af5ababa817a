import { describe, expect, it } from 'vitest';
import { keysInText } from '../../../src/commands/expand.js';

const A = '0123456789abcdef';
const B = 'fedcba9876543210';

describe('keys in piped text', () => {
  it('finds every marker form in surrounding text and ignores the rest, "cg:" and bad keys included', () => {
    expect(
      keysInText(`the cg: tool\n<<cg:${A}>> [full output: cg expand ${A}]\nsee cg:${B}, cg:zz\n`),
    ).toEqual([A, B]);
    expect(keysInText(`<cg:${A.toUpperCase()}> and <<cg:${A}>> again`)).toEqual([A]);
  });

  it('does not take 16 hex digits inside a longer word for a marker', () => {
    expect(keysInText(`cg:${A}00 is a 18-digit id`)).toBeUndefined();
  });

  it('reads text that is only keys, or a JSON key object, as those keys', () => {
    expect(keysInText(`${A}\n${B.toUpperCase()}, ${A}\n`)).toEqual([A, B]);
    expect(keysInText(JSON.stringify({ key: `<<cg:${B}>>` }))).toEqual([B]);
  });

  it('finds nothing in text without a marker, even beside a bare key in prose', () => {
    expect(keysInText('no markers here\n')).toBeUndefined();
    expect(keysInText(`commit ${A} fixed it`)).toBeUndefined();
    expect(keysInText('')).toBeUndefined();
  });
});
