/**
 * Session records in Redis (src/session/shared-records.ts) against a real redis-server, each
 * "instance" a backend with a link of its own: what one writes another reads, concurrent writes
 * of one session are compare-and-set, and a Redis that is stopped or frozen costs a bounded wait
 * and the local record, never the turn.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KeptRecord, keptRecord } from '../../../src/session/kept-record.js';
import { loadRecord, type RecordEntry, recordPath, type SessionRecord } from '../../../src/session/record.js';
import type { RecordBackend } from '../../../src/session/records.js';
import { sharedRecords } from '../../../src/session/shared-records.js';
import { createRedisLink } from '../../../src/store/redis-link.js';
import { parseRedisUrl } from '../../../src/store/redis-url.js';
import { tempDir } from '../../helpers.js';
import { NEEDS_REDIS, REDIS_SERVER, RedisServer } from '../../redis-server.js';

const H = (n: number) => n.toString(16).padStart(16, '0');
const rec = (entries: [string, RecordEntry][], memo?: [string, string][]): SessionRecord => ({
  id: 's',
  outputs: new Map(entries),
  ...(memo ? { memo: new Map(memo) } : {}),
});
const entries = (r: SessionRecord) => [...r.outputs].sort(([a], [b]) => a.localeCompare(b));

describe.skipIf(!REDIS_SERVER)(`session records in Redis${NEEDS_REDIS}`, () => {
  let server: RedisServer;
  let admin: Redis;
  const dirs: string[] = [];
  let n = 0;

  /** One proxy instance's backend: its own link, local directory and log. */
  function instance(prefix: string, timeoutMs = 2000) {
    const dir = join(tempDir('cg-shared-records-'), 'sessions');
    dirs.push(join(dir, '..'));
    const warned: string[] = [];
    const records = sharedRecords({
      link: createRedisLink(parseRedisUrl(server.url()), timeoutMs),
      prefix,
      ttlDays: 14,
      dir,
      warn: (l) => warned.push(l),
    });
    return { records, dir, warned };
  }
  const fresh = () => `t${n++}:`;

  beforeAll(async () => {
    server = await RedisServer.start();
    admin = new Redis({ host: '127.0.0.1', port: server.port, lazyConnect: true });
    await admin.connect();
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
    rmSync(server.dir, { recursive: true, force: true });
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** A turn: load with the instance's memory, save `ours` over it. */
  async function turn(b: RecordBackend, kept: KeptRecord, key: string, ours: SessionRecord) {
    const record = await b.load(key, 's', kept);
    return b.save(key, record, ours, kept);
  }

  it('keeps one hash per session beside the store, with its expiry, and another instance reads what one wrote', async () => {
    const prefix = fresh();
    const a = instance(prefix);
    const b = instance(prefix);
    const ka = keptRecord();
    expect(
      await turn(a.records, ka, H(1), rec([['x', { h: H(2), t: 'sent <<cg:0000000000000002>>' }]])),
    ).toBe(undefined);
    const name = `${prefix}rec:${H(1)}`;
    expect(await admin.type(name)).toBe('hash');
    expect(await admin.pttl(name)).toBeGreaterThan(13 * 86_400_000);
    const kb = keptRecord();
    const seen = await b.records.load(H(1), 's', kb);
    expect(entries(seen)).toEqual([['x', { h: H(2), t: 'sent <<cg:0000000000000002>>' }]]);
    await b.records.save(H(1), seen, rec([['y', { h: H(3) }]], [['extract:1', 'kept']]), kb);
    // A's next turn reads only B's line over what it kept.
    const again = await a.records.load(H(1), 's', ka);
    expect(again).toBe(ka.record);
    expect(entries(again)).toEqual([
      ['x', { h: H(2), t: 'sent <<cg:0000000000000002>>' }],
      ['y', { h: H(3) }],
    ]);
    expect(again.memo?.get('extract:1')).toBe('kept');
    // Nothing on the local disk while Redis answers.
    expect(existsSync(a.dir)).toBe(false);
    expect(a.warned).toEqual([]);
  });

  it('makes concurrent turns of one session on two instances compare-and-set: the loser writes over the winner, and every memory is what a fresh read gives', async () => {
    const prefix = fresh();
    const a = instance(prefix);
    const b = instance(prefix);
    const ka = keptRecord();
    const kb = keptRecord();
    await turn(a.records, ka, H(4), rec([['base', { h: H(5) }]]));
    const ra = await a.records.load(H(4), 's', ka);
    const rb = await b.records.load(H(4), 's', kb);
    // Both decided from the same record: a shared output each sent its own way, one made final.
    const [sa, sb] = await Promise.all([
      a.records.save(
        H(4),
        ra,
        rec([
          ['a1', { h: H(6) }],
          ['both', { h: H(7), t: 'from a' }],
        ]),
        ka,
      ),
      b.records.save(
        H(4),
        rb,
        rec([
          ['b1', { h: H(8) }],
          ['both', { h: H(7), t: 'from b' }],
          ['base', { h: H(5), t: 'masked', f: 1 }],
        ]),
        kb,
      ),
    ]);
    expect(sa).toBeUndefined();
    expect(sb).toBeUndefined();
    const c = instance(prefix);
    const truth = await c.records.load(H(4), 's', keptRecord());
    expect(entries(truth).map(([id]) => id)).toEqual(['a1', 'b1', 'base', 'both']);
    // Forward only: the final placeholder stands, and of two sent texts the one written first.
    expect(truth.outputs.get('base')).toEqual({ h: H(5), t: 'masked', f: 1 });
    expect(['from a', 'from b']).toContain(truth.outputs.get('both')?.t);
    // The loser's memory is the truth already (it wrote over the winner's line); the winner's is
    // up to its own write, and its next turn reads the loser's line over it.
    const same = (k: KeptRecord) => JSON.stringify(entries(k.record!)) === JSON.stringify(entries(truth));
    expect([ka, kb].filter(same)).toHaveLength(1);
    expect(entries(await a.records.load(H(4), 's', ka))).toEqual(entries(truth));
    expect(entries(await b.records.load(H(4), 's', kb))).toEqual(entries(truth));
  });

  it('folds its lines into the whole record once they outweigh it, and a reader past the fold reads it whole', async () => {
    const prefix = fresh();
    const a = instance(prefix);
    const b = instance(prefix);
    const ka = keptRecord();
    const kb = keptRecord();
    await b.records.load(H(9), 's', kb);
    const text = 'x'.repeat(20_000);
    for (let i = 0; i < 40; i++)
      await turn(a.records, ka, H(9), rec([[`o${i}`, { h: H(100 + i), t: `${i}${text}` }]]));
    const fields = await admin.hkeys(`${prefix}rec:${H(9)}`);
    expect(fields.filter((f) => f.startsWith('d')).length).toBeLessThan(40);
    const seen = await b.records.load(H(9), 's', kb);
    expect(seen.outputs.size).toBe(40);
    expect(entries(seen)).toEqual(entries(ka.record!));
  });

  it('reads a record that expired and was made again whole, never over what it kept of the old one', async () => {
    const prefix = fresh();
    const a = instance(prefix);
    const b = instance(prefix);
    const ka = keptRecord();
    await turn(a.records, ka, H(10), rec([['old', { h: H(11) }]]));
    await admin.del(`${prefix}rec:${H(10)}`);
    await turn(b.records, keptRecord(), H(10), rec([['new', { h: H(12) }]]));
    expect(entries(await a.records.load(H(10), 's', ka))).toEqual([['new', { h: H(12) }]]);
  });

  it('serves a caller that keeps no memory (a session without an id): full reads, and only what changed is written', async () => {
    const prefix = fresh();
    const a = instance(prefix);
    const r1 = await a.records.load(H(13), 's');
    await a.records.save(H(13), r1, rec([['p', { h: H(14) }]]));
    const r2 = await a.records.load(H(13), 's');
    await a.records.save(
      H(13),
      r2,
      rec([
        ['p', { h: H(14) }],
        ['q', { h: H(15) }],
      ]),
    );
    const fields = await admin.hkeys(`${prefix}rec:${H(13)}`);
    expect(fields.sort()).toEqual(['b', 'bg', 'd2', 'e', 'g']);
    expect(await admin.hget(`${prefix}rec:${H(13)}`, 'd2')).not.toContain('"p"');
    expect(entries(await a.records.load(H(13), 's'))).toEqual([
      ['p', { h: H(14) }],
      ['q', { h: H(15) }],
    ]);
  });

  it('falls back to the local record while Redis is stopped (saying so once), and sends what it saved there once Redis answers', async () => {
    const prefix = fresh();
    const a = instance(prefix);
    const b = instance(prefix);
    const ka = keptRecord();
    await turn(a.records, ka, H(16), rec([['before', { h: H(17) }]]));
    await server.stop();
    try {
      // Two turns during the outage: the kept record, saved to the local file.
      const during = await a.records.load(H(16), 's', ka);
      expect(entries(during)).toEqual([['before', { h: H(17) }]]);
      expect(await a.records.save(H(16), during, rec([['outage1', { h: H(18), t: 'short' }]]), ka)).toBe(
        undefined,
      );
      await turn(a.records, ka, H(16), rec([['outage2', { h: H(19) }]]));
      expect(a.warned).toHaveLength(1);
      expect(a.warned[0]).toMatch(
        /^session records: redis:\/\/127\.0\.0\.1:\d+\/0: .*; using the local records in /,
      );
      const local = await loadRecord(recordPath(a.dir, H(16)), 's');
      expect(entries(local).map(([id]) => id)).toEqual(['before', 'outage1', 'outage2']);
      expect(await a.records.problem()).toMatch(/ECONNREFUSED/);
    } finally {
      await server.restart();
    }
    // The readiness check brings the link back without waiting out its down time.
    expect(await a.records.problem()).toBeUndefined();
    const after = await a.records.load(H(16), 's', ka);
    expect(entries(after).map(([id]) => id)).toEqual(['before', 'outage1', 'outage2']);
    expect(a.warned[1]).toMatch(/answers again; records are shared again$/);
    // What the outage left is in Redis now: another instance replays it.
    expect(entries(await b.records.load(H(16), 's', keptRecord()))).toEqual(entries(after));
  });

  it('waits for a frozen Redis no longer than its timeout, then turns to the local record', async () => {
    const prefix = fresh();
    const a = instance(prefix, 1000);
    const ka = keptRecord();
    await turn(a.records, ka, H(20), rec([['kept', { h: H(21) }]]));
    server.pause();
    try {
      // A hang would never resolve (vitest's timeout would fail the test); the link gives up instead.
      const r = await a.records.load(H(20), 's', ka);
      expect(entries(r)).toEqual([['kept', { h: H(21) }]]);
      expect(await a.records.save(H(20), r, rec([['late', { h: H(22) }]]), ka)).toBeUndefined();
      expect(a.warned).toEqual([expect.stringMatching(/no answer within 1000 ms; using the local records/)]);
      expect(await a.records.problem()).toMatch(/no answer within 1000 ms/);
    } finally {
      server.resume();
    }
  });
});
