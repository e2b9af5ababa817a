/**
 * Which session a request belongs to. An explicit id (`--session`, `CG_SESSION`) wins; otherwise the
 * id is derived from what never changes within one conversation: its format, system prompt and first
 * user message. The record's file name is always a content key of that identity, so no user-given
 * string ever becomes a path.
 */
import type { Transcript } from '../input/transcript.js';
import { keyOf } from '../store/keys.js';

export interface SessionIdentity {
  /** The explicit id, or "derived:<key>", for messages. */
  label: string;
  /** 16 hex: the record's file name. */
  key: string;
}

export function sessionIdentity(
  t: Pick<Transcript, 'format' | 'messages' | 'system'>,
  explicit?: string,
): SessionIdentity | undefined {
  if (explicit !== undefined && explicit !== '') {
    return { label: explicit, key: keyOf(`explicit\u0000${explicit}`) };
  }
  const system = t.system ?? t.messages.find((m) => m.role === 'system' || m.role === 'developer')?.text;
  const firstUser = t.messages.find((m) => m.role === 'user')?.text;
  // Nothing stable to tell conversations apart: better no replay than replaying another's decisions.
  if (system === undefined && firstUser === undefined) return undefined;
  const key = keyOf(JSON.stringify(['derived', t.format, system ?? null, firstUser ?? null]));
  return { label: `derived:${key}`, key };
}
