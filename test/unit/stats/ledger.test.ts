import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { appendLines, ledgerFiles, MAX_WRITE, rotate } from '../../../src/stats/ledger.js';
import { formatLine } from '../../../src/stats/line.js';
import { report, tempLedger } from './helpers.js';

const run = (i: number) =>
  formatLine({
    t: 1_700_000_000_000 + i,
    r: `r${i}`,
    e: 'run',
    fmt: 'text',
    tk: 'o200k',
    n: 1,
    rw: 0,
    ub: i,
  });

describe('the ledger files', () => {
  it('creates the state directory on the first append, private to the user', async () => {
    const { loc } = tempLedger();
    expect(existsSync(loc.dir)).toBe(false);
    await appendLines(loc, [run(1)]);
    expect(readFileSync(loc.live, 'utf8')).toBe(`${run(1)}\n`);
    expect(readdirSync(loc.dir)).toEqual(['ledger.jsonl']);
  });

  it('writes a batch larger than one write as whole lines only', async () => {
    const { loc } = tempLedger();
    const lines = Array.from({ length: 3000 }, (_, i) => run(i));
    expect(lines.join('\n').length).toBeGreaterThan(2 * MAX_WRITE);
    await appendLines(loc, lines);
    expect(readFileSync(loc.live, 'utf8')).toBe(`${lines.join('\n')}\n`);
  });

  it.each([
    ['a whole last line that lost only its newline', (line: string) => line],
    ['a last line torn in the middle', (line: string) => line.slice(0, line.indexOf('"rw"'))],
  ])('starts the next append on a fresh line after %s, so no record is swallowed', async (_name, cut) => {
    const { loc } = tempLedger();
    await appendLines(loc, [run(1)]);
    appendFileSync(loc.live, cut(run(2))); // a short write: the crash or full disk cut it here
    await appendLines(loc, [run(3), run(4)]);
    const lines = readFileSync(loc.live, 'utf8').split('\n');
    expect(lines).toEqual([run(1), cut(run(2)), run(3), run(4), '']);
    const r = await report(loc);
    const whole = cut(run(2)) === run(2);
    expect(r.runs).toBe(whole ? 4 : 3);
    expect(r.outputs.untouchedBytes).toBe(1 + 3 + 4 + (whole ? 2 : 0));
    expect(r.ledger.badLines).toBe(whole ? 0 : 1);
  });

  it('rotates the live file past its limit, and reading covers every file so totals stay whole', async () => {
    const { loc } = tempLedger({ CG_STATS_ROTATE_MB: '0.005', CG_STATS_KEEP: '100' });
    let expected = 0;
    for (let i = 0; i < 400; i++) {
      await appendLines(loc, [run(i)]);
      expected += i;
    }
    const files = await ledgerFiles(loc);
    expect(files.length).toBeGreaterThan(3);
    const r = await report(loc);
    expect(r.runs).toBe(400);
    expect(r.outputs.untouchedBytes).toBe(expected);
  });

  it('keeps only the newest rotated files, so the ledger stays bounded', async () => {
    const { loc } = tempLedger({ CG_STATS_KEEP: '2' });
    for (let i = 0; i < 5; i++) {
      await appendLines(loc, [run(i)]);
      await rotate(loc, 1_700_000_000_000 + i);
    }
    await appendLines(loc, [run(5)]);
    const files = await ledgerFiles(loc);
    expect(files).toHaveLength(3);
    const r = await report(loc);
    expect(r.outputs.untouchedBytes).toBe(3 + 4 + 5);
  });
});
