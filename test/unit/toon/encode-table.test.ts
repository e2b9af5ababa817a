import { encode } from '@toon-format/toon';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeTable } from '../../../src/toon/encode-table.js';

const DELIMITERS = [',', '\t', '|'] as const;

/** Strings TOON must quote or escape as well as plain ones: delimiters, quotes, colons, look-alikes. */
const cell = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.constantFrom(
    '',
    ' ',
    'a,b',
    'a\tb',
    'a|b',
    '"q"',
    'k: v',
    '-x',
    '#x',
    '[1]',
    '{a}',
    'true',
    'null',
    '12',
    '1e5',
    'é ☃ 😀',
    'line\nbreak',
    '\\',
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const key = fc.oneof(
  fc.constantFrom('id', 'name', 'a b', 'x,y', 'x|y', '"k"', '1', 'é', ''),
  fc.string({ maxLength: 6 }),
);

/** A table: rows with the same keys in the same order, primitive values only. */
const table = fc
  .uniqueArray(key, { minLength: 1, maxLength: 5 })
  .chain((keys) =>
    fc
      .array(fc.tuple(...keys.map(() => cell)), { minLength: 1, maxLength: 40 })
      .map((rows) => rows.map((values) => Object.fromEntries(keys.map((k, i) => [k, values[i]])))),
  );

describe('encodeTable', () => {
  it('writes exactly the library encoding of the whole table, for any chunk size and delimiter', () => {
    fc.assert(
      fc.property(
        table,
        fc.constantFrom(...DELIMITERS),
        fc.integer({ min: 1, max: 9 }),
        fc.constantFrom(undefined, 2),
        fc.oneof(key, fc.constantFrom('items', 'a[1]', 'x: y')),
        (rows, delimiter, chunkRows, space, key) => {
          const json = JSON.stringify(rows, null, space);
          const text = `\n ${json}\n`;
          const r = encodeTable(text, 2, { minRows: 1, delimiter, chunkRows }, encode);
          if (r.kind !== 'table') throw new Error(r.kind);
          expect(r.toon.join('')).toBe(encode(JSON.parse(json), { delimiter }));
          expect(r.rows).toBe(rows.length);
          // The same rows as a root object's member: the member's lines.
          const member = encodeTable(text, 2, { minRows: 1, delimiter, chunkRows, key }, encode);
          if (member.kind !== 'table') throw new Error(member.kind);
          expect(member.toon.join('')).toBe(encode({ [key]: JSON.parse(json) }, { delimiter }));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is not a table when one row has other keys, another key order or a nested value', () => {
    const rows = (last: object) => JSON.stringify([{ a: 1, b: 2 }, { a: 3, b: 4 }, { a: 5, b: 6 }, last]);
    for (const last of [
      { a: 1 },
      { b: 2, a: 1 },
      { a: 1, b: 2, c: 3 },
      { a: [1], b: 2 },
      { a: { x: 1 }, b: 2 },
    ]) {
      const text = rows(last);
      expect(encodeTable(text, 0, { minRows: 1, delimiter: ',', chunkRows: 2 }, encode)).toEqual({
        kind: 'not a table',
      });
    }
    for (const text of ['[1,2,3]', '[[1],[2]]', '[{},{}]', '[]', '[{"a":1},2]']) {
      expect(encodeTable(text, 0, { minRows: 1, delimiter: ',', chunkRows: 2 }, encode)).toEqual({
        kind: 'not a table',
      });
    }
  });

  it('is not a table with fewer than minRows rows', () => {
    const text = JSON.stringify([{ a: 1 }, { a: 2 }]);
    expect(encodeTable(text, 0, { minRows: 3, delimiter: ',' }, encode).kind).toBe('not a table');
    expect(encodeTable(text, 0, { minRows: 2, delimiter: ',' }, encode).kind).toBe('table');
  });

  it('reports a table the library cannot write (an unpaired surrogate), whichever chunk holds it', () => {
    const rows = Array.from({ length: 9 }, (_, i) => `{"id":${i},"s":"${i === 4 ? '\\ud800' : 'ok'}"}`);
    const text = `[${rows.join(',')}]`;
    for (const chunkRows of [1, 2, 4, 100]) {
      expect(encodeTable(text, 0, { minRows: 1, delimiter: ',', chunkRows: chunkRows }, encode)).toEqual({
        kind: 'cannot encode',
      });
    }
    // …unless a later row is not a row of the table: then it is no table at all.
    const misfit = `[${rows.join(',')},{"id":9}]`;
    expect(encodeTable(misfit, 0, { minRows: 1, delimiter: ',', chunkRows: 2 }, encode)).toEqual({
      kind: 'not a table',
    });
  });
});
