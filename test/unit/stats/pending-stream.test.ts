// A run's pending record holds a line per event: a proxy's first sight of a 20,000-result session
// makes ~94,000 lines and a 20 MB header. They are written as they are made (issue 16 item 5, issue
// 13 item 9): neither the lines nor the header are ever held whole, and the bytes are those
// JSON.stringify of the whole header gives.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LedgerLine } from '../../../src/stats/line.js';
import { type Fill, type TextRef, writePendingRecord } from '../../../src/stats/pending.js';
import { tempLedger } from './helpers.js';

const T = 1_700_000_000_000;

function evLine(r: string, i: number): LedgerLine {
  return { t: T, r, e: 'ev', c: 'mask', a: 'skip', o: `toolu_${i}`, why: 'under min_tokens', bi: i, bo: i };
}

describe('writing a pending record line by line', () => {
  it('writes the header while its lines are still being made, in the bytes JSON.stringify of the whole header gives', async () => {
    const { loc } = tempLedger();
    const r = 'run1';
    const n = 30_000;
    const fill: Fill[] = [[1, 'ti', [0]]];
    const texts: TextRef[] = [{ b: 5, at: 0 }];
    let writtenBeforeTheLast = -1;
    function* lines(): Generator<LedgerLine> {
      yield { t: T, r, e: 'run', fmt: 'anthropic', tk: 'o200k', n, rw: 1, ub: 0 };
      for (let i = 1; i < n; i++) {
        if (i === n - 1) {
          const tmp = join(loc.pending, `.tmp-${r}`);
          writtenBeforeTheLast = existsSync(tmp) ? statSync(tmp).size : 0;
        }
        yield evLine(r, i);
      }
    }
    await writePendingRecord(loc, { v: 1, r, tk: 'o200k', fill, texts }, lines(), ['short']);
    // 30,000 lines are ~3 MB of header: most of it is on disk before the last line is made.
    expect(writtenBeforeTheLast).toBeGreaterThan(1 << 20);
    const [name] = readdirSync(loc.pending);
    const all = [...lines()];
    const expected = `${JSON.stringify({ v: 1, r, tk: 'o200k', lines: all, fill, texts })}\nshort`;
    expect(readFileSync(join(loc.pending, name!), 'utf8')).toBe(expected);
    expect(name).toBe(`${r}.${Buffer.byteLength(expected)}.pend`);
  });

  it('writes a small record whole, named with its size', async () => {
    const { loc } = tempLedger();
    const line: LedgerLine = { t: T, r: 'small', e: 'run', fmt: 'text', tk: 'o200k', n: 1, rw: 0, ub: 3 };
    await writePendingRecord(loc, { v: 1, r: 'small', tk: 'o200k', fill: [], texts: [] }, [line], ['é']);
    const expected = `${JSON.stringify({ v: 1, r: 'small', tk: 'o200k', lines: [line], fill: [], texts: [] })}\né`;
    expect(readdirSync(loc.pending)).toEqual([`small.${Buffer.byteLength(expected)}.pend`]);
    expect(readFileSync(join(loc.pending, readdirSync(loc.pending)[0]!), 'utf8')).toBe(expected);
  });
});
