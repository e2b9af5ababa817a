import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { exactPrefilter } from '../../../src/dsl/exact-prefilter.js';
import { compileRegex, loadRe2, passes } from '../../../src/dsl/regex.js';

const site = { file: 'f.yaml', path: 'filters.x.match' };
const WS = ['\t', '\n', '\f', '\r', ' '];

describe('exact-set prefilters', () => {
  beforeAll(loadRe2);

  it('multiply small sets out: a class after a literal, repeated literals, optional parts', () => {
    expect(exactPrefilter('\\A\\$ (?:\\S+=\\S* )*stat\\s')).toEqual({
      and: ['$ ', { or: WS.map((w) => `stat${w}`) }],
    });
    expect(exactPrefilter('a{2,3}b')).toEqual({ or: ['aab', 'aaab'] });
    expect(exactPrefilter('x[ab]y')).toEqual({ or: ['xay', 'xby'] });
    expect(exactPrefilter('^={5}$')).toBe('=====');
    expect(exactPrefilter('error|warning')).toEqual({ or: ['error', 'warning'] });
  });

  it('keep the strings either side of a zero-width assertion together', () => {
    expect(exactPrefilter('foo\\b bar')).toBe('foo bar');
    expect(exactPrefilter('(?:^|x)y')).toEqual({ or: ['y', 'xy'] });
  });

  it('ask for nothing where a match may hold no known text', () => {
    expect(exactPrefilter('\\d+')).toBeNull();
    expect(exactPrefilter('(?i)error')).toBeNull();
    expect(exactPrefilter('a*')).toBeNull();
    expect(exactPrefilter('x|.')).toBeNull();
    expect(exactPrefilter('[^a]')).toBeNull();
  });

  it('are undefined for what re2js refuses', () => {
    expect(exactPrefilter('(')).toBeUndefined();
  });

  it('reject no text the regex matches', () => {
    const patterns = [
      'stat\\s',
      '\\A\\$ (?:\\S+=\\S* )*stat\\s|\\A(?:\\$ [^\\n]*\\n)?\\s+File: [^\\n]+\\n\\s+Size: \\d+',
      '-{3}|={2,}',
      'a[ab]{2}b',
      '^a|b$',
      '\\Aa?b\\z',
      '(?:ab|ba)+x',
      'a\\bb|a\\B-',
      '(a|b)(c|d)?e',
      '[.ab]+\\n(?:-{4}|={4})\\n',
      '(?:x|y){2}\\s?z',
      '\\$ \\S+ (?:-m a|b\\.c)\\b',
    ];
    const parts = ['a', 'b', 'c', 'd', 'e', 'x', 'y', 'z', '-', '=', '.', '$ ', 'stat', 'File: ', 'Size: 1'];
    const text = fc
      .array(fc.constantFrom(...parts, ...WS, 'm', '-m a', 'b.c', '\u00e9'), { maxLength: 24 })
      .map((p) => p.join(''));
    for (const p of patterns) {
      const pf = exactPrefilter(p);
      expect(pf, p).not.toBeUndefined();
      if (pf === null || pf === undefined) continue;
      const re = compileRegex(p, site);
      fc.assert(
        fc.property(text, (t) => {
          if (re.test(t)) expect(passes(pf, t), `${p} on ${JSON.stringify(t)}`).toBe(true);
        }),
        { numRuns: 2000 },
      );
    }
  });
});
