/**
 * Retrieval state goes through the proxy's record backend: what one process decided and spliced,
 * another process over the same records reads back (a restart, or another instance of a fleet),
 * and a later splice at the same place replaces the earlier one there too.
 */
import { readdirSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { RetrievalSessions } from '../../../../src/proxy/retrieval/state.js';
import { diskRecords } from '../../../../src/session/records.js';
import { tempDir } from '../../../helpers.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('retrieval state', () => {
  it('is read back by another process over the same records, the newest splice at a place winning', async () => {
    const dir = tempDir('cg-retrieval-state-');
    dirs.push(dir);
    const a = new RetrievalSessions(diskRecords(dir));
    const s = await a.of('session-1');
    expect(s.decision).toBeUndefined();
    await a.decide('session-1', s, 'tool');
    await a.add('session-1', s, [{ op: 'after', at: 3, hash: 'h1', items: ['{"a":1}'] }]);
    await a.add('session-1', s, [{ op: 'replace', at: 5, holds: ['c1'], items: ['{"b":1}'] }]);
    await a.add('session-1', s, [{ op: 'replace', at: 5, holds: ['c1'], items: ['{"b":2}'] }]);
    // A later decision is ignored: the first stands.
    await a.decide('session-1', s, 'client');

    const b = new RetrievalSessions(diskRecords(dir));
    const back = await b.of('session-1');
    expect(back.decision).toBe('tool');
    expect([...back.splices.values()]).toEqual([
      { op: 'after', at: 3, hash: 'h1', items: ['{"a":1}'] },
      { op: 'replace', at: 5, holds: ['c1'], items: ['{"b":2}'] },
    ]);
    expect((await b.of('session-2')).decision).toBeUndefined();
    expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toHaveLength(1);
  });

  it('lives in memory only without a record backend', async () => {
    const a = new RetrievalSessions(undefined);
    const s = await a.of('k');
    await a.decide('k', s, 'client');
    expect((await a.of('k')).decision).toBe('client');
    expect((await new RetrievalSessions(undefined).of('k')).decision).toBeUndefined();
  });
});
