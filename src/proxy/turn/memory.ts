/**
 * A long-lived caller's memory of its conversations (the proxy keeps one): per session, the last
 * turn's carry (carry.ts) and the session's record (src/session/kept-record.ts), so each turn of it costs
 * what is new. Bounded: the most recently used sessions only, and no more than a budget of bodies
 * (each carry holds its last body as received and as sent).
 */
import { type KeptRecord, keptRecord } from '../../session/kept-record.js';
import type { TurnCarry } from './carry.js';

export interface SessionMemory {
  carry?: TurnCarry;
  kept: KeptRecord;
}

export class TurnMemory {
  private readonly sessions = new Map<string, SessionMemory>();

  constructor(
    private readonly maxSessions = 8,
    private readonly maxBytes = 512 * 1024 * 1024,
  ) {}

  /** The memory of one session (made empty on first use), now the most recently used. */
  of(key: string): SessionMemory {
    let m = this.sessions.get(key);
    if (m) this.sessions.delete(key);
    else m = { kept: keptRecord() };
    this.sessions.set(key, m);
    // Bounded on every use, not only when a turn leaves a carry: a session whose bodies are never
    // placed must not stay forever.
    this.settle();
    return m;
  }

  /** Forgets the least recently used sessions beyond the bounds. */
  settle(): void {
    let bytes = 0;
    for (const m of this.sessions.values()) bytes += (m.carry?.raw.length ?? 0) + (m.carry?.sent.length ?? 0);
    for (const [key, m] of this.sessions) {
      if (this.sessions.size <= this.maxSessions && bytes <= this.maxBytes) break;
      bytes -= (m.carry?.raw.length ?? 0) + (m.carry?.sent.length ?? 0);
      this.sessions.delete(key);
    }
  }
}
