/**
 * Each session's retrieval state, kept in its own session record (record.ts: the same directory,
 * atomic writes, locking and pruning as the replay records), so every turn is made the same way
 * and a restarted proxy carries on where it left:
 *   - the decision, made once, on the first turn the proxy put a marker into: `tool` (the proxy
 *     adds cg_expand to this request and every later one) or `client` (the client opens markers
 *     itself; nothing is ever added);
 *   - the splices (splice.ts) that give the model back the exchanges it had and the client never
 *     saw, in the order they were made.
 * The record's entries are {h: content key, t: the JSON text, f: 1}: `decision`, and one per
 * splice under its place (spliceId), a later one at a place replacing the earlier. A long-lived
 * process keeps the most recently used sessions in memory; a write failure costs the restart's
 * memory of a session, never a request.
 */

import { loadRecord, type RecordEntry, recordEntry, recordPath, saveRecord } from '../../session/record.js';
import { keyOf } from '../../store/keys.js';
import { type Splice, spliceId } from './splice.js';

export type Decision = 'tool' | 'client';

export interface SessionRetrieval {
  decision?: Decision;
  splices: Map<string, Splice>;
}

const DECISION = 'decision';
const SESSIONS = 256;

const latest = (_: RecordEntry, ours: RecordEntry) => ours;

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

export class RetrievalSessions {
  private readonly sessions = new Map<string, SessionRetrieval>();
  /** Each session's last write, so writes of one session land in order. */
  private readonly writes = new Map<string, Promise<unknown>>();

  /** `dir` undefined: no place for records (a missing home), the state lives in memory only. */
  constructor(private readonly dir: string | undefined) {}

  private path(key: string): string | undefined {
    return this.dir === undefined ? undefined : recordPath(this.dir, keyOf(`retrieval\u0000${key}`));
  }

  /** A session's state (read from its record the first time), now the most recently used. */
  async of(key: string): Promise<SessionRetrieval> {
    let s = this.sessions.get(key);
    if (s) this.sessions.delete(key);
    else {
      await this.writes.get(key);
      const path = this.path(key);
      s =
        this.sessions.get(key) ??
        (path ? fromRecord((await loadRecord(path, key, latest)).outputs) : { splices: new Map() });
      this.sessions.delete(key);
    }
    this.sessions.set(key, s);
    if (this.sessions.size > SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
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
    const { dir } = this;
    const path = this.path(key);
    if (dir === undefined || path === undefined) return Promise.resolve();
    const before = this.writes.get(key) ?? Promise.resolve();
    const write = before
      .then(() => saveRecord(dir, path, { id: `retrieval:${key}`, outputs }, latest))
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
