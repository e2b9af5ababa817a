import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRecord, type RecordCache, recordPath, saveRecord } from '../../src/session/record.js';
import { mergeEntry } from '../../src/session/replay.js';
import { tempDir } from '../helpers.js';

describe('session records kept in memory by a long-lived process', () => {
  it('gives the kept record while its file is unchanged, and reads the file again once someone else changed it', async () => {
    const dir = tempDir();
    const path = recordPath(dir, '0123456789abcdef');
    const cache: RecordCache = new Map();
    const ours = { id: 's', outputs: new Map([['t1', { h: 'aaaaaaaaaaaaaaaa', t: 'sent', f: 1 as const }]]) };
    expect(await saveRecord(dir, path, ours, mergeEntry, cache)).toBeUndefined();
    const first = await loadRecord(path, 's', cache);
    expect(first.outputs.get('t1')).toEqual({ h: 'aaaaaaaaaaaaaaaa', t: 'sent', f: 1 });
    expect(await loadRecord(path, 's', cache)).toBe(first);
    // Another process rewrites the file: its version wins over the kept one.
    const text = readFileSync(path, 'utf8').replace('"t":"sent"', '"t":"other one"');
    await new Promise((r) => setTimeout(r, 5));
    writeFileSync(path, text);
    const again = await loadRecord(path, 's', cache);
    expect(again).not.toBe(first);
    expect(again.outputs.get('t1')!.t).toBe('other one');
    // And a save merges with what is on disk, keeping the record in memory for the next turn.
    const next = { id: 's', outputs: new Map([['t2', { h: 'bbbbbbbbbbbbbbbb' }]]) };
    await saveRecord(dir, path, next, mergeEntry, cache);
    const merged = await loadRecord(path, 's', cache);
    expect([...merged.outputs.keys()]).toEqual(['t1', 't2']);
    expect(JSON.parse(readFileSync(join(path), 'utf8')).outputs.t1.t).toBe('other one');
  });
});
