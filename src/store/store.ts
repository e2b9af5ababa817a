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
  /** The original bytes, or undefined when absent. Touches the entry's mtime (LRU). */
  get(key: string): Promise<Buffer | undefined>;
  /**
   * Whether an entry exists under key, without reading it (optional: a caller without it falls back
   * on put, which reads an existing entry to compare).
   */
  has?(key: string): Promise<boolean>;
  info(): Promise<StoreInfo>;
  /** Removes expired entries (TTL), then least-recently-used until under the size cap. */
  prune(opts?: { force?: boolean }): Promise<PruneResult>;
  /** Removes every entry; returns how many. */
  clear(): Promise<number>;
}

export interface StoreOptions {
  dir: string;
  ttlDays: number;
  maxBytes: number;
  compress: boolean;
}
