/**
 * A client's retry (Claude Code resends the same body after a 429 or 529) is the same input for the
 * same session, so the engine — deterministic, and replaying that session's record — would give the
 * same bytes again. The proxy keeps each recent session's last body and what it sent for it, and
 * answers a repeat from there instead of compacting the whole session again. The bodies are compared
 * byte for byte (a memcmp, cheaper than hashing every turn's body to find the rare repeat).
 */

/** Sessions whose last turn is kept (each holds one body as received and as sent). */
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
  const last = new Map<string, { raw: Buffer; sent: Remembered }>();
  return {
    get(session, raw) {
      if (session === undefined) return undefined;
      const m = last.get(session);
      return m?.raw.equals(raw) ? m.sent : undefined;
    },
    set(session, raw, sent) {
      if (session === undefined) return;
      last.delete(session);
      last.set(session, { raw, sent });
      if (last.size > SESSIONS) last.delete(last.keys().next().value as string);
    },
  };
}
