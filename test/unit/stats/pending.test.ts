import { readdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { appendLines } from '../../../src/stats/ledger.js';
import { formatLine } from '../../../src/stats/line.js';
import { type PendingHeader, settlePending, writePending } from '../../../src/stats/pending.js';
import { createFsStore, entryPath, STORE_DEFAULTS } from '../../../src/store/fs-store.js';
import { tempDir } from '../../helpers.js';
import { report, tempLedger } from './helpers.js';

const T = 1_700_000_000_000;

/** A pending record of one rewritten output whose texts are inline. */
function header(r: string, before: string, after: string): [PendingHeader, string[]] {
  const b = Buffer.byteLength(before);
  return [
    {
      v: 1,
      r,
      tk: 'o200k',
      lines: [
        { t: T, r, e: 'run', fmt: 'text', tk: 'o200k', n: 1, rw: 1, ub: 0 },
        { t: T, r, e: 'out', o: 'stdin', bi: b, bo: after.length, ti: 0, to: 0 },
      ],
      fill: [
        [1, 'ti', [0]],
        [1, 'to', [1]],
      ],
      texts: [
        { b, at: 0 },
        { b: Buffer.byteLength(after), at: b },
      ],
    },
    [before, after],
  ];
}

const rawLines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== ''); // an append racing another may add an empty line, which readers skip

describe('settling pending records', () => {
  it('counts each record exactly once when two readers settle at the same time', async () => {
    const { loc } = tempLedger();
    let expected = 0;
    for (let i = 0; i < 30; i++) {
      const before = `line ${i}\n`.repeat(500 + i);
      await writePending(loc, ...header(`r${i}`, before, 'short'));
      expected += countTokens(before);
    }
    const [a, b] = await Promise.all([settlePending(loc), settlePending(loc)]);
    expect(a.settled + b.settled).toBe(30);
    expect(rawLines(loc.live).filter((l) => l.includes('"e":"out"'))).toHaveLength(30);
    expect(readdirSync(loc.pending)).toEqual([]);
    expect((await report(loc)).tokens.in).toBe(expected);
  });

  it('takes over a claim left by a reader that died, and counts it once even if that reader had appended', async () => {
    const { loc } = tempLedger();
    await writePending(loc, ...header('dead', 'a b c d e f\n', 'a'));
    // The dead reader claimed it, appended its lines, and died before deleting the claim.
    const claim = join(loc.pending, 'dead.claim-1-x');
    const [written] = readdirSync(loc.pending);
    renameSync(join(loc.pending, written!), claim);
    await appendLines(loc, [
      formatLine({ t: T, r: 'dead', e: 'run', fmt: 'text', tk: 'o200k', n: 1, rw: 1, ub: 0, d: 1, i: 0 }),
      formatLine({ t: T, r: 'dead', e: 'out', o: 'stdin', bi: 12, bo: 1, ti: 7, to: 1, d: 1, i: 1 }),
    ]);
    expect(await settlePending(loc)).toEqual({ settled: 0, bad: 0, left: 1 }); // a fresh claim is left alone
    utimesSync(claim, new Date(T), new Date(T));
    expect(await settlePending(loc)).toEqual({ settled: 1, bad: 0, left: 0 });
    const r = await report(loc);
    expect(r.runs).toBe(1);
    expect(r.tokens.in).toBe(countTokens('a b c d e f\n'));
    expect(r.ledger.duplicates).toBe(2);
  });

  it('sets an unreadable record aside as .bad instead of dropping it silently', async () => {
    const { loc } = tempLedger();
    await writePending(loc, ...header('ok', 'x y z\n', 'x'));
    writeFileSync(join(loc.pending, 'broken.pend'), '{"v":1,"r":');
    expect(await settlePending(loc)).toEqual({ settled: 1, bad: 1, left: 0 });
    expect(readdirSync(loc.pending)).toEqual(['broken.bad']);
  });

  it('counts an original from the store and leaves its LRU time as it was', async () => {
    const { loc } = tempLedger();
    const store = createFsStore({ dir: join(tempDir(), 'store'), ...STORE_DEFAULTS });
    const original = 'stored text\n'.repeat(1000);
    const { key } = await store.put(original);
    const old = new Date(T);
    utimesSync(entryPath(store.dir, key), old, old);
    const [h, blobs] = header('s', '', 'short');
    h.texts[0] = { b: Buffer.byteLength(original), key, store: store.dir };
    await writePending(loc, h, blobs.slice(1));
    await settlePending(loc);
    expect((await report(loc)).tokens.in).toBe(countTokens(original));
    expect(statSync(entryPath(store.dir, key)).mtimeMs).toBe(T);
  });

  it('estimates a stashed original that expired before settling, and flags it', async () => {
    const { loc } = tempLedger();
    const [h] = header('gone', '', 'short');
    h.texts = [
      { b: 4000, key: '0123456789abcdef', store: join(tempDir(), 'empty-store') },
      { b: 5, at: 0 },
    ];
    await writePending(loc, h, ['short']);
    await settlePending(loc);
    const r = await report(loc);
    expect(r.tokens.in).toBe(0);
    expect(r.estimated).toMatchObject({ outputs: 1, tokensIn: 1000 });
  });
});
