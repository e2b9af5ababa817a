/**
 * The store interface: a content-addressed stash of originals, so every lossy rewrite can be undone
 * with `cg expand KEY`. Implementations must be safe with many concurrent processes and must never
 * build a path from an unvalidated key.
 */
export type PutResult =
  | { ok: true; key: string; created: boolean }
  | { ok: false; key: string; reason: 'collision' | 'unwritable' | 'disabled' | 'error'; detail?: string };

export interface StoreInfo {
  dir: string;
  entries: number;
  bytes: number;
  oldestMtimeMs?: number;
  newestMtimeMs?: number;
  ttlDays: number;
  maxBytes: number;
  compress: boolean;
}

export interface PruneResult {
  removed: number;
  freedBytes: number;
  remaining: number;
  remainingBytes: number;
  /** Entries due for removal that could not be removed (a read-only store); absent means none. */
  failed?: number;
}

/** What a read found. `corrupt`: something sits under the key that is not its original. */
export type EntryRead =
  | { found: true; bytes: Buffer }
  | { found: false; why: 'missing' | 'corrupt' | 'unavailable'; detail?: string };

/**
 * `cg store clear|prune` could not do what it was asked (a read-only store, say): the CLI prints the
 * message as one line and exits 1 rather than reporting "removed 0 entries".
 */
export class StoreActionError extends Error {
  readonly exitCode = 1;
}

export interface Store {
  readonly dir: string;
  /** Whether puts can succeed now (directory creatable and writable); cached per process. */
  writable(): Promise<boolean>;
  /**
   * Stashes the original's UTF-8 bytes under keyOf(original); idempotent for identical bytes.
   * `bytes`, when given, must be exactly that encoding (it spares re-encoding a large input).
   */
  put(original: string, bytes?: Uint8Array): Promise<PutResult>;
  /** The original bytes, or undefined when absent or corrupt. Touches the entry's mtime (LRU). */
  get(key: string): Promise<Buffer | undefined>;
  /** Like get, but says why an entry is not there (optional: readEntry falls back to get). */
  read?(key: string): Promise<EntryRead>;
  /**
   * Whether an entry exists under key, without reading it (optional: a caller without it falls back
   * on put, which reads an existing entry to compare).
   */
  has?(key: string): Promise<boolean>;
  info(): Promise<StoreInfo>;
  /**
   * Removes expired entries (TTL), then least-recently-used until under the size cap. An entry used
   * while the prune runs is never removed. A forced prune throws StoreActionError when the store
   * cannot be written.
   */
  prune(opts?: { force?: boolean }): Promise<PruneResult>;
  /** Removes every entry; returns how many. Throws StoreActionError when some could not be removed. */
  clear(): Promise<number>;
}

/** store.read when the backend has it, else get (which cannot tell missing from corrupt). */
export async function readEntry(store: Store, key: string): Promise<EntryRead> {
  if (store.read) return store.read(key);
  const bytes = await store.get(key);
  return bytes ? { found: true, bytes } : { found: false, why: 'missing' };
}

export interface StoreOptions {
  dir: string;
  ttlDays: number;
  maxBytes: number;
  compress: boolean;
}
