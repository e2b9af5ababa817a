import { describe, expect, it } from 'vitest';
import { DEFAULT_HINT, hasMarker, hint, marker, markerKeys, parseKeys } from '../../../src/store/marker.js';

const K1 = '0123456789abcdef';
const K2 = 'fedcba9876543210';

describe('marker and hint', () => {
  it('formats a marker as <<cg:KEY>>', () => {
    expect(marker(K1)).toBe(`<<cg:${K1}>>`);
  });

  it('fills the default hint with the key and no extra arguments', () => {
    expect(hint(DEFAULT_HINT, K1)).toBe(` [full output: cg expand ${K1}]`);
  });

  it('puts extra arguments after the key with a separating space', () => {
    expect(hint(DEFAULT_HINT, K1, '--store /tmp/s')).toBe(` [full output: cg expand ${K1} --store /tmp/s]`);
  });

  it('supports a custom template such as an MCP tool name', () => {
    expect(hint(' [call cg_expand("{key}")]', K1)).toBe(` [call cg_expand("${K1}")]`);
  });
});

describe('hasMarker and markerKeys', () => {
  it('detects a marker inside surrounding text', () => {
    expect(hasMarker(`before ${marker(K1)} after`)).toBe(true);
  });

  it('does not mistake a near-marker for a marker', () => {
    expect(hasMarker('<<cg:0123>>')).toBe(false);
    expect(hasMarker(`<<cg:${K1.toUpperCase()}>>`)).toBe(false);
    expect(hasMarker('no marker here')).toBe(false);
  });

  it('lists distinct marker keys in order of first appearance', () => {
    expect(markerKeys(`${marker(K2)} x ${marker(K1)} y ${marker(K2)}`)).toEqual([K2, K1]);
  });
});

describe('parseKeys', () => {
  it.each([
    ['a bare key', K1],
    ['the full marker', `<<cg:${K1}>>`],
    ['cg:KEY', `cg:${K1}`],
    ['<cg:KEY>', `<cg:${K1}>`],
    ['upper-case hex', K1.toUpperCase()],
    ['an upper-case marker', `<<CG:${K1.toUpperCase()}>>`],
    ['a marker inside text', `lines dropped <<cg:${K1}>> [full output: cg expand ${K1}]`],
    ['surrounding whitespace', `  ${K1}\n`],
    ['JSON with a marker field', JSON.stringify({ marker: `<<cg:${K1}>>` })],
    ['JSON with an id field', JSON.stringify({ id: K1 })],
    ['JSON with a key field', JSON.stringify({ key: `cg:${K1}` })],
  ])('reads %s as that key in lower case', (_name, input) => {
    expect(parseKeys(input)).toEqual({ ok: true, keys: [K1] });
  });

  it('reads several keys in order without duplicates', () => {
    expect(parseKeys(`${K2} ${K1}, ${K2.toUpperCase()}`)).toEqual({ ok: true, keys: [K2, K1] });
    expect(parseKeys(`a <<cg:${K2}>> b <<cg:${K1}>> c <<cg:${K2}>>`)).toEqual({ ok: true, keys: [K2, K1] });
  });

  it.each([
    ['a path traversal', '../../etc/passwd'],
    ['a short cg: form', 'cg:zz'],
    ['a marker with too few digits', '<<cg:0123>>'],
    ['a bare key with a non-hex letter', '0123456789abcdeg'],
    ['a valid key next to an invalid one', `${K1} ../../etc/passwd`],
  ])('refuses %s rather than guessing', (_name, input) => {
    const r = parseKeys(input);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/not a cg key/);
  });

  it.each([
    ['a bare token', (t: string) => t],
    ['a marker-like form', (t: string) => `<<cg:${t}>>`],
  ])('echoes only a short excerpt of a huge bogus key given as %s', (_name, wrap) => {
    const bogus = 'x'.repeat(100_000);
    const r = parseKeys(wrap(bogus));
    expect(r.ok).toBe(false);
    const reason = (r as { reason: string }).reason;
    expect(reason.length).toBeLessThan(120);
    expect(reason).toMatch(/^not a cg key: ".*…" \(\d+ characters\) \(expected 16 hex digits\)$/);
  });

  it('refuses empty input', () => {
    expect(parseKeys('   \n')).toEqual({ ok: false, reason: 'no key given' });
  });

  it('refuses JSON that has none of marker, id or key', () => {
    const r = parseKeys('{"name": "x"}');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/"marker", "id" or "key"/);
  });
});
