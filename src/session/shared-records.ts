/**
 * Session records in Redis (records.ts's interface), for `cg proxy` instances behind a balancer
 * whose store is Redis: any instance reads the record the last turn wrote, wherever it ran. One
 * hash per session under `<prefix>rec:<key>` (record-scripts.ts), its expiry the store's (sliding:
 * every turn sets it again). An instance keeps each recent session's record in memory with the
 * generation it last saw, so a turn reads only what other instances wrote since — nothing, when
 * the session's last turn was its own.
 *
 * Concurrent turns of one session on two instances: writes are compare-and-set. The loser is told
 * what was written since it read, applies it (forward only, in the order written, as every reader
 * does), drops what that makes moot and writes the rest; so every instance's memory is exactly
 * what a fresh read of the hash gives. The loser's body went upstream already and stays valid:
 * every marker in it was stored before the body left.
 *
 * Fail open: every call is bounded by the store's timeout_ms (its link), and a Redis that is down,
 * slow or refusing makes a turn use the local record instead — what this instance holds in memory,
 * else the file under the sessions directory — and save there. What it could not write to Redis is
 * kept and written on the first turn that reaches it again, after which the instance reads the
 * whole record afresh. One line on stderr when records fall back, one when they are shared again.
 */
import { randomBytes } from 'node:crypto';
import type { RedisLink } from '../store/redis-link.js';
import { type KeptRecord, keptRecord, MIN_REWRITE_BYTES } from './kept-record.js';
import {
  applyLine,
  deltaLine,
  loadRecord,
  mergeEntry,
  mergeInto,
  parseRecord,
  recordLine,
  recordPath,
  type SessionRecord,
  saveRecord,
} from './record.js';
import { readSince, type Seen, type Since, writeIfAt } from './record-scripts.js';
import { changesOver, type RecordBackend } from './records.js';

export interface SharedRecordsOptions {
  link: RedisLink;
  /** The store's key prefix: records live beside its entries, under `<prefix>rec:`. */
  prefix: string;
  /** The store's ttl_days (0: no expiry). */
  ttlDays: number;
  /**
   * The local records, used while Redis cannot be reached; undefined where there is no state
   * directory (a home that does not exist): then only what this process holds in memory.
   */
  dir: string | undefined;
  /** Prints one line (without the `cg: ` prefix). */
  warn: (line: string) => void;
}

/** Compare-and-set rounds before a turn's record is left to the local file (each loses to a newer write). */
const ATTEMPTS = 8;

const STAMP = 'r:';

function stampOf(at: Seen): string {
  return `${STAMP}${at.gen}:${at.life}`;
}

function seenOf(stamp: string | undefined): Seen | undefined {
  if (!stamp?.startsWith(STAMP)) return undefined;
  const at = stamp.indexOf(':', STAMP.length);
  return { gen: Number(stamp.slice(STAMP.length, at)), life: stamp.slice(at + 1) };
}

const bytes = (s: string) => Buffer.byteLength(s);

const isEmpty = (r: SessionRecord) => r.outputs.size === 0 && !r.memo?.size;

export function sharedRecords(opts: SharedRecordsOptions): RecordBackend {
  const { link, dir } = opts;
  const expireMs = opts.ttlDays > 0 ? Math.round(opts.ttlDays * 86_400_000) : 0;
  const name = (key: string) => `${opts.prefix}rec:${key}`;
  /** A record's place in Redis for a caller that keeps no memory of it (a session without an id). */
  const transient = new WeakMap<SessionRecord, KeptRecord>();
  let fallen: string | undefined;

  const fellBack = (reason: string) => {
    if (fallen === undefined)
      opts.warn(
        `session records: ${link.display}: ${reason}; using the local records ${dir ? `in ${dir}` : 'in memory'} until it answers`,
      );
    fallen = reason;
  };
  const reached = () => {
    if (fallen === undefined) return;
    fallen = undefined;
    opts.warn(`session records: ${link.display} answers again; records are shared again`);
  };

  /** The record after what the server said is there, over `known` (the record as seen before). */
  function apply(kept: KeptRecord, since: Since, label: string): SessionRecord {
    if (since.kind === 'none') {
      kept.record = { id: label, outputs: new Map() };
      kept.stamp = stampOf({ gen: 0, life: '' });
      kept.baseBytes = 0;
      kept.appendedBytes = 0;
      return kept.record;
    }
    if (since.kind === 'full') {
      kept.record = parseRecord(since.base, label, mergeEntry);
      kept.baseBytes = bytes(since.base);
      kept.appendedBytes = 0;
    }
    const record = kept.record!;
    if (since.kind !== 'same')
      for (const line of since.lines) {
        applyLine(record, line, mergeEntry);
        kept.appendedBytes += bytes(line);
      }
    kept.stamp = stampOf(since.at);
    return record;
  }

  /**
   * Writes `delta` over the kept record, compare-and-set, as a line or (once lines outweigh the
   * record) the record whole; after a lost round, over what won it. Throws a RedisFailure.
   */
  async function write(key: string, kept: KeptRecord, delta: SessionRecord, label: string): Promise<void> {
    let ours = delta;
    for (let round = 0; round < ATTEMPTS; round++) {
      if (isEmpty(ours)) return;
      const record = kept.record!;
      const at = seenOf(kept.stamp)!;
      const line = deltaLine(ours);
      const whole =
        at.gen === 0 || kept.appendedBytes + bytes(line) > Math.max(kept.baseBytes, MIN_REWRITE_BYTES);
      // The whole record is made apart from the kept one: a lost round must apply what won it first.
      let merged: SessionRecord | undefined;
      let text = line;
      if (whole) {
        merged = { id: record.id, outputs: new Map(record.outputs), memo: new Map(record.memo ?? []) };
        mergeInto(merged, ours, mergeEntry);
        text = recordLine(merged);
      }
      const life = at.gen === 0 ? randomBytes(8).toString('hex') : at.life;
      const r = await link.run((c) => writeIfAt(c, name(key), at, text, whole, expireMs, life), bytes(text));
      if (r.ok) {
        if (merged) {
          kept.record = merged;
          kept.baseBytes = bytes(text);
          kept.appendedBytes = 0;
        } else {
          mergeInto(record, ours, mergeEntry);
          kept.appendedBytes += bytes(text);
        }
        kept.stamp = stampOf(r.at);
        return;
      }
      const now = apply(kept, r.since, label);
      ours = changesOver(now, ours, mergeEntry);
    }
    throw new Error(`${ATTEMPTS} newer writes of the record in a row`);
  }

  /** Saves what Redis could not take in the local record, and keeps it to send later. */
  async function saveLocally(
    key: string,
    record: SessionRecord,
    ours: SessionRecord,
    kept: KeptRecord | undefined,
  ): Promise<string | undefined> {
    if (!kept) return dir === undefined ? undefined : saveRecord(dir, recordPath(dir, key), ours, mergeEntry);
    const delta = changesOver(record, ours, mergeEntry);
    mergeInto(record, delta, mergeEntry);
    kept.record = record;
    // Memory is no longer what Redis holds: the first turn that reaches it reads the record whole.
    kept.stamp = undefined;
    if (kept.pending) mergeInto(kept.pending, delta, mergeEntry);
    else kept.pending = delta;
    // The whole record, so an instance restarted while Redis is away starts from what this one knew.
    return dir === undefined ? undefined : saveRecord(dir, recordPath(dir, key), record, mergeEntry);
  }

  return {
    where: `${link.display}#${opts.prefix}rec:`,
    shared: true,

    async load(key, label, given) {
      const kept = given ?? keptRecord();
      const seen = kept.record ? seenOf(kept.stamp) : undefined;
      try {
        const since = await link.run((c) => readSince(c, name(key), seen, expireMs));
        const record = apply(kept, since, label);
        // What an outage left to send goes first, on top of what Redis holds: this turn then sees
        // the same record every instance will.
        if (kept.pending) {
          await write(key, kept, changesOver(record, kept.pending, mergeEntry), label);
          kept.pending = undefined;
        }
        reached();
        if (!given) transient.set(kept.record!, kept);
        return kept.record!;
      } catch (err) {
        fellBack((err as Error).message);
        if (!given?.record)
          return dir === undefined
            ? { id: label, outputs: new Map() }
            : loadRecord(recordPath(dir, key), label, mergeEntry);
        // Read, but what an outage left could not be sent: this turn still replays it.
        if (given.pending) {
          mergeInto(given.record, changesOver(given.record, given.pending, mergeEntry), mergeEntry);
          given.stamp = undefined;
        }
        return given.record;
      }
    },

    async save(key, record, ours, given) {
      const kept = given ?? transient.get(record);
      if (kept && seenOf(kept.stamp) && kept.record === record) {
        try {
          await write(key, kept, changesOver(record, ours, mergeEntry), record.id);
          reached();
          return undefined;
        } catch (err) {
          fellBack((err as Error).message);
          // The kept record may hold a lost round's winner by now: this turn's entries go over it.
          return saveLocally(key, kept.record ?? record, ours, given);
        }
      }
      return saveLocally(key, record, ours, given);
    },

    async problem() {
      const reason = link.probe ? await link.probe() : link.downReason();
      return reason === undefined ? undefined : `${link.display}: ${reason}`;
    },
  };
}
