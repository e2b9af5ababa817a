/**
 * The store when there is nowhere to keep originals: its default location hangs from a home
 * directory that does not exist (home.ts), and cg never creates one. Nothing is stashed, so only
 * lossless rewrites happen (DESIGN §1.1), and the first time a run would have stashed, one line says
 * why and what to set; reads find nothing and say why.
 */
import { keyOf } from './keys.js';
import type { EntryRead, PruneResult, PutResult, Store, StoreInfo } from './store.js';

export interface NoStoreOptions {
  /** Where the store would have been, as cg prints it. */
  dir: string;
  /** Why it is not (`the home directory /nonexistent does not exist`). */
  reason: string;
  ttlDays: number;
  maxBytes: number;
  compress: boolean;
  /** Prints one line (without the `cg: ` prefix). */
  warn: (line: string) => void;
}

export function createNoStore(opts: NoStoreOptions): Store {
  const { dir, reason } = opts;
  let warned = false;
  const refused = (key: string): PutResult => ({
    ok: false,
    key,
    reason: 'disabled',
    detail: `no store: ${reason}`,
  });
  const none: EntryRead = { found: false, why: 'unavailable', detail: `no store: ${reason}` };
  const empty: PruneResult = { removed: 0, freedBytes: 0, remaining: 0, remainingBytes: 0 };
  return {
    dir,
    async writable() {
      if (!warned) {
        warned = true;
        opts.warn(`no store (${reason}); lossless rewrites only: set CG_STORE_DIR to keep originals`);
      }
      return false;
    },
    put: async (original) => refused(keyOf(original)),
    get: async () => undefined,
    read: async () => none,
    peek: async () => none,
    has: async () => false,
    hasMany: async (keys) => keys.map(() => false),
    async info(): Promise<StoreInfo> {
      const { ttlDays, maxBytes, compress } = opts;
      return { dir, entries: 0, bytes: 0, ttlDays, maxBytes, compress };
    },
    prune: async () => empty,
    clear: async () => 0,
  };
}
