/**
 * Each session's retrieval state, kept in its own session record through the proxy's record
 * backend (records.ts: the files under the sessions directory, or Redis for proxies behind a
 * balancer — the same place, writes and pruning as the replay records), so every turn is made the
 * same way, on whichever instance, and a restarted proxy carries on where it left:
 *   - the decision, made once, on the first turn the proxy put a marker into: `tool` (the proxy
 *     adds cg_expand to this request and every later one) or `client` (the client opens markers
 *     itself; nothing is ever added);
 *   - the splices (splice.ts) that give the model back the exchanges it had and the client never
 *     saw, in the order they were made.
 * The record's entries are {h: content key, t: the JSON text, f: 1}: `decision`, and one per
 * splice under its place (spliceId), a later one at a place replacing the earlier (every entry is
 * final and keyed by its text, so the backends' forward-only merge keeps the newer). A long-lived
 * process keeps the most recently used sessions in memory; a write failure costs the restart's
 * memory of a session, never a request.
 */

import { type KeptRecord, keptRecord } from '../../session/kept-record.js';
import { type RecordEntry, recordEntry } from '../../session/record.js';
import type { RecordBackend } from '../../session/records.js';
import { keyOf } from '../../store/keys.js';
import { type Splice, spliceId } from './splice.js';

export type Decision = 'tool' | 'client';

export interface SessionRetrieval {
  decision?: Decision;
  splices: Map<string, Splice>;
}

const DECISION = 'decision';
const SESSIONS = 256;

function fromRecord(outputs: ReadonlyMap<string, RecordEntry>): SessionRetrieval {
  const state: SessionRetrieval = { splices: new Map() };
  for (const [id, e] of outputs) {
    if (e.t === undefined || keyOf(e.t) !== e.h) continue;
    if (id === DECISION) {
      if (e.t === 'tool' || e.t === 'client') state.decision = e.t;
      continue;
    }
    try {
      state.splices.set(id, JSON.parse(e.t) as Splice);
    } catch {
      // a damaged entry is one exchange the model no longer sees; the rest stands
    }
  }
  return state;
}

/** The record's key: its own beside the session's replay record (a 16-hex session key). */
const recordKey = (key: string) => keyOf(`retrieval\u0000${key}`);

export class RetrievalSessions {
  private readonly sessions = new Map<string, SessionRetrieval>();
  /** Each session's record as this process last read or wrote it (records.ts: a long-lived caller's). */
  private readonly kept = new Map<string, KeptRecord>();
  /** Each session's last write, so writes of one session land in order. */
  private readonly writes = new Map<string, Promise<unknown>>();

  /** `records` undefined: no place for records (a missing home), the state lives in memory only. */
  constructor(private readonly records: RecordBackend | undefined) {}

  private keptOf(key: string): KeptRecord {
    const k = this.kept.get(key) ?? keptRecord();
    this.kept.set(key, k);
    return k;
  }

  /** A session's state (read from its record the first time), now the most recently used. */
  async of(key: string): Promise<SessionRetrieval> {
    let s = this.sessions.get(key);
    if (s) this.sessions.delete(key);
    else {
      await this.writes.get(key);
      const { records } = this;
      s =
        this.sessions.get(key) ??
        (records
          ? fromRecord((await records.load(recordKey(key), key, this.keptOf(key))).outputs)
          : { splices: new Map() });
      this.sessions.delete(key);
    }
    this.sessions.set(key, s);
    if (this.sessions.size > SESSIONS) {
      const oldest = this.sessions.keys().next().value as string;
      this.sessions.delete(oldest);
      this.kept.delete(oldest);
    }
    return s;
  }

  /** Records the decision (once: a later one is ignored); resolves once written. */
  decide(key: string, s: SessionRetrieval, decision: Decision): Promise<void> {
    if (s.decision !== undefined) return Promise.resolve();
    s.decision = decision;
    return this.save(key, new Map([[DECISION, recordEntry(keyOf(decision), decision, true)]]));
  }

  /** Adds splices (in memory at once); resolves once written. */
  add(key: string, s: SessionRetrieval, splices: readonly Splice[]): Promise<void> {
    const entries = new Map<string, RecordEntry>();
    for (const splice of splices) {
      const id = spliceId(splice);
      s.splices.delete(id);
      s.splices.set(id, splice);
      const text = JSON.stringify(splice);
      entries.set(id, recordEntry(keyOf(text), text, true));
    }
    return entries.size > 0 ? this.save(key, entries) : Promise.resolve();
  }

  private save(key: string, outputs: Map<string, RecordEntry>): Promise<void> {
    const { records } = this;
    if (!records) return Promise.resolve();
    const before = this.writes.get(key) ?? Promise.resolve();
    const write = before
      .then(async () => {
        // The record as it stands now (what this process kept, brought up to date with any other
        // writer's), so the write merges over it as every turn's does.
        const kept = this.keptOf(key);
        const record = await records.load(recordKey(key), key, kept);
        return records.save(recordKey(key), record, { id: `retrieval:${key}`, outputs }, kept);
      })
      .then(
        () => undefined,
        () => undefined,
      );
    this.writes.set(key, write);
    void write.then(() => {
      if (this.writes.get(key) === write) this.writes.delete(key);
    });
    return write;
  }
}
