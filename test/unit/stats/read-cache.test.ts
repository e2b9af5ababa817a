import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { makeLedger } from '../../../bench/stats.mjs';
import { buildReport, type ReportOptions } from '../../../src/stats/build.js';
import type { LedgerLocation } from '../../../src/stats/paths.js';
import { PLAIN, renderTable } from '../../../src/stats/render.js';
import { tempLedger } from './helpers.js';

const NOW = Date.UTC(2026, 11, 1, 12);
const DAY = 86_400_000;

/** A location whose every report keeps a checkpoint (however small the ledger), and the same without. */
function ledger() {
  const { loc } = tempLedger();
  mkdirSync(loc.dir, { recursive: true });
  const cached: LedgerLocation = { ...loc, checkpoint: { dir: join(loc.dir, 'stats-cache'), minBytes: 0 } };
  const { checkpoint: _, ...plain } = loc;
  return { cached, plain: plain as LedgerLocation };
}

const VIEWS: ReportOptions[] = [
  { top: 10 },
  { top: 3 },
  { top: 10, session: 'sess-1' },
  { top: 10, since: NOW - 7 * DAY },
  { top: 10, since: NOW - 7 * DAY, session: 'sess-2' },
];

/** Every view read through its checkpoint equals the same view read in full: --json, the table. */
async function expectSameAsFullRead(cached: LedgerLocation, plain: LedgerLocation): Promise<void> {
  for (const view of VIEWS) {
    const full = await buildReport(plain, view);
    const resumed = await buildReport(cached, view);
    expect(JSON.stringify(resumed, null, 2)).toBe(JSON.stringify(full, null, 2));
    expect(renderTable(resumed, PLAIN, {})).toBe(renderTable(full, PLAIN, {}));
  }
}

/** More runs in the bench's line format, some of them on days and sessions not seen before. */
function moreLines(dir: string, events: number, now: number): string {
  const more = join(dir, 'more');
  mkdirSync(more, { recursive: true });
  makeLedger(more, events, now);
  const text = readFileSync(join(more, 'ledger.jsonl'), 'utf8').replaceAll('"r":"r', '"r":"m');
  rmSync(more, { recursive: true });
  return text;
}

const checkpoints = (loc: LedgerLocation) =>
  readdirSync(loc.checkpoint!.dir).filter((n) => n.endsWith('.v8'));
const zone = process.env.TZ;
afterEach(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe('the stats checkpoint', () => {
  it('gives the report a full read gives, cold, warm, and after lines were appended', async () => {
    const { cached, plain } = ledger();
    makeLedger(cached.dir, 6000, NOW);
    await expectSameAsFullRead(cached, plain); // cold: writes the checkpoints
    expect(checkpoints(cached)).toHaveLength(2); // all sessions, and sess-1 (--since keeps none)
    await expectSameAsFullRead(cached, plain); // warm: nothing new
    // New runs; a settled run appended a second time (its copy is a duplicate, counted once);
    // expands of keys shown before the checkpoint (recall joins them); a line still in flight.
    const live = join(cached.dir, 'ledger.jsonl');
    const settled = readFileSync(live, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"r":"r3i"'));
    expect(settled.length).toBeGreaterThan(2);
    expect(settled[0]).toContain('"d":1');
    appendFileSync(live, `${settled.join('\n')}\n`);
    appendFileSync(live, moreLines(cached.dir, 900, NOW + 3 * DAY));
    appendFileSync(
      live,
      `{"v":1,"t":${NOW},"e":"x","r":"xlate","k":"0000000000000000","hit":1,"b":9,"tr":3}\n`,
    );
    appendFileSync(live, `{"v":1,"t":${NOW},"e":"x","r":"xlate2","k":"0000000000000`);
    await expectSameAsFullRead(cached, plain);
    const first = await buildReport(plain, { top: 10 });
    expect(first.ledger.duplicates).toBeGreaterThan(0);
    // The line in flight is finished: the checkpoint stopped before it.
    appendFileSync(live, `000","hit":1,"b":9,"tr":3}\n`);
    await expectSameAsFullRead(cached, plain);
  });

  it('goes on across a rotation, and reads it all again once a file it covered is gone or changed', async () => {
    const { cached, plain } = ledger();
    makeLedger(cached.dir, 3000, NOW - 2 * DAY);
    await expectSameAsFullRead(cached, plain);
    renameSync(join(cached.dir, 'ledger.jsonl'), join(cached.dir, 'ledger.00000000a-1-0.jsonl'));
    writeFileSync(join(cached.dir, 'ledger.jsonl'), moreLines(cached.dir, 700, NOW));
    await expectSameAsFullRead(cached, plain); // the rotated file as read, then the new live one
    // A writer that opened the live file before the rename appends to the rotated one.
    appendFileSync(join(cached.dir, 'ledger.00000000a-1-0.jsonl'), moreLines(cached.dir, 40, NOW));
    await expectSameAsFullRead(cached, plain);
    renameSync(join(cached.dir, 'ledger.jsonl'), join(cached.dir, 'ledger.00000000b-1-0.jsonl'));
    unlinkSync(join(cached.dir, 'ledger.00000000a-1-0.jsonl')); // pruned
    writeFileSync(join(cached.dir, 'ledger.jsonl'), moreLines(cached.dir, 300, NOW + DAY));
    await expectSameAsFullRead(cached, plain);
  });

  it('is not used for a ledger reset and written again, even one of the same length', async () => {
    const { cached, plain } = ledger();
    makeLedger(cached.dir, 2000, NOW);
    await expectSameAsFullRead(cached, plain);
    const live = join(cached.dir, 'ledger.jsonl');
    const text = readFileSync(live, 'utf8');
    unlinkSync(live);
    writeFileSync(
      live,
      text.replaceAll('"ti":', '"ti":1').replaceAll('"to":1', '"to":2').slice(0, text.length),
    );
    await expectSameAsFullRead(cached, plain);
  });

  it('is what the report goes on from: the bytes it covers are not read again', async () => {
    const { cached, plain } = ledger();
    makeLedger(cached.dir, 2000, NOW);
    const before = await buildReport(cached, { top: 10 });
    // Bytes changed inside what the checkpoint covers (a ledger is append-only: this never happens)
    // and past the ends it checks: the report still says what the checkpoint holds.
    const live = join(cached.dir, 'ledger.jsonl');
    const text = readFileSync(live, 'utf8');
    const mid = text.indexOf('"ti":', text.length >> 1);
    const digit = text[mid + 5] === '9' ? '8' : '9';
    writeFileSync(live, `${text.slice(0, mid)}"ti":${digit}${text.slice(mid + 6)}`);
    expect(JSON.stringify(await buildReport(cached, { top: 10 }))).toBe(JSON.stringify(before));
    expect(JSON.stringify(await buildReport(plain, { top: 10 }))).not.toBe(JSON.stringify(before));
  });

  it('never fails a report: a corrupt or unwritable checkpoint means a full read', async () => {
    const { cached, plain } = ledger();
    makeLedger(cached.dir, 1500, NOW);
    await expectSameAsFullRead(cached, plain);
    for (const name of checkpoints(cached)) {
      const file = join(cached.checkpoint!.dir, name);
      writeFileSync(file, readFileSync(file).subarray(0, 100));
    }
    await expectSameAsFullRead(cached, plain);
    for (const name of checkpoints(cached)) writeFileSync(join(cached.checkpoint!.dir, name), 'not v8');
    await expectSameAsFullRead(cached, plain);
    // One that restores but does not hold up once a settled line needs its dedup state.
    await expectSameAsFullRead(cached, plain);
    for (const name of checkpoints(cached)) {
      const file = join(cached.checkpoint!.dir, name);
      const saved = deserialize(readFileSync(file)) as { read: { scanner: { seenRuns: string } } };
      saved.read.scanner.seenRuns = '[["r0",';
      writeFileSync(file, serialize(saved));
    }
    const live = join(cached.dir, 'ledger.jsonl');
    const settled = readFileSync(live, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"r":"r0"'));
    appendFileSync(live, `${settled.join('\n')}\n`);
    await expectSameAsFullRead(cached, plain);
    rmSync(cached.checkpoint!.dir, { recursive: true });
    writeFileSync(cached.checkpoint!.dir, 'a file where the directory goes');
    await expectSameAsFullRead(cached, plain);
  });

  it('is not used where its days would fall otherwise: days are local', async () => {
    const { cached, plain } = ledger();
    process.env.TZ = 'UTC';
    makeLedger(cached.dir, 3000, NOW);
    await expectSameAsFullRead(cached, plain);
    process.env.TZ = 'Pacific/Kiritimati';
    await expectSameAsFullRead(cached, plain);
  });
});
