import { encode } from '@toon-format/toon';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeMembers } from '../../../src/toon/encode-members.js';

const cell = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.constantFrom('', 'a,b', 'a|b', 'k: v', '-x', 'true', '12', 'é 😀'),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);
const table = fc
  .uniqueArray(fc.constantFrom('id', 'name', 'a b', 'x,y', '"k"', 'é'), { minLength: 1, maxLength: 4 })
  .chain((keys) =>
    fc
      .array(fc.tuple(...keys.map(() => cell)), { minLength: 1, maxLength: 12 })
      .map((rows) => rows.map((values) => Object.fromEntries(keys.map((k, i) => [k, values[i]])))),
  );
const memberValue = fc.oneof(table, table, fc.jsonValue({ maxDepth: 3 }), cell);
const memberKey = fc.oneof(
  fc.constantFrom('items', 'total', 'a b', 'x[1]', '__proto__', ''),
  fc.string({ maxLength: 5 }),
);

/** An object's text written member by member, so that keys may repeat. */
function objectText(members: Array<[string, unknown]>, space: string): string {
  return `{${members.map(([k, v]) => `${space}${JSON.stringify(k)}:${space}${JSON.stringify(v)}`).join(`,${space}`)}${space}}`;
}

describe('encodeMembers', () => {
  it('writes exactly the library encoding of the whole object, or stands aside for the whole-document path', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(memberKey, memberValue), { maxLength: 6 }),
        fc.constantFrom(',', '\t', '|'),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom('', ' ', '\n  '),
        (members, delimiter, chunkRows, space) => {
          const text = objectText(members, space);
          const r = encodeMembers(text, 0, { minRows: 2, delimiter, chunkRows }, encode);
          const keys = members.map(([k]) => k);
          const asWritten = new Set(keys).size === keys.length && !keys.some((k) => /^(0|[1-9]\d*)$/.test(k));
          if (r.kind === 'members') {
            expect(asWritten).toBe(true);
            expect(r.toon.join('')).toBe(encode(JSON.parse(text), { delimiter }));
          } else {
            expect(r.kind).toBe('whole');
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('counts the tables of every member, nested ones included', () => {
    const rows = [{ a: 1 }, { a: 2 }];
    const text = JSON.stringify({ t: rows, n: { u: rows, v: [rows] }, s: 'x' });
    const r = encodeMembers(text, 0, { minRows: 2, delimiter: ',' }, encode);
    expect(r).toMatchObject({ kind: 'members', tables: 3 });
  });

  it('stands aside for an object without a table member, a repeated key or an array-index key', () => {
    const rows = JSON.stringify([{ a: 1 }, { a: 2 }]);
    for (const text of ['{"a":1,"b":{"c":[1]}}', `{"t":${rows},"t":1}`, `{"t":${rows},"7":1}`, '{}']) {
      expect(encodeMembers(text, 0, { minRows: 2, delimiter: ',' }, encode)).toEqual({ kind: 'whole' });
    }
  });

  it('reports a document holding a table that the library cannot write, wherever the bad string is', () => {
    const rows = JSON.stringify([{ a: 1 }, { a: 2 }]);
    for (const text of [`{"s":"\\ud800","t":${rows}}`, `{"t":${rows.replace('1', '"\\ud800"')}}`]) {
      expect(encodeMembers(text, 0, { minRows: 2, delimiter: ',' }, encode)).toEqual({
        kind: 'cannot encode',
      });
    }
  });
});
