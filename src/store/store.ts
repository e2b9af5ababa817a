/**
 * The store interface: a content-addressed stash of originals, so every lossy rewrite can be undone
 * with `cg expand KEY`. Implementations must be safe with many concurrent processes, must never
 * build a path (or a server key) from an unvalidated key, and must answer a put with ok only once
 * the original is persisted. Backends: the disk (fs-store.ts) and Redis (redis-store.ts, behind
 * fleet-store.ts); open.ts chooses.
 */
export type PutResult =
  | { ok: true; key: string; created: boolean }
  | { ok: false; key: string; reason: 'collision' | 'unwritable' | 'disabled' | 'error'; detail?: string };

export interface StoreInfo {
  dir: string;
  entries: number;
  bytes: number;
  /** Last use of the least and most recently used entries. */
  oldestMtimeMs?: number;
  newestMtimeMs?: number;
  ttlDays: number;
  /** The size cap; 0 when the backend leaves it to the server (Redis maxmemory). */
  maxBytes: number;
  compress: boolean;
  /** Absent means the disk store. */
  backend?: 'disk' | 'redis';
  /** The Redis server, for the redis backend. */
  server?: ServerInfo;
  /** The local disk store a shared backend falls back to or caches in, and in which roles. */
  local?: StoreInfo & { fallback: boolean; cache: boolean };
}

/** A shared server as `cg store info` shows it; `error` when it could not be asked. */
export interface ServerInfo {
  url: string;
  prefix: string;
  version?: string;
  usedMemory?: number;
  maxMemory?: number;
  maxMemoryPolicy?: string;
  error?: string;
}

export interface PruneResult {
  removed: number;
  freedBytes: number;
  remaining: number;
  remainingBytes: number;
  /** Entries due for removal that could not be removed (a read-only store); absent means none. */
  failed?: number;
  /** Redis: entries that had no expiry and were given one. */
  expirySet?: number;
  /** The local disk store's own prune, for a shared backend that has one. */
  local?: PruneResult;
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

/**
 * A read that knows how long the original is (a stats record says): nothing longer is inflated, and
 * an entry that would be is corrupt. The store's own limit (max_entry_mb) applies either way.
 */
export interface ReadLimit {
  maxBytes?: number;
}

/** One original for putMany: what put takes. */
export interface PutItem {
  original: string;
  /** Exactly original's UTF-8 encoding, when the caller holds it. */
  bytes?: Uint8Array;
}

export interface Store {
  /**
   * Where entries live, as cg prints it and stats records refer to it: the directory, or for a
   * shared store its URL without the password and its prefix (`redis://host:6379/0#cg:`).
   */
  readonly dir: string;
  /** Whether puts can succeed now (directory creatable and writable); cached per process. */
  writable(): Promise<boolean>;
  /**
   * Stashes the original's UTF-8 bytes under keyOf(original); idempotent for identical bytes.
   * `bytes`, when given, must be exactly that encoding (it spares re-encoding a large input).
   */
  put(original: string, bytes?: Uint8Array): Promise<PutResult>;
  /**
   * put for many originals at once (optional: putAll falls back on put): one result per item, in
   * order, each answered ok only once that original is persisted, as put promises. A backend makes
   * a batch cheaper than its puts one by one (one durability barrier, one round trip).
   */
  putMany?(items: readonly PutItem[]): Promise<PutResult[]>;
  /** The original bytes, or undefined when absent or corrupt. Touches the entry's mtime (LRU). */
  get(key: string): Promise<Buffer | undefined>;
  /** Like get, but says why an entry is not there (optional: readEntry falls back to get). */
  read?(key: string, opts?: ReadLimit): Promise<EntryRead>;
  /**
   * Whether an entry exists under key, without reading it (optional: a caller without it falls back
   * on put, which reads an existing entry to compare).
   */
  has?(key: string): Promise<boolean>;
  /** has for many keys at once (optional: hasAll falls back on has). */
  hasMany?(keys: readonly string[]): Promise<boolean[]>;
  /** Like read, but leaves the entry's LRU time or expiry as it was (counting is not a use). */
  peek?(key: string, opts?: ReadLimit): Promise<EntryRead>;
  /**
   * When entries were last removed (a prune or a clear, by any process), where the backend can tell
   * (optional). A caller that remembers which keys are stored forgets that when this changes.
   */
  removedAt?(): Promise<number | undefined>;
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
export async function readEntry(store: Store, key: string, limit?: ReadLimit): Promise<EntryRead> {
  if (store.read) return store.read(key, limit);
  const bytes = await store.get(key);
  return bytes ? { found: true, bytes } : { found: false, why: 'missing' };
}

/** store.putMany when the backend has it, else its puts one after another. */
export async function putAll(store: Store, items: readonly PutItem[]): Promise<PutResult[]> {
  if (store.putMany) return store.putMany(items);
  const results: PutResult[] = [];
  for (const { original, bytes } of items) results.push(await store.put(original, bytes));
  return results;
}

/** store.hasMany when the backend has it, else has per key; undefined when the store cannot tell. */
export async function hasAll(store: Store, keys: readonly string[]): Promise<boolean[] | undefined> {
  if (store.hasMany) return store.hasMany(keys);
  if (!store.has) return undefined;
  const found: boolean[] = [];
  for (const k of keys) found.push(await store.has(k));
  return found;
}

export interface StoreOptions {
  dir: string;
  ttlDays: number;
  maxBytes: number;
  compress: boolean;
  /**
   * The largest original kept (store.max_entry_mb), uncompressed: a put of a larger one is refused,
   * and no read inflates a stored form past it. Absent: the default (1 GiB).
   */
  maxEntryBytes?: number;
}
