/**
 * A client's retry (Claude Code resends the same body after a 429 or 529) is the same input for the
 * same session, so the engine — deterministic, and replaying that session's record — would give the
 * same bytes again. The proxy keeps each recent session's last body key and what it sent for it,
 * and answers a repeat from there instead of compacting the whole session again.
 */
import { keyOf } from '../store/keys.js';

/** Sessions whose last turn is kept (each holds one compacted body). */
const SESSIONS = 4;

export interface Remembered {
  body: Buffer;
  rewritten: boolean;
}

export interface RetryMemo {
  get(session: string | undefined, raw: Buffer): Remembered | undefined;
  set(session: string | undefined, raw: Buffer, sent: Remembered): void;
}

export function retryMemo(): RetryMemo {
  const last = new Map<string, { key: string; length: number; sent: Remembered }>();
  return {
    get(session, raw) {
      if (session === undefined) return undefined;
      const m = last.get(session);
      // The length first: a different body almost always differs in size, and costs no hash.
      return m && m.length === raw.length && m.key === keyOf(raw) ? m.sent : undefined;
    },
    set(session, raw, sent) {
      if (session === undefined) return;
      last.delete(session);
      last.set(session, { key: keyOf(raw), length: raw.length, sent });
      if (last.size > SESSIONS) last.delete(last.keys().next().value as string);
    },
  };
}
