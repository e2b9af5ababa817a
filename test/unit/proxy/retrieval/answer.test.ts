import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../../src/config.js';
import { answerCall, bounded } from '../../../../src/proxy/retrieval/answer.js';
import { tempDir } from '../../../helpers.js';
import { MemoryStore } from '../../../memory-store.js';

const lines = (n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => `line ${i + from} ${'x'.repeat(40)}`);

describe("the proxy's cg_expand answer", () => {
  it('keeps a result within the size whole, and cuts a larger one at a line with the call for the next slice', () => {
    const text = `${lines(100).join('\n')}\n`;
    expect(bounded(text, { key: 'k' }, 100_000)).toBe(text);
    const cut = bounded(text, { key: 'k' }, 2000);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(2000);
    const shown = cut.split('\n').filter((l) => l.startsWith('line ')).length;
    expect(cut).toContain(
      `[cg: lines 1-${shown} of 100 shown, over 2000 bytes; the next slice: cg_expand {"key":"k","lines":"${shown + 1}-"}]`,
    );
    // A slice asked for with its own range is cut within it, the range's end kept.
    const ranged = bounded(`${lines(50, 201).join('\n')}\n`, { key: 'k', lines: '201-250' }, 1500);
    expect(ranged).toMatch(
      /\[cg: lines 201-\d+ of 250 shown, over 1500 bytes; the next slice: cg_expand \{"key":"k","lines":"\d+-250"\}\]$/,
    );
  });

  it('continues a grep after the last line it showed, and cuts a line longer than the whole size', () => {
    const grep = `${lines(200)
      .map((l, i) => `${i * 3 + 1}:${l}`)
      .join('\n')}\n`;
    const cut = bounded(grep, { key: 'k', grep: 'line' }, 2000);
    const last = cut
      .split('\n')
      .filter((l) => /^\d+:/.test(l))
      .at(-1)!;
    const n = Number(last.split(':')[0]);
    expect(cut).toContain(`the next slice: cg_expand {"key":"k","lines":"${n + 1}-","grep":"line"}`);
    const long = bounded(`${'é'.repeat(5000)}\nnext\n`, { key: 'k' }, 2000);
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(2000);
    expect(long).toContain(
      'line 1 alone is over 2000 bytes and was cut; the next slice: cg_expand {"key":"k","lines":"2-"}',
    );
    expect(long).not.toContain('\uFFFD');
  });

  it('is a tool error for arguments that are not a JSON object, a missing key, or a key no store holds', async () => {
    const dir = tempDir('cg-answer-');
    try {
      const store = new MemoryStore();
      const put = await store.put('the original\n');
      const ctx = {
        config: defaultConfig(),
        store,
        session: 's',
        env: { CG_STATE_DIR: dir },
        maxBytes: 40_000,
      };
      expect(await answerCall('{"key"', ctx)).toMatchObject({
        isError: true,
        text: expect.stringContaining('not JSON'),
      });
      expect(await answerCall('[1]', ctx)).toMatchObject({ isError: true });
      expect(await answerCall('{}', ctx)).toMatchObject({
        isError: true,
        text: expect.stringContaining('key'),
      });
      const gone = await answerCall('{"key":"<<cg:0123456789abcdef>>"}', ctx);
      expect(gone.isError).toBe(true);
      expect(gone.text).toContain('expired or was never stored here');
      expect(await answerCall(JSON.stringify({ key: put.key }), ctx)).toEqual({
        text: 'the original\n',
        isError: false,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
