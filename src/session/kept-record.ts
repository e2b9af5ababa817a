/**
 * A session's record kept in memory between the turns of a long-lived process (the proxy), so a
 * turn neither reads nor rewrites the whole record file:
 *   - at a turn's start one stat tells whether the file is still what this process last wrote; if
 *     another process saved the session meanwhile, the record is read from disk again;
 *   - a turn saves only the entries it changed, as one line appended to the file (record.ts); once
 *     those lines outweigh the record itself, the record is written whole again (and merged with
 *     disk, as every save is).
 * Ids and texts are copied flat before they are kept: a string sliced from a request body would
 * keep that whole body alive for as long as the record lives (detach).
 */
import { stat } from 'node:fs/promises';
import {
  appendRecord,
  deltaLine,
  type MergeEntry,
  mergeInto,
  type SessionRecord,
  saveRecord,
} from './record.js';

/** Appended lines may grow to this before a rewrite, however small the record. */
export const MIN_REWRITE_BYTES = 256 * 1024;

export interface KeptRecord {
  record?: SessionRecord;
  /** The file as this process last left it (inode, size, mtime); another value means someone wrote. */
  stamp?: string;
  /** Bytes of the whole record at its last rewrite, and of the lines appended since. */
  baseBytes: number;
  appendedBytes: number;
  /**
   * A shared backend's (shared-records.ts): entries this process saved only to its local record
   * while the server could not be reached, written to the server once it answers again.
   */
  pending?: SessionRecord;
}

export function keptRecord(): KeptRecord {
  return { baseBytes: 0, appendedBytes: 0 };
}

/** A character beyond Latin-1: the string cannot go through latin1 bytes unchanged. */
const WIDE = /[^\u0000-\u00ff]/;

/**
 * A copy of s that shares no memory with the string it was sliced from (V8 keeps a slice's parent
 * alive), its value always exactly s, and one flat string: a long session keeps ~130,000 of these
 * (ids, commands, keys), and a slice of a private copy would be two heap objects each for every
 * collection to mark. Under 12 characters a join to one more character and a cut back are copies
 * already (V8 neither joins nor slices strings that short); up to 256 JSON's round trip, exact for
 * lone surrogates too; a long one goes through latin1 bytes when every character fits one (a plain
 * copy: a first sight detaches megabytes of sent text), else through JSON's round trip again.
 */
export function detach(s: string): string {
  if (s.length < 12) return `${s} `.slice(0, -1);
  if (s.length < 256) return JSON.parse(JSON.stringify(s)) as string;
  if (!WIDE.test(s)) return Buffer.from(s, 'latin1').toString('latin1');
  return JSON.parse(JSON.stringify(s)) as string;
}

async function stampOf(path: string): Promise<string | undefined> {
  const st = await stat(path).catch(() => undefined);
  return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : undefined;
}

/** The kept record, when the file is still what this process last wrote; else undefined (read it). */
export async function currentRecord(kept: KeptRecord, path: string): Promise<SessionRecord | undefined> {
  if (!kept.record || kept.stamp === undefined) return undefined;
  if ((await stampOf(path)) === kept.stamp) return kept.record;
  kept.record = undefined;
  return undefined;
}

/**
 * Saves a turn's changed entries (ids and texts already detached) on top of `record`, the one the
 * turn started from, which is then kept. Returns an error message when nothing could be written.
 */
export async function saveKept(
  kept: KeptRecord,
  dir: string,
  path: string,
  record: SessionRecord,
  delta: SessionRecord,
  merge: MergeEntry,
): Promise<string | undefined> {
  const current = kept.record === record && (await stampOf(path)) === kept.stamp;
  // Nothing to write: a record read from disk this turn is not kept (the next turn reads it again).
  if (delta.outputs.size === 0 && !delta.memo?.size) {
    if (!current) kept.record = undefined;
    return undefined;
  }
  if (current) {
    // A turn that changed much (a first sight) rewrites the record now rather than leaving the
    // next turn, meant to cost only what is new, to fold a long appended line into it.
    const line = deltaLine(delta);
    const bytes = Buffer.byteLength(line);
    if (kept.appendedBytes + bytes <= Math.max(kept.baseBytes, MIN_REWRITE_BYTES)) {
      const failed = await appendRecord(path, line);
      if (failed === undefined) {
        mergeInto(record, delta, merge);
        kept.appendedBytes += bytes;
        kept.stamp = await stampOf(path);
        return undefined;
      }
    }
  }
  mergeInto(record, delta, merge);
  let written: SessionRecord | undefined;
  let bytes = 0;
  const failed = await saveRecord(dir, path, record, merge, (r, b) => {
    written = r;
    bytes = b;
  });
  if (failed || !written) {
    kept.record = undefined;
    return failed;
  }
  kept.record = written;
  kept.baseBytes = bytes;
  kept.appendedBytes = 0;
  kept.stamp = await stampOf(path);
  return undefined;
}
