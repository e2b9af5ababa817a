/**
 * Where a session's decision record lives between turns, behind one small interface, so the turn
 * code (replay.ts) never knows which it has:
 *   - diskRecords: one file per session under a directory (record.ts), what every door uses;
 *   - sharedRecords (shared-records.ts): one Redis hash per session, for proxies behind a balancer
 *     whose store is Redis, with the local files as the fallback while Redis cannot be reached.
 * A backend never throws: a record it cannot read is empty (the turn decides afresh), a record it
 * cannot write is an error message (the turn's body went on already; the next one decides again).
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { makeDirs } from '../make-dirs.js';
import { currentRecord, type KeptRecord, saveKept } from './kept-record.js';
import {
  loadRecord,
  type MergeEntry,
  mergeEntry,
  type RecordEntry,
  recordPath,
  type SessionRecord,
  saveRecord,
} from './record.js';

export interface RecordBackend {
  /** Where records are, as a log line names it (a directory, or a server without its password). */
  readonly where: string;
  /**
   * Whether turns on other processes (other machines) read what this one writes: a turn's
   * response then ends only once its record is written, so the client's next turn finds it
   * wherever it lands.
   */
  readonly shared: boolean;
  /**
   * The session's record. `kept` (a long-lived caller's memory of it) is used as it is while
   * nothing else wrote the record since, and is brought up to date otherwise.
   */
  load(key: string, label: string, kept?: KeptRecord): Promise<SessionRecord>;
  /**
   * Writes `ours` (a turn's entries) over `record`, the one load gave, merging forward only with
   * whatever another writer saved meanwhile; an error message when nothing could be written.
   */
  save(
    key: string,
    record: SessionRecord,
    ours: SessionRecord,
    kept?: KeptRecord,
  ): Promise<string | undefined>;
  /** Why records cannot be read and written right now, or undefined when they can (for /readyz). */
  problem(): Promise<string | undefined>;
}

/** Records as files under dir (record.ts), kept records saved by appending (kept-record.ts). */
export function diskRecords(dir: string): RecordBackend {
  return {
    where: dir,
    shared: false,
    async load(key, label, kept) {
      const path = recordPath(dir, key);
      return (kept && (await currentRecord(kept, path))) ?? (await loadRecord(path, label, mergeEntry));
    },
    save(key, record, ours, kept) {
      const path = recordPath(dir, key);
      return kept
        ? saveKept(kept, dir, path, record, ours, mergeEntry)
        : saveRecord(dir, path, ours, mergeEntry);
    },
    problem: () => dirProblem(dir),
  };
}

/** Why records cannot be written under dir (made if absent, as a save would), or undefined. */
export async function dirProblem(dir: string): Promise<string | undefined> {
  try {
    await makeDirs(dir);
    await access(dir, constants.W_OK);
    return undefined;
  } catch (err) {
    return `${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
  }
}

function sameEntry(a: RecordEntry, b: RecordEntry): boolean {
  return a.h === b.h && a.t === b.t && a.f === b.f;
}

/**
 * `ours` without the entries that merging it over `record` would leave as they are (what another
 * writer saved first stands, a final one for good): what a turn still has to write once it has
 * seen what was written meanwhile. Memo entries all stay (each is re-set as the most recent).
 */
export function changesOver(record: SessionRecord, ours: SessionRecord, merge: MergeEntry): SessionRecord {
  const outputs = new Map<string, RecordEntry>();
  for (const [id, e] of ours.outputs) {
    const there = record.outputs.get(id);
    if (there && there.h === e.h && sameEntry(merge(there, e), there)) continue;
    outputs.set(id, e);
  }
  return { id: ours.id, outputs, ...(ours.memo && ours.memo.size > 0 ? { memo: ours.memo } : {}) };
}
