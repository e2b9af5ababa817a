import { decodeStreamSync, encode } from '@toon-format/toon';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unproven } from '../../../src/pipeline/lossless.js';
import { WHOLE_MAX_CHARS } from '../../../src/toon/limits.js';
import { unprovenToonDocument } from '../../../src/toon/prove.js';

/** The proof of `toon` for the JSON `json`, in runs of `chunkRows` elements. */
function why(json: string, toon: string, chunkRows = 2): string | undefined {
  return unprovenToonDocument(json, 0, json.length, toon, decodeStreamSync, chunkRows);
}

const rows = Array.from({ length: 7 }, (_, i) => ({
  id: i,
  name: `user ${i}`,
  ok: i % 2 === 0,
  score: i / 4,
}));
const json = JSON.stringify(rows);
const toon = encode(rows);
const lines = toon.split('\n');

describe('the toon proof of a JSON array', () => {
  it('accepts the library encoding of any JSON array, whatever the runs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue(), { maxLength: 12 }),
        fc.constantFrom(',', '\t', '|'),
        fc.integer({ min: 1, max: 5 }),
        (array, delimiter, chunkRows) => {
          // JSON.stringify of the parsed value: numbers as JS writes them, so the proof must accept.
          const text = JSON.stringify(JSON.parse(JSON.stringify(array)));
          const value = JSON.parse(text);
          fc.pre(!JSON.stringify(value).includes('-0'));
          expect(why(text, encode(value, { delimiter }), chunkRows)).toBeUndefined();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('accepts a table whose runs fall anywhere, in the pipeline too (more rows than one run holds)', async () => {
    for (const n of [1, 2, 3, 6, 7]) expect(why(json, toon, n)).toBeUndefined();
    const big = Array.from({ length: 5000 }, (_, i) => ({ id: i, sha: (i * 2654435761).toString(16) }));
    const text = `${JSON.stringify(big, null, 1)}\n`;
    expect(await unproven('toon', text, `${encode(big)}\n`)).toBeUndefined();
  });

  it('rejects a tampered row, in any run', () => {
    for (const i of [1, 4, 7]) {
      const tampered = lines.map((l, j) => (j === i ? l.replace('user', 'usr') : l)).join('\n');
      expect(why(json, tampered)).toBe('round trip failed');
    }
  });

  it('rejects a wrong row count in the header, a missing row, an extra row and a line after the table', () => {
    const header = (n: number) => [lines[0]?.replace('[7]', `[${n}]`), ...lines.slice(1)].join('\n');
    expect(why(json, header(6))).toBe('round trip failed');
    expect(why(json, header(8))).toBe('round trip failed');
    expect(why(json, lines.slice(0, -1).join('\n'))).toBe('round trip failed');
    expect(why(json, [...lines, lines[3]].join('\n'))).toBe('round trip failed');
    expect(why(json, `${toon}\nextra: 1`)).toBe('round trip failed');
  });

  it('rejects rows in another order, fields in another order and a row that is not the element', () => {
    const swapped = [lines[0], lines[2], lines[1], ...lines.slice(3)].join('\n');
    expect(why(json, swapped)).toBe('round trip failed');
    const reordered = encode(rows.map(({ id, name, ok, score }) => ({ name, id, ok, score })));
    expect(why(json, reordered)).toBe('round trip failed');
    const nested = JSON.stringify([
      ...rows.slice(0, 6),
      { id: 6, name: { first: 'user 6' }, ok: true, score: 1.5 },
    ]);
    expect(why(nested, toon)).toBe('round trip failed');
  });

  it('rejects an input whose numbers or keys JSON.parse would not keep, in any run, before a round-trip failure', () => {
    const last = (row: string) => json.replace(/\{[^{]*\}\]$/, `${row}]`);
    for (const n of ['1.50', '12345678901234567890', '-0', '1e2']) {
      expect(why(last(`{"id":6,"name":"user 6","ok":true,"score":${n}}`), toon)).toBe('number precision');
    }
    expect(why(last('{"id":6,"name":"user 6","name":"user 6","ok":true,"score":1.5}'), toon)).toBe(
      'duplicate or reordered keys',
    );
    const intKeys = (a: string) =>
      JSON.stringify(Array.from({ length: 3 }, () => ({ b: 1, 2: 2 }))).replace(/\{"2":2,"b":1\}/g, a);
    expect(why(intKeys('{"b":1,"2":2}'), encode(JSON.parse(intKeys('{"b":1,"2":2}'))))).toBe(
      'duplicate or reordered keys',
    );
    // A tampered first row does not hide an inexact number in the last.
    const tampered = lines.map((l, j) => (j === 1 ? l.replace('user', 'usr') : l)).join('\n');
    expect(why(last('{"id":6,"name":"user 6","ok":true,"score":1.50}'), tampered)).toBe('number precision');
  });

  it('rejects TOON that is not an array for an array, or not TOON at all', () => {
    expect(why(json, 'a: 1')).toBe('round trip failed');
    expect(why(json, '[7]{id,name,ok,score}:\n  "unterminated')).toBe('round trip failed');
    expect(why('[]', '[]')).toBeUndefined();
    expect(why('[]', '[0]:')).toBeUndefined();
    expect(why('[1]', '[]')).toBe('round trip failed');
  });
});

describe('the toon proof of an object, member by member', () => {
  const doc = { users: rows, total: 7, meta: { page: [1, 2] } };
  const text = JSON.stringify(doc);

  it('accepts the library encoding of any JSON object, whatever the runs', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }),
        fc.integer({ min: 1, max: 4 }),
        (value, chunkRows) => {
          const json = JSON.stringify(JSON.parse(JSON.stringify(value)));
          const parsed = JSON.parse(json);
          fc.pre(!json.includes('-0'));
          expect(why(json, encode(parsed), chunkRows)).toBeUndefined();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rejects a tampered, missing, extra or moved member, and a tampered row of a table member', () => {
    expect(why(text, encode(doc))).toBeUndefined();
    expect(why(text, encode({ ...doc, total: 8 }))).toBe('round trip failed');
    expect(why(text, encode({ users: rows, total: 7 }))).toBe('round trip failed');
    expect(why(text, encode({ ...doc, extra: 1 }))).toBe('round trip failed');
    expect(why(text, encode({ total: 7, users: rows, meta: doc.meta }))).toBe('round trip failed');
    expect(
      why(text, encode({ ...doc, users: rows.map((r, i) => (i === 5 ? { ...r, ok: !r.ok } : r)) })),
    ).toBe('round trip failed');
  });

  it('rejects repeated keys and array-index keys out of the order JSON.parse gives them, before a round-trip failure', () => {
    const t = JSON.stringify(rows);
    for (const json of [
      `{"t":${t},"k":1,"k":2}`,
      `{"t":${t},"b":1,"2":2}`,
      `{"2":${t},"1":1}`,
      `{"1":${t},"1":1}`,
    ]) {
      expect(why(json, encode(JSON.parse(json)))).toBe('duplicate or reordered keys');
      expect(why(json, 'x: 1')).toBe('duplicate or reordered keys');
    }
    const inOrder = `{"1":${t},"2":1,"b":true}`;
    expect(why(inOrder, encode(JSON.parse(inOrder)))).toBeUndefined();
  });

  it('rejects an inexact number in a later member, before a round-trip failure in an earlier one', () => {
    const withScore = `{"users":${json},"score":1.50}`;
    expect(why(withScore, encode({ users: rows.slice(1), score: 1.5 }))).toBe('number precision');
  });

  it('refuses a member too large to parse whole', () => {
    const large = JSON.stringify({ s: 'x'.repeat(WHOLE_MAX_CHARS) });
    expect(why(large, encode(JSON.parse(large)))).toBe('too large to prove as a whole document');
  });
});
