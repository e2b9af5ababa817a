import { beforeAll, describe, expect, it } from 'vitest';
import {
  compileRegex,
  loadRe2,
  mayMatch,
  passes,
  prefilterOf,
  registerPrefilters,
  registerPrefilterTexts,
  unsupportedConstruct,
} from '../../../src/dsl/regex.js';
import { ConfigError } from '../../../src/errors.js';

const site = { file: 'f.yaml', path: 'filters.x.match' };

describe('RE2 pattern checks', () => {
  it('names look-ahead, look-behind, atomic groups and back-references', () => {
    expect(unsupportedConstruct('foo(?=bar)')).toMatch(/look-ahead/);
    expect(unsupportedConstruct('foo(?!bar)')).toMatch(/negative look-ahead/);
    expect(unsupportedConstruct('(?<=a)b')).toMatch(/look-behind/);
    expect(unsupportedConstruct('(?<!a)b')).toMatch(/negative look-behind/);
    expect(unsupportedConstruct('(?>ab)')).toMatch(/atomic/);
    expect(unsupportedConstruct('(a)\\1')).toMatch(/back-reference \(\\1\)/);
    expect(unsupportedConstruct('(?P<n>a)\\k<n>')).toMatch(/named back-reference/);
  });

  it('accepts what RE2 runs, including look-alikes inside classes and escapes', () => {
    for (const p of [
      '^\\$ pytest\\b',
      '[(?=]x',
      '\\(\\?=',
      '(?i)error',
      '(?P<name>\\w+)',
      '(?<name>\\w+)',
      '[[:alpha:]]+',
      '[]a]',
      '\\Q(?=\\E',
      '\\d{2,5}',
    ]) {
      expect(unsupportedConstruct(p), p).toBeUndefined();
    }
  });
});

describe('compileRegex', () => {
  beforeAll(loadRe2);

  it('rejects look-around with the field path, the pattern and the reason', () => {
    let err: unknown;
    try {
      compileRegex('^ok(?!.*fail)', site);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const msg = (err as Error).message;
    expect(msg).toContain('f.yaml: filters.x.match:');
    expect(msg).toContain('"^ok(?!.*fail)"');
    expect(msg).toMatch(/negative look-ahead .* RE2 does not support/);
  });

  it('rejects an invalid pattern with re2js’s reason', () => {
    expect(() => compileRegex('[unclosed', site)).toThrow(
      /f\.yaml: filters\.x\.match: pattern "\[unclosed" is not a valid RE2 regex: missing closing \]/,
    );
  });

  it('compiles with ^ and $ as line anchors and \\A as the start of the text', () => {
    expect(compileRegex('^b$', site).test('a\nb\nc')).toBe(true);
    expect(compileRegex('\\Ab', site).test('a\nb')).toBe(false);
  });

  it('compiles each distinct pattern once', () => {
    expect(compileRegex('once+', site)).toBe(compileRegex('once+', { file: 'other', path: 'p' }));
  });
});

describe('prefilters', () => {
  beforeAll(loadRe2);

  it('are the literals a match needs, as and/or of strings', () => {
    expect(prefilterOf(compileRegex('^\\$ git (-C \\S+ )*status\\b', site))).toEqual({
      and: ['$ git ', 'status'],
    });
    expect(prefilterOf(compileRegex('error|warning', site))).toEqual({ or: ['error', 'warning'] });
    expect(prefilterOf(compileRegex('\\d+', site))).toBeNull();
    expect(prefilterOf(compileRegex('(?i)error', site))).toBeNull();
  });

  it('never reject a text the regex matches', () => {
    const patterns = [
      '^\\$ (npm|pnpm) (ci|install)\\b',
      'FAIL(ED)?:? ',
      '^={3,} (\\d+ (passed|failed))',
      'a|\\d',
    ];
    const texts = [
      '$ npm ci',
      '$ pnpm install x',
      'FAILED: x',
      'FAIL y',
      '=== 3 passed',
      '==== 1 failed',
      'a',
      '7',
      'none',
    ];
    for (const p of patterns) {
      const re = compileRegex(p, site);
      const pf = prefilterOf(re);
      for (const t of texts) if (re.test(t)) expect(pf === null || passes(pf, t), `${p} on ${t}`).toBe(true);
    }
  });

  it('let a registered pattern be skipped when its literals are absent, and only then', () => {
    registerPrefilters({ 'only-registered-(x|y)': { and: ['only-registered-'] }, none: null });
    expect(mayMatch('only-registered-(x|y)', 'nothing here')).toBe(false);
    expect(mayMatch('only-registered-(x|y)', 'an only-registered-x')).toBe(true);
    expect(mayMatch('none', 'anything')).toBe(true);
    expect(mayMatch('never registered', 'anything')).toBe(true);
  });

  it('read a prefilter recorded as JSON text as the prefilter itself, null included', () => {
    registerPrefilterTexts({
      'text-(a|b)': JSON.stringify({ and: ['text-', { or: ['a', 'b'] }] }),
      'text-none': 'null',
    });
    expect(mayMatch('text-(a|b)', 'text-c')).toBe(false);
    expect(mayMatch('text-(a|b)', 'text-b')).toBe(true);
    expect(mayMatch('text-(a|b)', 'nothing')).toBe(false);
    expect(mayMatch('text-none', 'anything')).toBe(true);
    // A later record of either kind replaces the earlier one.
    registerPrefilters({ 'text-(a|b)': 'zzz' });
    expect(mayMatch('text-(a|b)', 'text-a')).toBe(false);
    registerPrefilterTexts({ 'text-(a|b)': '"text-"' });
    expect(mayMatch('text-(a|b)', 'text-a')).toBe(true);
  });
});
