import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../../src/component.js';
import { format } from '../../../src/components/format.js';
import { compactText } from '../../../src/engine.js';
import { ConfigError } from '../../../src/errors.js';
import { jsonDocuments } from '../../../src/json/documents.js';
import { compactJson, MAX_JSON_DEPTH, scanJson } from '../../../src/json/text.js';
import { createTokens } from '../../../src/tokens.js';
import { context, corpusPath, HAS_CORPUS, output } from '../../helpers.js';

const cfg = format.defaults;

async function run(text: string, config = cfg): Promise<Outcome> {
  return format.run(output(text), config, context());
}

async function rewritten(text: string): Promise<string> {
  const r = await run(text);
  if (r.kind !== 'rewrite') throw new Error(`expected a rewrite, got skip (${r.gate})`);
  expect(r.loss).toBe('none');
  return r.text;
}

/** Independent of src: drop whitespace outside JSON strings. */
function stripWhitespace(json: string): string {
  return json.replace(/"(?:[^"\\]|\\.)*"|[ \t\r\n]+/g, (m) => (m.startsWith('"') ? m : ''));
}

describe('format', () => {
  it('compacts a pretty-printed JSON output to compact JSON', async () => {
    const pretty = JSON.stringify({ a: 1, b: [true, null, 'x'], c: { d: [] } }, null, 2);
    expect(await rewritten(pretty + '\n')).toBe('{"a":1,"b":[true,null,"x"],"c":{"d":[]}}\n');
  });

  it('keeps numbers, escapes, duplicate keys and string whitespace exactly as written', async () => {
    const text =
      '{\n  "f": 1.0,\n  "big": 12345678901234567890,\n  "e": "\\u00e9",\n  "e": "a  b\\t c",\n  "x": -0.5e+10\n}';
    expect(await rewritten(text)).toBe(
      '{"f":1.0,"big":12345678901234567890,"e":"\\u00e9","e":"a  b\\t c","x":-0.5e+10}',
    );
  });

  it('compacts a single-line JSON output that has spaces when it is the whole output', async () => {
    expect(await rewritten('  {"a": 1, "b": [1, 2]}  \n')).toBe('  {"a":1,"b":[1,2]}  \n');
  });

  it('compacts pretty JSON a program printed into a log, and nothing around it', async () => {
    const log = [
      '2024-05-01 12:00:00 INFO  request sent   (attempt 1)',
      'response: {',
      '  "status": "ok"',
      '}  trailing   text',
      'between blocks: [x] and {not json}',
      '[',
      '  {"id": 1}',
      ']',
      'done.',
      '',
    ].join('\n');
    expect(await rewritten(log)).toBe(
      [
        '2024-05-01 12:00:00 INFO  request sent   (attempt 1)',
        'response: {',
        '  "status": "ok"',
        '}  trailing   text',
        'between blocks: [x] and {not json}',
        '[{"id":1}]',
        'done.',
        '',
      ].join('\n'),
    );
  });

  it('compacts the content of a fenced json block', async () => {
    const md = 'The reply:\n\n```json\n{\n  "a": [\n    1\n  ]\n}\n```\n\nand more prose { with braces }.\n';
    expect(await rewritten(md)).toBe(
      'The reply:\n\n```json\n{"a":[1]}\n```\n\nand more prose { with braces }.\n',
    );
  });

  it('never touches { … } in code, a diff or prose: it is not a whole JSON document there', async () => {
    for (const text of [
      '@@ -1,3 +1,3 @@ function f() {\n }\n-a\n+b\n',
      'class A {\n}\nfunction g() {\n}\nconst x = [\n];\n',
      'void f()\n{\n}\n',
      ' {\n   "name": "x",\n   "private": true\n }\n-  "a": 1\n+  "a": 2\n',
      '     1→{\n     2→  "a": 1\n     3→}\n',
      '[ERROR] parse failed at {\n  "line": 3\n} (see above',
    ])
      expect((await run(text)).kind, JSON.stringify(text)).toBe('skip');
  });

  it('leaves single-line JSON inside other text alone (code an agent may match verbatim)', async () => {
    expect(await run('const xs = [1, 2, 3];\nconst o = {"a": 1};\n')).toEqual({
      kind: 'skip',
      gate: 'no pretty json',
    });
  });

  it('leaves invalid JSON-looking text untouched', async () => {
    expect(await run('{ not json }')).toEqual({ kind: 'skip', gate: 'no pretty json' });
    expect(await run('{\n  "a": 1,\n}\n')).toEqual({ kind: 'skip', gate: 'no pretty json' });
    expect(await run("{\n  'a': 1\n}")).toEqual({ kind: 'skip', gate: 'no pretty json' });
    expect(await run('[\n  01\n]')).toEqual({ kind: 'skip', gate: 'no pretty json' });
  });

  it('compacts a block at the very start of the output followed by other text', async () => {
    expect(await rewritten('{\n  "a": [\n    1\n  ]\n}\nexit 0\n')).toBe('{"a":[1]}\nexit 0\n');
  });

  it('skips already-compact JSON', async () => {
    expect(await run('{"a":1,"b":[1,2]}\n')).toEqual({ kind: 'skip', gate: 'already compact' });
  });

  it('is idempotent: running on its own output is a skip', async () => {
    const inputs = [
      JSON.stringify({ a: [1, 2, { b: 'c d' }] }, null, 4),
      'log line\n{\n  "a": 1\n}\nmore\n[\n  2\n]\n',
    ];
    for (const text of inputs) {
      const once = await rewritten(text);
      expect((await run(once)).kind).toBe('skip');
    }
  });

  it('skips outputs with fewer tokens than min_tokens', async () => {
    const pretty = '{\n  "a": 1\n}';
    expect(await run(pretty, { min_tokens: 1000 })).toEqual({ kind: 'skip', gate: 'below min_tokens' });
    expect((await run(pretty, { min_tokens: 1 })).kind).toBe('rewrite');
  });

  it('applies only to outputs that contain a bracket', () => {
    expect(format.applies?.(output('plain text'), cfg)).toBe(false);
    expect(format.applies?.(output('x {'), cfg)).toBe(true);
    expect(format.applies?.(output('x ['), cfg)).toBe(true);
  });

  it('stays linear on deeply nested unterminated brackets', () => {
    const text = '['.repeat(200_000) + '\n';
    expect(jsonDocuments(text)).toEqual([]);
  });

  it('compacts a multi-MB pretty JSON output whitespace-only', async () => {
    const rows = Array.from({ length: 30_000 }, (_, i) => ({ id: i, name: `row ${i}`, tags: ['a', 'b'] }));
    const pretty = JSON.stringify({ rows }, null, 2);
    expect(pretty.length).toBeGreaterThan(2_000_000);
    expect(await rewritten(pretty)).toBe(JSON.stringify({ rows }));
  });

  it('parses its config strictly', () => {
    expect(format.parseConfig(undefined)).toEqual({ min_tokens: 0 });
    expect(format.parseConfig({ min_tokens: 50 })).toEqual({ min_tokens: 50 });
    expect(() => format.parseConfig({ min_token: 5 })).toThrow(ConfigError);
    expect(() => format.parseConfig({ min_token: 5 })).toThrow(/^min_token: unknown key/);
    expect(() => format.parseConfig({ min_tokens: 'x' })).toThrow(
      'min_tokens: expected an integer ≥ 0, got "x"',
    );
    expect(() => format.parseConfig({ min_tokens: -1 })).toThrow(
      'min_tokens: expected an integer ≥ 0, got -1',
    );
    expect(() => format.parseConfig([])).toThrow('expected a mapping, got a list');
  });
});

describe('scanJson', () => {
  const valid = (t: string) => {
    const r = scanJson(t, 0);
    return r.ok && r.end === t.length;
  };

  it('accepts exactly what JSON.parse accepts on tricky values', () => {
    const cases = [
      '0',
      '-0',
      '1.5e-3',
      '1E+2',
      '-',
      '01',
      '1.',
      '.5',
      '1e',
      '+1',
      'true',
      'tru',
      'nul',
      '""',
      '"\\u00e9"',
      '"\\x"',
      '"\\u12g4"',
      '"a\tb"',
      '"\\/"',
      '[]',
      '[,]',
      '[1,]',
      '{}',
      '{"a"}',
      '{"a":}',
      '{"a":1,}',
      '{"a" : [ 1 , { "b" : null } ] }',
      '{1:2}',
      "{'a':1}",
      '[1 2]',
      '{"a":1]',
      '[1}',
      '[[[]]]',
      '[[[]]',
    ];
    for (const t of cases) {
      let parses = true;
      try {
        JSON.parse(t);
      } catch {
        parses = false;
      }
      expect([t, valid(t)]).toEqual([t, parses]);
    }
  });

  it('reports where an embedded value ends and whether it is spaced over lines', () => {
    expect(scanJson('x {"a": [1]} y', 2)).toEqual({ ok: true, end: 12, spaced: true, multiline: false });
    expect(scanJson('[\n1]', 0)).toEqual({ ok: true, end: 4, spaced: true, multiline: true });
    expect(scanJson('[1,{"a":[2', 0)).toEqual({ ok: false, at: 10, open: [0, 3, 8] });
  });

  it('treats nesting deeper than MAX_JSON_DEPTH as not JSON', () => {
    const ok = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH);
    expect(valid(ok)).toBe(true);
    expect(valid(`[${ok}]`)).toBe(false);
  });

  it('compacts across its internal chunk boundaries without splitting strings or characters', () => {
    // Every alignment of the 15-char escaped pattern against the chunk edge, surrogate pairs included.
    for (let pad = 0; pad < 15; pad++) {
      const value = { p: 'x'.repeat(pad), s: 'é😀 "q" \\ \n'.repeat(80_000), t: 'a  b' };
      const pretty = JSON.stringify(value, null, 1);
      expect(compactJson(pretty, 0, pretty.length)).toBe(JSON.stringify(value));
    }
  });
});

describe('format in the pipeline', () => {
  it('is kept on a pretty array after a never-worse decision that counts neither whole text, where bounds cannot decide', async () => {
    // Words of Japanese: pieces the bounds price at 1 to 3 tokens a character, so they never decide.
    const value = Array.from({ length: 3000 }, (_, i) => ({
      id: i,
      note: `日本語のテキスト${i}番目の項目です`,
    }));
    const pretty = `${JSON.stringify(value, null, 2)}\n`;
    const tokens = createTokens('o200k');
    const r = await compactText(pretty, { components: 'format', store: null, tokens, format: 'text' });
    expect(r.output).toBe(`${JSON.stringify(value)}\n`);
    // One count, over the stretches around the deletions (bpe/deletions.ts): before, both texts.
    expect(tokens.exactCounts).toBe(1);
    expect(await tokens.count(r.output)).toBeLessThan(await tokens.count(pretty));
  });
});

describe.skipIf(!HAS_CORPUS)('format on the JSON corpus', () => {
  const dir = corpusPath('json');
  const files = HAS_CORPUS ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];

  it.each(files)('compacts %s by removing whitespace only, idempotently', async (file) => {
    const original = readFileSync(`${dir}/${file}`, 'utf8');
    const r = await run(original);
    if (r.kind === 'skip') {
      expect(r.gate).toBe('already compact');
      return;
    }
    expect(r.loss).toBe('none');
    expect(r.text.length).toBeLessThan(original.length);
    expect(stripWhitespace(r.text)).toBe(stripWhitespace(original));
    expect(JSON.parse(r.text)).toEqual(JSON.parse(original));
    expect(await run(r.text)).toEqual({ kind: 'skip', gate: 'already compact' });
  });
});
