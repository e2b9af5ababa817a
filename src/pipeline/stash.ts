/**
 * Stash before the marker (DESIGN §1.1): an original goes into the store before any text that
 * points at it is kept. One function for every lossy change the pipeline keeps (an output's
 * rewrite, a replacement of messages, a replayed decision whose original had gone).
 */
import type { Store } from '../store/store.js';

export type Stashed = { ok: true; created: boolean } | { ok: false; why: string };

/** Stashes the original; `created` says it was not in the store before. */
export async function stash(store: Store, original: string, bytes?: Uint8Array): Promise<Stashed> {
  const put = await store.put(original, bytes);
  if (put.ok) return { ok: true, created: put.created };
  return { ok: false, why: `${put.reason}${put.detail ? `: ${put.detail}` : ''}` };
}
