import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentRecord, keptRecord, saveKept } from '../../../src/session/kept-record.js';
import { loadRecord, type RecordEntry, recordPath, type SessionRecord } from '../../../src/session/record.js';
import { mergeEntry } from '../../../src/session/replay.js';
import { tempDir } from '../../helpers.js';

const H = (n: number) => n.toString(16).padStart(16, '0');
const rec = (entries: [string, RecordEntry][]): SessionRecord => ({ id: 's', outputs: new Map(entries) });
const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).length;

describe('a session record kept in memory between turns', () => {
  it('saves a small turn as one appended line, which a fresh load applies over the record', async () => {
    const dir = join(tempDir(), 'sessions');
    const path = recordPath(dir, H(1));
    const kept = keptRecord();
    expect(await saveKept(kept, dir, path, rec([]), rec([['a', { h: H(2) }]]), mergeEntry)).toBeUndefined();
    const record = (await currentRecord(kept, path))!;
    expect(record).toBeDefined();
    await saveKept(kept, dir, path, record, rec([['a', { h: H(2), t: 'placeholder', f: 1 }]]), mergeEntry);
    await saveKept(kept, dir, path, record, rec([['b', { h: H(3) }]]), mergeEntry);
    expect(lines(path)).toBe(3);
    const back = await loadRecord(path, 's', mergeEntry);
    expect([...back.outputs]).toEqual([
      ['a', { h: H(2), t: 'placeholder', f: 1 }],
      ['b', { h: H(3) }],
    ]);
    expect([...(await currentRecord(kept, path))!.outputs]).toEqual([...back.outputs]);
  });

  it('skips a line a crash cut short, and reads the record again once another process wrote it', async () => {
    const dir = join(tempDir(), 'sessions');
    const path = recordPath(dir, H(4));
    const kept = keptRecord();
    await saveKept(kept, dir, path, rec([]), rec([['a', { h: H(5) }]]), mergeEntry);
    appendFileSync(path, '{"outputs":{"b":{"h":"00');
    expect(await currentRecord(kept, path)).toBeUndefined();
    expect([...(await loadRecord(path, 's', mergeEntry)).outputs]).toEqual([['a', { h: H(5) }]]);
  });

  it('rewrites the record whole when a turn changed more than the record holds, instead of appending', async () => {
    const dir = join(tempDir(), 'sessions');
    const path = recordPath(dir, H(6));
    const kept = keptRecord();
    await saveKept(kept, dir, path, rec([]), rec([['a', { h: H(7) }]]), mergeEntry);
    const many: [string, RecordEntry][] = Array.from({ length: 9000 }, (_, i) => [
      `o${i}`,
      { h: H(i), t: 'x'.repeat(30) },
    ]);
    await saveKept(kept, dir, path, (await currentRecord(kept, path))!, rec(many), mergeEntry);
    expect(lines(path)).toBe(1);
    expect((await loadRecord(path, 's', mergeEntry)).outputs.size).toBe(9001);
  });
});

describe('detach', () => {
  it('copies every string exactly: Latin-1, wider text, lone surrogates, short and long', async () => {
    const { detach } = await import('../../../src/session/kept-record.js');
    const samples = [
      '',
      'id',
      'toolu_000123abc',
      'grep -rn "✓ passed" src/ \ud83d',
      `${'\u0000\n\t"\\'.repeat(20)}\ude00`,
      'k'.repeat(255),
      'é'.repeat(300),
      `${'a'.repeat(300)}\u00ff\u0000`,
      `${'x'.repeat(300)}✓`,
      `\ud800${'y'.repeat(400)}\udfff`,
    ];
    for (const s of samples) expect(detach(s)).toBe(s);
  });
});
