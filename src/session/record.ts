/**
 * The per-session decision record on disk: one JSON file per session under sessions/, holding for
 * each tool output id the content key of its original (h), the exact text cg sent for it when that
 * was not the original (t), and whether that text is a final placeholder (f); and a small memo of
 * component state kept across turns (a model's reduction of an output, a summary checkpoint).
 *
 *   {"v":1,"id":"derived:0123…","outputs":{"toolu_01…":{"h":"89ab…","t":"[older tool output masked] <<cg:…>>…","f":1}},
 *    "memo":{"extract:89ab…":"…"}}
 *
 * Writes are atomic (a temp file in the same directory, then rename), so a reader sees the old record
 * or the new one, never half of either. Writers serialise on a lock file and merge with what is on
 * disk at that moment, so concurrent cg processes on one session lose no decision; a lock that cannot
 * be had within about a second is skipped (the rename still keeps the file whole). Records are
 * private to the user (0700 directory, 0600 files): they hold tool output text. Records untouched for
 * RECORD_TTL_DAYS are pruned, at most once an hour. No function here throws for an fs failure.
 *
 * A long-lived process that keeps a session's record in memory (the proxy) saves each turn's
 * changes as one more line instead (appendRecord): `{"outputs":{…},"memo":{…}}`, the same shapes,
 * applied in order over the first line by the same forward-only merge as a save. A line a crash cut
 * short does not parse and is skipped (that turn's decisions are made again, nothing else is lost).
 */
import { constants } from 'node:fs';
import { open, readdir, readFile, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isObject, objectAt, stringAt, valueAt } from '../json/payload.js';
import { makeDirs } from '../make-dirs.js';

export interface RecordEntry {
  /** keyOf(original): a changed original (an edited history) makes the entry stale. */
  h: string;
  /** What was sent, when it was not the original. */
  t?: string;
  /** 1 when the text is a placeholder that never changes again. */
  f?: 1;
}

export interface SessionRecord {
  id: string;
  outputs: Map<string, RecordEntry>;
  /** Component state by namespaced key; the most recently set last. */
  memo?: Map<string, string>;
}

/** The memo keeps this many entries, the most recently set ones. */
export const MEMO_LIMIT = 256;

const VERSION = 1;
const LOCK_TRIES = 100;
const LOCK_WAIT_MS = 10;
const STALE_LOCK_MS = 10_000;
const PRUNE_EVERY_MS = 3_600_000;
export const RECORD_TTL_DAYS = 14;
const STAMP = '.last-prune';
const TMP_PREFIX = '.tmp-';
const KEY_RE = /^[0-9a-f]{16}$/;

let tmpCounter = 0;

export function recordPath(dir: string, key: string): string {
  if (!KEY_RE.test(key)) throw new RangeError(`not a session key: ${JSON.stringify(key)}`);
  return join(dir, `${key}.json`);
}

function entryOf(raw: unknown): RecordEntry | undefined {
  const h = stringAt(raw, 'h');
  if (h === undefined || !KEY_RE.test(h)) return undefined;
  return recordEntry(h, stringAt(raw, 't'), valueAt(raw, 'f') === 1);
}

/**
 * An entry made whole at once: a field added after an object is made goes to a property array of
 * its own, one more heap object per entry (17,000 in a 20 k session's record) for every collection.
 */
export function recordEntry(h: string, t: string | undefined, final: boolean): RecordEntry {
  if (t === undefined) return final ? { h, f: 1 } : { h };
  return final ? { h, t, f: 1 } : { h, t };
}

/** How an output's entry on disk and one arriving for it combine (replay.ts: forward only). */
export type MergeEntry = (onDisk: RecordEntry, ours: RecordEntry) => RecordEntry;

const lastWins: MergeEntry = (_, ours) => ours;

/** Forward only: a final placeholder never changes again; otherwise what was sent first stands. */
export function mergeEntry(onDisk: RecordEntry, ours: RecordEntry): RecordEntry {
  if (onDisk.f) return onDisk;
  return ours.f ? ours : onDisk;
}

/** Applies `ours` over `base`: each output through merge, memo keys re-set as the most recent. */
export function mergeInto(base: SessionRecord, ours: SessionRecord, merge: MergeEntry): void {
  for (const [outputId, e] of ours.outputs) {
    const there = base.outputs.get(outputId);
    base.outputs.set(outputId, there && there.h === e.h ? merge(there, e) : e);
  }
  if (ours.memo && ours.memo.size > 0) {
    const memo = base.memo ?? new Map<string, string>();
    for (const [k, v] of ours.memo) {
      memo.delete(k); // re-set, so it counts as the most recent
      memo.set(k, v);
    }
    for (const k of memo.keys()) {
      if (memo.size <= MEMO_LIMIT) break;
      memo.delete(k);
    }
    base.memo = memo;
  }
}

/** The outputs and memo of one parsed line (the whole record, or a line appended after it). */
function partsOf(p: unknown, id: string): SessionRecord {
  const record: SessionRecord = { id, outputs: new Map() };
  for (const [outputId, raw] of Object.entries(objectAt(p, 'outputs') ?? {})) {
    const e = entryOf(raw);
    if (e) record.outputs.set(outputId, e);
  }
  const memo = objectAt(p, 'memo');
  if (memo) {
    record.memo = new Map();
    for (const [k, v] of Object.entries(memo)) if (typeof v === 'string') record.memo.set(k, v);
  }
  return record;
}

/**
 * The record at path, with the lines appended after it applied in order (through merge); an
 * absent, unreadable or corrupt file reads as an empty record.
 */
export async function loadRecord(
  path: string,
  id: string,
  merge: MergeEntry = lastWins,
): Promise<SessionRecord> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return { id, outputs: new Map() };
  }
  return parseRecord(text, id, merge);
}

/**
 * A record from its text: the whole record's line, then the lines appended after it, applied in
 * order (through merge). A first line that is not a record reads as an empty record; a later line
 * that does not parse is skipped (cut short by a crash while it was appended).
 */
export function parseRecord(text: string, id: string, merge: MergeEntry = lastWins): SessionRecord {
  const empty: SessionRecord = { id, outputs: new Map() };
  const lines = text.split('\n');
  let first: unknown;
  try {
    first = JSON.parse(lines[0]!);
  } catch {
    return empty;
  }
  if (valueAt(first, 'v') !== VERSION || !objectAt(first, 'outputs')) return empty;
  const record = partsOf(first, id);
  for (const line of lines.slice(1)) applyLine(record, line, merge);
  return record;
}

/** Applies one appended line (deltaLine) over record; a line that does not parse changes nothing. */
export function applyLine(record: SessionRecord, line: string, merge: MergeEntry): void {
  if (line === '' || line === '\n') return;
  let delta: unknown;
  try {
    delta = JSON.parse(line);
  } catch {
    return;
  }
  if (isObject(delta)) mergeInto(record, partsOf(delta, record.id), merge);
}

function body(record: SessionRecord): string {
  // Built by hand from the Map: an output id such as "__proto__" stays an ordinary key.
  const parts: string[] = [];
  for (const [outputId, e] of record.outputs) parts.push(`${JSON.stringify(outputId)}:${JSON.stringify(e)}`);
  const memo: string[] = [];
  for (const [k, v] of record.memo ?? []) memo.push(`${JSON.stringify(k)}:${JSON.stringify(v)}`);
  const tail = memo.length > 0 ? `,"memo":{${memo.join(',')}}` : '';
  return `"outputs":{${parts.join(',')}}${tail}`;
}

/** The whole record as its first line (what saveRecord writes). */
export function recordLine(record: SessionRecord): string {
  return `{"v":${VERSION},"id":${JSON.stringify(record.id)},${body(record)}}\n`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function withLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const lock = `${path}.lock`;
  let held = false;
  for (let i = 0; i < LOCK_TRIES && !held; i++) {
    try {
      await (await open(lock, 'wx', 0o600)).close();
      held = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') break;
      // A writer that died holding the lock must not block the session for good.
      const age = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > STALE_LOCK_MS) await unlink(lock).catch(() => undefined);
      else await sleep(LOCK_WAIT_MS);
    }
  }
  try {
    return await fn();
  } finally {
    if (held) await unlink(lock).catch(() => undefined);
  }
}

/**
 * Merges `ours` into the record on disk and writes the result atomically. `merge` decides each
 * output present in both (see replay.ts). Returns an error message, or undefined on success.
 */
export async function saveRecord(
  dir: string,
  path: string,
  ours: SessionRecord,
  merge: MergeEntry,
  /** Called with the record as written (what a process keeping it in memory holds from now on). */
  written?: (record: SessionRecord, bytes: number) => void,
): Promise<string | undefined> {
  try {
    await makeDirs(dir);
    await withLock(path, async () => {
      const disk = await loadRecord(path, ours.id, merge);
      mergeInto(disk, ours, merge);
      const text = recordLine(disk);
      const tmp = join(dir, `${TMP_PREFIX}${process.pid}-${++tmpCounter}-${Date.now().toString(36)}`);
      try {
        await writeFile(tmp, text, { mode: 0o600 });
        await rename(tmp, path);
      } catch (err) {
        await unlink(tmp).catch(() => undefined);
        throw err;
      }
      written?.(disk, Buffer.byteLength(text));
    });
    await pruneRecords(dir, Date.now()).catch(() => undefined);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** One appended line holding `delta` (what changed in a turn), as appendRecord writes it. */
export function deltaLine(delta: SessionRecord): string {
  return `{${body(delta)}}\n`;
}

/**
 * Appends a line (deltaLine) to the record at path, under the lock. Returns an error message, or
 * undefined once it is written. The file must exist (saveRecord makes it).
 */
export async function appendRecord(path: string, line: string): Promise<string | undefined> {
  try {
    await withLock(path, async () => {
      const fh = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
      try {
        await fh.writeFile(line);
      } finally {
        await fh.close();
      }
    });
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** Removes records (and stray temp files) untouched for RECORD_TTL_DAYS, at most once an hour. */
export async function pruneRecords(dir: string, now: number, force = false): Promise<number> {
  const stamp = join(dir, STAMP);
  if (!force) {
    const last = await stat(stamp).then(
      (s) => s.mtimeMs,
      () => 0,
    );
    if (now - last < PRUNE_EVERY_MS) return 0;
  }
  await writeFile(stamp, '', { mode: 0o600 });
  await utimes(stamp, now / 1000, now / 1000);
  const cutoff = now - RECORD_TTL_DAYS * 86_400_000;
  let removed = 0;
  for (const name of await readdir(dir)) {
    if (!(name.endsWith('.json') || name.startsWith(TMP_PREFIX))) continue;
    const file = join(dir, name);
    const s = await stat(file).catch(() => undefined);
    const limit = name.startsWith(TMP_PREFIX) ? now - STALE_LOCK_MS * 6 : cutoff;
    if (s && s.mtimeMs < limit) {
      await unlink(file).catch(() => undefined);
      removed++;
    }
  }
  return removed;
}
