/**
 * Checkpoints of what `cg stats` read, so a report reads only what was appended since the last one:
 * ledger files are append-only and rotation only renames them (ledger.ts), so the bytes a report
 * read never change while their file is there. After a read, the aggregator's tallies, the reader's
 * counts and dedup state and a mark of every file read (file-mark.ts) are kept in
 * <state dir>/stats-cache/<filter>.v8; the next report with the same filter restores them and reads
 * on from where they stopped (read.ts), which gives the same tallies as reading it all — lines are
 * visited in the same order either way.
 *
 * The rules:
 *   - only reports without --since have one (a relative --since moves with the clock), one per
 *     --session, at most KEEP of them (the least recently written go first);
 *   - it is used only when its files are still the first ones, in order, unchanged (the last may have
 *     grown): a reset, a pruned rotation or a late write into a rotated file means a full read, and
 *     a new checkpoint;
 *   - it is made by tallies of this version and shape, and its days have the same bounds in this
 *     time zone (days are local: aggregate.ts dayBounds), else it is ignored;
 *   - it is written to a temporary name and renamed, so a reader sees a whole one or none, and only
 *     when the read moved past it; a ledger under minBytes gets none;
 *   - nothing here fails a report: a checkpoint that cannot be read, parsed or written is ignored,
 *     and a read that fails after going on from one is done again from the start without it.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { Aggregator, dayBounds } from './aggregate.js';
import type { Checkpointing, LedgerLocation } from './paths.js';
import { type ReadCounts, type ReadFilter, type ReadState, readLedger } from './read.js';

declare const CG_VERSION: string;

/** Bump when a tally keeps the same fields but changes what they mean. */
const FORMAT = 1;
const KEEP = 8;

interface Saved {
  format: number;
  version: string;
  shape: string;
  filter: string;
  /** dayBounds of the tallies where they were made. */
  days: string;
  read: ReadState;
  tallies: Record<string, unknown>;
}

/**
 * readLedger into a new aggregator, going on from this filter's checkpoint and leaving a new one;
 * a read that fails after it went on from a checkpoint (one that restored but does not hold up) is
 * done again without it.
 */
export async function readWithCheckpoint(
  loc: LedgerLocation,
  filter: ReadFilter,
): Promise<{ agg: Aggregator; counts: ReadCounts }> {
  const cp = loc.checkpoint;
  if (cp && filter.since === undefined) {
    const agg = new Aggregator();
    let resumed = false;
    try {
      return { agg, counts: await readOn(loc, cp, filter, agg, () => (resumed = true)) };
    } catch (err) {
      if (!resumed) throw err;
    }
  }
  const agg = new Aggregator();
  return { agg, counts: await readLedger(loc, filter, agg.add) };
}

async function readOn(
  loc: LedgerLocation,
  cp: Checkpointing,
  filter: ReadFilter,
  agg: Aggregator,
  onResume: () => void,
): Promise<ReadCounts> {
  const key = JSON.stringify({ session: filter.session ?? null });
  const file = join(cp.dir, `${createHash('sha1').update(key).digest('hex').slice(0, 16)}.v8`);
  const header = { format: FORMAT, version: versionOf(), shape: Aggregator.shape(), filter: key };
  const saved = await load(file, header);
  let next: Buffer | undefined;
  const counts = await readLedger(loc, filter, agg.add, {
    from: saved?.read,
    accepted: () => {
      onResume();
      agg.restore(saved!.tallies);
    },
    checkpoint: (read) => {
      if (unchanged(saved?.read, read) || bytesOf(read) < cp.minBytes) return;
      const tallies = agg.state();
      next = serialize({ ...header, read, tallies, days: dayBounds(tallies) } satisfies Saved);
    },
  });
  if (next) await store(cp, file, next);
  return counts;
}

type Header = Pick<Saved, 'format' | 'version' | 'shape' | 'filter'>;

async function load(file: string, header: Header): Promise<Saved | undefined> {
  try {
    const saved = deserialize(await readFile(file)) as Saved;
    for (const [k, v] of Object.entries(header)) if (saved[k as keyof Header] !== v) return undefined;
    if (!Array.isArray(saved.read?.marks) || !saved.tallies) return undefined;
    return saved.days === dayBounds(saved.tallies) ? saved : undefined;
  } catch {
    return undefined; // none yet, or unreadable: read it all
  }
}

/** Whether a read stopped where the checkpoint it went on from had (nothing new to keep). */
function unchanged(before: ReadState | undefined, after: ReadState): boolean {
  if (!before || before.marks.length !== after.marks.length) return false;
  return before.marks.every((m, i) => m.size === after.marks[i]!.size && m.check === after.marks[i]!.check);
}

function bytesOf(read: ReadState): number {
  return read.marks.reduce((n, m) => n + m.size, 0);
}

async function store(cp: Checkpointing, file: string, bytes: Buffer): Promise<void> {
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    await mkdir(cp.dir, { recursive: true, mode: 0o700 });
    await writeFile(tmp, bytes, { mode: 0o600 });
    await rename(tmp, file);
    await prune(cp.dir);
  } catch {
    await unlink(tmp).catch(() => undefined); // a full disk or a read-only state dir: no checkpoint
  }
}

/** Keeps the KEEP most recently written checkpoints (a stale temp file of a killed report goes too). */
async function prune(dir: string): Promise<void> {
  const names = await readdir(dir);
  const aged = await Promise.all(
    names.map(async (n) => ({ n, t: (await stat(join(dir, n)).catch(() => undefined))?.mtimeMs ?? 0 })),
  );
  const stale = Date.now() - 3_600_000;
  const kept = aged.filter((a) => a.n.endsWith('.v8')).sort((a, b) => b.t - a.t);
  const gone = [...kept.slice(KEEP), ...aged.filter((a) => a.n.endsWith('.tmp') && a.t < stale)];
  await Promise.all(gone.map((a) => unlink(join(dir, a.n)).catch(() => undefined)));
}

function versionOf(): string {
  return typeof CG_VERSION === 'string' ? CG_VERSION : 'dev';
}
