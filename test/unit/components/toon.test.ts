import { readdirSync, readFileSync } from 'node:fs';
import { decode, encode } from '@toon-format/toon';
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../../src/component.js';
import { format } from '../../../src/components/format.js';
import { type ToonConfig, toon } from '../../../src/components/toon.js';
import { compactText } from '../../../src/engine.js';
import { sameJson, unproven } from '../../../src/pipeline/lossless.js';
import { createTokens } from '../../../src/tokens.js';
import { WHOLE_MAX_CHARS } from '../../../src/toon/limits.js';
import { context, corpusPath, HAS_CORPUS, output } from '../../helpers.js';

const cfg = toon.defaults;

async function run(text: string, config: ToonConfig = cfg): Promise<Outcome> {
  return toon.run(output(text), config, context());
}

/** What the pipeline's proof says of toon's rewrite of text (undefined: proven). */
async function unprovenRewrite(text: string): Promise<string | undefined> {
  const r = await run(text);
  if (r.kind !== 'rewrite') return `skipped: ${r.gate}`;
  return unproven(r.proof, text, r.text);
}

const users = {
  users: [
    { id: 1, name: 'Ada Lovelace', role: 'admin', active: true },
    { id: 2, name: 'Bob, Jr.', role: 'user', active: false },
    { id: 3, name: 'Carol', role: 'user', active: true },
    { id: 4, name: 'Dan', role: 'guest', active: null },
  ],
  total: 4,
};

describe('toon', () => {
  it('rewrites JSON holding a uniform array of flat objects as a TOON table', async () => {
    const r = await run(JSON.stringify(users, null, 2) + '\n');
    expect(r).toEqual({
      kind: 'rewrite',
      loss: 'none',
      proof: 'toon',
      note: 'json → toon (1 table)',
      text: [
        'users[4]{id,name,role,active}:',
        '  1,Ada Lovelace,admin,true',
        '  2,"Bob, Jr.",user,false',
        '  3,Carol,user,true',
        '  4,Dan,guest,null',
        'total: 4',
        '',
      ].join('\n'),
    });
  });

  it('round-trips: decoding the TOON gives back the parsed JSON', async () => {
    const r = await run(JSON.stringify(users));
    if (r.kind !== 'rewrite') throw new Error(r.gate);
    expect(sameJson(decode(r.text), users)).toBe(true);
  });

  it('uses the configured delimiter', async () => {
    const r = await run(JSON.stringify(users), { ...cfg, delimiter: '|' });
    if (r.kind !== 'rewrite') throw new Error(r.gate);
    expect(r.text.split('\n')[0]).toBe('users[4|]{id|name|role|active}:');
    expect(r.text).toContain('  2|Bob, Jr.|user|false');
    expect(sameJson(decode(r.text), users)).toBe(true);
  });

  it('cannot get a rewrite past the pipeline when a number would change its written form', async () => {
    for (const n of ['12345678901234567890', '1.0', '1e5', '-0', '1E+2', '0.10']) {
      const text = `[{"a":${n},"b":1},{"a":2,"b":1},{"a":3,"b":1}]`;
      expect(await unprovenRewrite(text)).toBe('number precision');
    }
  });

  it('cannot get a rewrite past the pipeline when parsing drops duplicate keys or reorders integer-like keys', async () => {
    const rows = JSON.stringify(Array.from({ length: 10 }, (_, i) => ({ alpha: i, beta: 'x', gamma: true })));
    expect(await unprovenRewrite(`{"t":${rows},"k":1,"k":2}`)).toBe('duplicate or reordered keys');
    expect(await unprovenRewrite(`{"t":${rows},"b":1,"2":2}`)).toBe('duplicate or reordered keys');
  });

  it('accepts string escapes, which only change spelling, not value', async () => {
    const text = JSON.stringify(users).replace('Carol', 'Car\\u00f6l');
    const r = await run(text);
    if (r.kind !== 'rewrite') throw new Error(r.gate);
    expect(r.text).toContain('  3,Caröl,user,true');
  });

  it('skips arrays that are not uniform tables', async () => {
    const cases = [
      '[{"a":1,"b":2},{"a":1},{"a":1,"b":2}]', // different keys
      '[{"a":1,"b":2},{"b":2,"a":1},{"a":1,"b":2}]', // different key order
      '[{"a":{"x":1}},{"a":{"x":2}},{"a":{"x":3}}]', // nested values
      '[{"a":1},{"a":2}]', // fewer than min_rows
      '[1,2,3,4]',
      '{"a":1,"b":"x"}',
    ];
    for (const text of cases) expect(await run(text)).toEqual({ kind: 'skip', gate: 'no uniform array' });
  });

  it('honours min_rows', async () => {
    expect((await run(JSON.stringify(users), { ...cfg, min_rows: 5 })).kind).toBe('skip');
  });

  it('skips text that is not one JSON value', async () => {
    for (const text of ['{ not json }', 'log\n[{"a":1},{"a":2},{"a":3}]', '[{"a":1}] tail', '']) {
      expect(await run(text)).toEqual({ kind: 'skip', gate: 'not json' });
    }
  });

  it('skips when TOON is not fewer tokens than compact JSON', async () => {
    // Numeric-looking strings must be quoted in TOON, which eats the saving.
    const text = '[{"a":"1"},{"a":"2"},{"a":"3"}]';
    expect(await run(text)).toEqual({ kind: 'skip', gate: 'not smaller' });
  });

  it('skips strings TOON cannot write (an unpaired surrogate)', async () => {
    const rows = Array.from({ length: 5 }, (_, i) => `{"id":${i},"s":"${i === 2 ? '\\ud800' : 'ok'}"}`);
    expect(await run(`[${rows.join(',')}]`)).toEqual({ kind: 'skip', gate: 'toon cannot encode' });
  });

  it('skips outputs with fewer tokens than min_tokens', async () => {
    expect(await run(JSON.stringify(users), { ...cfg, min_tokens: 10_000 })).toEqual({
      kind: 'skip',
      gate: 'below min_tokens',
    });
  });

  it('is idempotent: its own output is not JSON, so a second run skips', async () => {
    const r = await run(JSON.stringify(users, null, 2));
    if (r.kind !== 'rewrite') throw new Error(r.gate);
    expect(await run(r.text)).toEqual({ kind: 'skip', gate: 'not json' });
  });

  it('rewrites a table larger than the whole-document bound, with the bytes of encoding it whole', async () => {
    const rows = Array.from({ length: 60_000 }, (_, i) => ({
      id: i,
      name: `user ${i}`,
      note: 'x'.repeat(i % 90),
    }));
    const text = `${JSON.stringify(rows, null, 1)}\n`;
    expect(text.length).toBeGreaterThan(WHOLE_MAX_CHARS);
    const r = await run(text);
    if (r.kind !== 'rewrite') throw new Error(r.gate);
    expect(r.text).toBe(`${encode(rows)}\n`);
    expect(await unproven(r.proof, text, r.text)).toBeUndefined();
  });

  it('rewrites an object holding such a table among its members, with the bytes of encoding it whole', async () => {
    const rows = Array.from({ length: 60_000 }, (_, i) => ({
      id: i,
      name: `user ${i}`,
      note: 'x'.repeat(i % 90),
    }));
    const doc = {
      total: rows.length,
      rows,
      meta: { page: 1, tags: ['a', 'b'] },
      more: [{ a: 1 }, { a: 2 }, { a: 3 }],
    };
    const text = JSON.stringify(doc);
    expect(text.length).toBeGreaterThan(WHOLE_MAX_CHARS);
    const r = await run(text);
    if (r.kind !== 'rewrite') throw new Error(r.gate);
    expect(r.text).toBe(encode(doc));
    expect(r.note).toBe('json → toon (2 tables)');
    expect(await unproven(r.proof, text, r.text)).toBeUndefined();
  });

  it('skips any other document larger than the whole-document bound', async () => {
    const rows = Array.from({ length: 60_000 }, (_, i) => ({
      id: i,
      name: { first: `user ${i}` },
      note: 'x'.repeat(i % 90),
    }));
    for (const text of [
      JSON.stringify(rows),
      JSON.stringify({ rows }),
      JSON.stringify({ t: [{ a: 1 }, { a: 2 }, { a: 3 }], rows }),
    ]) {
      expect(text.length).toBeGreaterThan(WHOLE_MAX_CHARS);
      expect(await run(text)).toEqual({ kind: 'skip', gate: 'too large for a whole-document toon' });
    }
  });

  it('applies only to outputs that start with a bracket', () => {
    expect(toon.applies?.(output('  \n[1]'), cfg)).toBe(true);
    expect(toon.applies?.(output('{"a":1}'), cfg)).toBe(true);
    expect(toon.applies?.(output('x [1]'), cfg)).toBe(false);
  });

  it('parses its config strictly', () => {
    expect(toon.parseConfig({})).toEqual({ min_rows: 3, min_tokens: 0, delimiter: ',' });
    expect(toon.parseConfig({ delimiter: '\t', min_rows: 2 })).toEqual({
      min_rows: 2,
      min_tokens: 0,
      delimiter: '\t',
    });
    expect(() => toon.parseConfig({ rows: 3 })).toThrow(/^rows: unknown key/);
    expect(() => toon.parseConfig({ min_rows: 0 })).toThrow('min_rows: expected an integer ≥ 1, got 0');
    expect(() => toon.parseConfig({ min_tokens: 1.5 })).toThrow(
      'min_tokens: expected an integer ≥ 0, got 1.5',
    );
    expect(() => toon.parseConfig({ delimiter: ';' })).toThrow('delimiter: expected one of');
  });
});

describe('sameJson', () => {
  it('compares JSON values deeply, key order included', () => {
    expect(sameJson({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toBe(true);
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(sameJson([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(sameJson({ a: '1' }, { a: 1 })).toBe(false);
  });
});

describe('toon in the pipeline', () => {
  it('asks of compact JSON the never-worse question itself, so the rewrite is counted once in the run', async () => {
    const rows = Array.from({ length: 12_000 }, (_, i) => ({
      id: i,
      sha: (i * 2654435761).toString(16),
      ok: i % 3,
    }));
    const text = `${JSON.stringify(rows)}\n`;
    const tokens = createTokens('o200k');
    const r = await compactText(text, { components: 'toon', store: null, tokens, format: 'text' });
    expect(r.changed).toBe(true);
    expect(decode(r.output.trimEnd())).toEqual(rows);
    // The table is counted once (toon's own check); the JSON's pieces are only scanned.
    expect(tokens.exactCounts).toBe(1);
  });
});

describe.skipIf(!HAS_CORPUS)('toon on the JSON corpus', () => {
  const dir = corpusPath('json');
  const files = HAS_CORPUS ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
  const gates = ['no uniform array', 'not smaller'];
  const refusals = ['number precision', 'duplicate or reordered keys'];

  it.each(files)('rewrites %s only in a way the pipeline can prove lossless, or not at all', async (file) => {
    const original = readFileSync(`${dir}/${file}`, 'utf8');
    const r = await run(original);
    if (r.kind === 'skip') {
      expect(gates).toContain(r.gate);
      return;
    }
    expect(r.loss).toBe('none');
    const why = await unproven(r.proof, original, r.text);
    if (why !== undefined) {
      expect(refusals).toContain(why);
      return;
    }
    expect(sameJson(decode(r.text), JSON.parse(original))).toBe(true);
    expect(await run(r.text)).toEqual({ kind: 'skip', gate: 'not json' });
  });

  it('rewrites at least one corpus file (the tabular GitHub repo list)', async () => {
    const results = await Promise.all(files.map(async (f) => run(readFileSync(`${dir}/${f}`, 'utf8'))));
    expect(results.some((r) => r.kind === 'rewrite')).toBe(true);
  });

  it.each(files)('gives the same result for %s after format compacted it', async (file) => {
    const original = readFileSync(`${dir}/${file}`, 'utf8');
    const f = await format.run(output(original), format.defaults, context());
    const compact = f.kind === 'rewrite' ? f.text : original;
    const [a, b] = [await run(original), await run(compact)];
    expect(b.kind).toBe(a.kind);
    if (a.kind === 'rewrite' && b.kind === 'rewrite') expect(b.text.trim()).toBe(a.text.trim());
  });
});
