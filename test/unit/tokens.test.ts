import { describe, expect, it, vi } from 'vitest';
import { fewerWithTag, tagBound } from '../../src/pipeline/never-worse.js';
import { byteLength, createTokens, keepByteLength, MAX_TOKEN_BYTES } from '../../src/tokens.js';
import { seededRandom } from '../helpers.js';

describe('tokens', () => {
  it('counts text containing special-token spellings as ordinary text', async () => {
    const t = createTokens('o200k');
    expect(await t.count('before <|endoftext|> after')).toBeGreaterThan(3);
    expect(await createTokens('cl100k').count('<|endoftext|><|fim_prefix|>')).toBeGreaterThan(2);
  });

  it('decides easy comparisons from byte bounds without loading the tokenizer', async () => {
    const t = createTokens('o200k');
    expect(await t.exceeds('x'.repeat(100), 2000)).toBe(false);
    expect(await t.exceeds('y'.repeat(MAX_TOKEN_BYTES * 2001), 2000)).toBe(true);
    expect(await t.fewer('short', 'z'.repeat(MAX_TOKEN_BYTES * 10))).toBe(true);
    expect(await t.fewer('z'.repeat(MAX_TOKEN_BYTES * 10), 'short')).toBe(false);
    expect(t.exactCounts).toBe(0);
  });

  it('measures a large text once however often its byte length is asked for', () => {
    const text = `naïve — ${'x'.repeat(200_000)}`;
    const bytes = Buffer.from(text).length;
    const decoded = Buffer.from(`${text}!`).toString('utf8');
    const measure = vi.spyOn(Buffer, 'byteLength');
    try {
      for (let i = 0; i < 6; i++) expect(byteLength(text)).toBe(bytes);
      expect(measure).toHaveBeenCalledTimes(1);
      // Equal content in another string gets the same answer; a text decoded from bytes of a known
      // length is not measured at all.
      expect(byteLength(text.slice(0, 10) + text.slice(10))).toBe(bytes);
      keepByteLength(decoded, bytes + 1);
      measure.mockClear();
      expect(byteLength(decoded)).toBe(bytes + 1);
      expect(measure).not.toHaveBeenCalled();
    } finally {
      measure.mockRestore();
    }
  });

  it('decides a large rewrite fewer by counting only it when the input has more pieces than it has tokens', async () => {
    // TOON-like rows against the JSON they came from: neither bytes nor a deletion decide.
    const rows = Array.from({ length: 12_000 }, (_, i) => ({
      id: i,
      sha: (i * 2654435761).toString(16),
      ok: i % 3,
    }));
    const json = JSON.stringify(rows);
    const table = rows.map((r) => `${r.id},${r.sha},${r.ok}`).join('\n');
    const t = createTokens('o200k');
    expect(await t.fewer(table, json)).toBe(true);
    expect(t.exactCounts).toBe(1);
    expect(await t.count(table)).toBeLessThan(await createTokens('o200k').count(json));
    // Not fewer the other way round, which still counts both.
    expect(await t.fewer(json, table)).toBe(false);
  });

  it('answers piecesAbove the same whether a run asked before or ended in between (a scan remembered for the run)', async () => {
    const rand = seededRandom(5);
    const words = ['alpha', ' beta', '\n', '  ', '42', 'ünï', '{"a":1}', '\t', 'x'];
    const texts = Array.from({ length: 60 }, () =>
      Array.from(
        { length: 1 + Math.floor(rand() * 400) },
        () => words[Math.floor(rand() * words.length)],
      ).join(''),
    );
    const fresh = async (text: string, n: number) => createTokens('o200k').piecesAbove(text, n);
    const t = createTokens('o200k');
    for (const [i, text] of texts.entries()) {
      const pieces = await createTokens('o200k').atLeast(text);
      for (const n of [0, 1, pieces - 1, pieces, Math.floor(pieces / 2), pieces + 3]) {
        if (n < 0) continue;
        expect(await t.piecesAbove(text, n)).toBe(await fresh(text, n));
        expect(await t.piecesAbove(text, n)).toBe(pieces > n);
      }
      if (i % 7 === 0) t.endRun!();
    }
  });

  it('says whether parts joined have more pieces than n, one piece less per join, without the whole text', async () => {
    const t = createTokens('o200k');
    const whole = 'alpha beta gamma delta';
    const pieces = await t.atLeast(whole); // 4: "alpha", " beta", " gamma", " delta"
    expect(pieces).toBe(4);
    // Cut inside words: each cut may add a piece, and is taken off again.
    const parts = ['alpha be', 'ta gam', 'ma delta'];
    expect(await t.partsAbove(parts, pieces - 1)).toBe(true);
    expect(await t.partsAbove(parts, pieces)).toBe(false);
    expect(await t.partsAbove([whole], pieces - 1)).toBe(true);
    expect(await t.partsAbove([], 0)).toBe(false);
    // It stops reading parts once it has its answer.
    function* counted(log: string[]) {
      for (const p of ['one two three', 'four five', 'six seven']) {
        log.push(p);
        yield p;
      }
    }
    const read: string[] = [];
    expect(await t.partsAbove(counted(read), 2)).toBe(true);
    expect(read).toEqual(['one two three']);
    expect(t.exactCounts).toBe(0);
  });

  it('counts exactly when the bounds cannot decide', async () => {
    const t = createTokens('o200k');
    const text = 'the quick brown fox jumps over the lazy dog '.repeat(20);
    const n = await t.count(text);
    expect(await t.exceeds(text, n - 1)).toBe(true);
    expect(await t.exceeds(text, n)).toBe(false);
    expect(t.exactCounts).toBe(1);
  });

  it.each(['o200k', 'cl100k'] as const)(
    'bounds %s tokens from below by pieces, the same whatever was counted before',
    async (name) => {
      const texts = [
        'function f(a: number, b?: string): void { return; }\n',
        '    if (x) {\n\t\treturn   y;\n    }\r\n',
        'Ünïcödé wörds, 12345678 digits, emoji 🎉🎉 and <|endoftext|> text',
        '',
      ];
      const fresh = createTokens(name);
      const before = await Promise.all(texts.map((t) => fresh.atLeast(t)));
      expect(fresh.exactCounts).toBe(0);
      for (const [i, t] of texts.entries()) {
        const exact = await fresh.count(t);
        expect(before[i]).toBeLessThanOrEqual(exact);
        expect(before[i]).toBeGreaterThanOrEqual(Math.ceil(exact / 2));
        expect(await fresh.atLeast(t)).toBe(before[i]);
      }
    },
  );

  it('decides a rewrite fewer bytes than its input has pieces without the tokenizer', async () => {
    const t = createTokens('o200k');
    const input = 'const value = compute(alpha, beta, gamma);\n'.repeat(50);
    const bound = tagBound(' [full output: cg expand {key}]', undefined);
    expect(await fewerWithTag(t, 'const value = compute(…);\n', bound, input)).toBe(true);
    expect(await t.exceeds(input, 300)).toBe(true);
    expect(t.exactCounts).toBe(0);
  });

  it('never makes a rewrite without its marker when its byte length decides', async () => {
    const t = createTokens('o200k');
    const input = 'const value = compute(alpha, beta, gamma);\n'.repeat(5000);
    const bound = tagBound(' [full output: cg expand {key}]', undefined);
    const unmade = (bytes: number) => ({
      bytes,
      text: () => {
        throw new Error('made the bare text');
      },
    });
    expect(await fewerWithTag(t, unmade(1000), bound, input)).toBe(true);
    expect(await fewerWithTag(t, unmade(input.length * 200), bound, input)).toBe(false);
    // Where the bytes cannot decide, the text is made, once, and counted.
    const small = 'const value = compute(alpha, beta, gamma);\n'.repeat(50);
    const bare = 'const value = compute(alpha, beta);\n'.repeat(20);
    let made = 0;
    const lazy = {
      bytes: bare.length,
      text: () => {
        made++;
        return bare;
      },
    };
    expect(await fewerWithTag(t, lazy, bound, small)).toBe(await fewerWithTag(t, bare, bound, small));
    expect(made).toBeGreaterThan(0);
  });

  it.each(['o200k', 'cl100k'] as const)('has no %s token longer than MAX_TOKEN_BYTES bytes', async (name) => {
    const mod =
      name === 'o200k'
        ? await import('gpt-tokenizer/encoding/o200k_base')
        : await import('gpt-tokenizer/encoding/cl100k_base');
    let longest = 0;
    const enc = new TextEncoder();
    for (let id = 0; id < 200_100; id++) {
      let piece: string;
      try {
        piece = mod.decode([id]);
      } catch {
        continue;
      }
      longest = Math.max(longest, enc.encode(piece).length);
    }
    expect(longest).toBeGreaterThan(10);
    expect(longest).toBeLessThanOrEqual(MAX_TOKEN_BYTES);
  });

  describe.each(['o200k', 'cl100k'] as const)("%s counts equal gpt-tokenizer's own", (name) => {
    const reference = async () => {
      const mod =
        name === 'o200k'
          ? await import('gpt-tokenizer/encoding/o200k_base')
          : await import('gpt-tokenizer/encoding/cl100k_base');
      return (text: string) => mod.countTokens(text, { disallowedSpecial: new Set() });
    };

    it('on long unbroken runs of letters, CJK, brackets, spaces and newlines', async () => {
      const ref = await reference();
      const t = createTokens(name);
      const rnd = seededRandom(5);
      const pick = (chars: string, n: number) =>
        Array.from({ length: n }, () => chars[Math.floor(rnd() * chars.length)]).join('');
      const texts = [
        'a'.repeat(4000),
        'A'.repeat(3000),
        pick('abcdefghijklmnopqrstuvwxyz', 3000),
        pick('中文字符测试内容数据', 1500),
        '['.repeat(2000) + ']'.repeat(2000),
        ' '.repeat(3000),
        '\n'.repeat(3000),
        pick(' \t\n', 3000),
        `prefix ${'z'.repeat(3000)} middle ${'中'.repeat(900)}, end\n`,
        'x     \t' + '['.repeat(60), // the whitespace before a long run re-splits when counted alone
        `Ωμέγα${'é'.repeat(700)}\u0301${'😀'.repeat(300)}`,
      ];
      for (const text of texts) expect(await t.count(text)).toBe(ref(text));
    });

    it('on random mixtures of short and long pre-tokens', async () => {
      const ref = await reference();
      const t = createTokens(name);
      const rnd = seededRandom(1);
      const parts = [
        'a',
        'B',
        '中',
        '[',
        ']',
        ' ',
        '\n',
        '\r',
        '\t',
        '/',
        '1',
        '2',
        'é',
        '\u0301',
        '😀',
        '.',
        "'",
        's',
        'the',
        ' the',
        '  ',
        '\n\n',
      ];
      for (let k = 0; k < 300; k++) {
        const run = parts[Math.floor(rnd() * parts.length)]!;
        let text = '';
        const len = Math.floor(rnd() * 2000);
        while (text.length < len) text += rnd() < 0.9 ? run : parts[Math.floor(rnd() * parts.length)];
        expect(await t.count(text)).toBe(ref(text));
      }
    });
  });
});
