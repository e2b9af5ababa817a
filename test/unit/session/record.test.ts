import { readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  loadRecord,
  MEMO_LIMIT,
  pruneRecords,
  type RecordEntry,
  recordPath,
  type SessionRecord,
  saveRecord,
} from '../../../src/session/record.js';
import { mergeEntry } from '../../../src/session/replay.js';
import { tempDir } from '../../helpers.js';

const H = (n: number) => n.toString(16).padStart(16, '0');
const rec = (entries: [string, RecordEntry][]): SessionRecord => ({ id: 's', outputs: new Map(entries) });

describe('the session record', () => {
  it('round-trips through an atomic write, private to the user, with no temp file left', async () => {
    const dir = join(tempDir(), 'sessions');
    const path = recordPath(dir, H(1));
    const entries: [string, RecordEntry][] = [
      ['toolu_a', { h: H(2) }],
      ['__proto__', { h: H(3), t: 'sent text', f: 1 }],
    ];
    expect(await saveRecord(dir, path, rec(entries), mergeEntry)).toBeUndefined();
    const back = await loadRecord(path, 's');
    expect([...back.outputs]).toEqual(entries);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((f) => f.startsWith('.tmp-') || f.endsWith('.lock'))).toEqual([]);
  });

  it('keeps the memo with the record, most recently set last, and caps it', async () => {
    const dir = join(tempDir(), 'sessions');
    const path = recordPath(dir, H(4));
    const withMemo = (pairs: [string, string][]): SessionRecord => ({ ...rec([]), memo: new Map(pairs) });
    await saveRecord(
      dir,
      path,
      withMemo([
        ['summarize', '{"a":1}'],
        ['extract:1', 'x'],
      ]),
      mergeEntry,
    );
    await saveRecord(dir, path, withMemo([['summarize', '{"a":2}']]), mergeEntry);
    expect([...((await loadRecord(path, 's')).memo ?? [])]).toEqual([
      ['extract:1', 'x'],
      ['summarize', '{"a":2}'],
    ]);
    const many = Array.from({ length: MEMO_LIMIT + 10 }, (_, i): [string, string] => [`k${i}`, 'v']);
    await saveRecord(dir, path, withMemo(many), mergeEntry);
    const memo = (await loadRecord(path, 's')).memo!;
    expect(memo.size).toBe(MEMO_LIMIT);
    expect(memo.has(`k${MEMO_LIMIT + 9}`)).toBe(true);
    expect(memo.has('summarize')).toBe(false);
  });

  it('reads a missing or corrupt file as an empty record', async () => {
    const dir = tempDir();
    expect((await loadRecord(join(dir, 'none.json'), 's')).outputs.size).toBe(0);
    writeFileSync(join(dir, 'bad.json'), '{"v":1,"outputs":{"a":{"h":"zz"}');
    expect((await loadRecord(join(dir, 'bad.json'), 's')).outputs.size).toBe(0);
  });

  it('loses no entry when many writers save at once', async () => {
    const dir = join(tempDir(), 'sessions');
    const path = recordPath(dir, H(9));
    const writers = Array.from({ length: 12 }, (_, i) =>
      saveRecord(dir, path, rec([[`out${i}`, { h: H(i) }]]), mergeEntry),
    );
    expect(await Promise.all(writers)).toEqual(Array(12).fill(undefined));
    expect((await loadRecord(path, 's')).outputs.size).toBe(12);
  });

  it('only moves decisions forward: a placeholder stays, and what was sent first stands', async () => {
    expect(mergeEntry({ h: H(1), t: 'mask', f: 1 }, { h: H(1) })).toEqual({ h: H(1), t: 'mask', f: 1 });
    expect(mergeEntry({ h: H(1) }, { h: H(1), t: 'mask', f: 1 })).toEqual({ h: H(1), t: 'mask', f: 1 });
    expect(mergeEntry({ h: H(1), t: 'first' }, { h: H(1), t: 'second' })).toEqual({ h: H(1), t: 'first' });
    const dir = join(tempDir(), 'sessions');
    const path = recordPath(dir, H(4));
    await saveRecord(dir, path, rec([['a', { h: H(1), t: 'mask', f: 1 }]]), mergeEntry);
    await saveRecord(dir, path, rec([['a', { h: H(1) }]]), mergeEntry);
    expect((await loadRecord(path, 's')).outputs.get('a')).toEqual({ h: H(1), t: 'mask', f: 1 });
    // A changed original (an edited history) replaces the entry.
    await saveRecord(dir, path, rec([['a', { h: H(2) }]]), mergeEntry);
    expect((await loadRecord(path, 's')).outputs.get('a')).toEqual({ h: H(2) });
  });

  it('prunes records untouched for two weeks', async () => {
    const dir = tempDir();
    const old = join(dir, `${H(1)}.json`);
    const fresh = join(dir, `${H(2)}.json`);
    writeFileSync(old, '{}');
    writeFileSync(fresh, '{}');
    const now = Date.now();
    utimesSync(old, (now - 15 * 86_400_000) / 1000, (now - 15 * 86_400_000) / 1000);
    expect(await pruneRecords(dir, now, true)).toBe(1);
    expect(readdirSync(dir).sort()).toEqual(['.last-prune', `${H(2)}.json`]);
    // At most once an hour unless forced.
    expect(await pruneRecords(dir, now + 1000)).toBe(0);
  });

  it('refuses a key that is not 16 hex digits as a file name', () => {
    expect(() => recordPath('/tmp', '../x')).toThrow(RangeError);
  });
});
