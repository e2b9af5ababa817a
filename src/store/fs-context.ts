/**
 * What every path of the on-disk store shares (fs-store.ts): its directory and limits, the packs as
 * last listed, the names of its temp files, and the packs this process refreshed lately.
 */
import { join } from 'node:path';
import { PackSet } from './fs-pack.js';
import { TMP_PREFIX } from './fs-prune.js';
import type { StoreOptions } from './store.js';

export const STORE_DEFAULTS: Readonly<Required<Omit<StoreOptions, 'dir'>>> = {
  ttlDays: 14,
  maxBytes: 512 * 1024 * 1024,
  compress: true,
  maxEntryBytes: 1024 * 1024 * 1024,
};

const DAY_MS = 86_400_000;

export interface FsContext {
  readonly dir: string;
  readonly ttlDays: number;
  /** The cap as configured (0: none), for messages. */
  readonly maxBytes: number;
  readonly compress: boolean;
  /** The largest original this store keeps, and so the most any read of it inflates. */
  readonly entryLimit: number;
  readonly limits: { ttlMs: number; capBytes: number };
  readonly packs: PackSet;
  /** Packs this process refreshed, and when (fs-touch.ts). */
  readonly touched: Map<string, number>;
  /** A new temp file's path in the store. */
  tmpPath(): string;
}

let tmpCounter = 0;

export function fsContext(opts: StoreOptions): FsContext {
  const { dir, ttlDays, maxBytes, compress } = opts;
  return {
    dir,
    ttlDays,
    maxBytes,
    compress,
    entryLimit: opts.maxEntryBytes ?? STORE_DEFAULTS.maxEntryBytes,
    limits: {
      ttlMs: ttlDays > 0 ? ttlDays * DAY_MS : Number.POSITIVE_INFINITY,
      capBytes: maxBytes > 0 ? maxBytes : Number.POSITIVE_INFINITY,
    },
    packs: new PackSet(dir),
    touched: new Map(),
    // pid + time + counter is unique on this host, and the exclusive open refuses any clash anyway.
    tmpPath: () =>
      join(
        dir,
        `${TMP_PREFIX}${process.pid}-${Date.now().toString(36)}-${(tmpCounter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
      ),
  };
}

/** The path an entry lives at; callers must have checked isKey(key). */
export function entryPath(dir: string, key: string): string {
  return join(dir, key.slice(0, 2), key);
}

export function shardDir(ctx: FsContext, key: string): string {
  return join(ctx.dir, key.slice(0, 2));
}

/**
 * Whether the packs listed last hold a key, for about `count` keys. Many: one lookup in every
 * pack's keys merged (made again after a pack came or went: 17,000 keys read and sorted); a few:
 * each looked up pack by pack, so a next turn's one new original after a first sight's pack does
 * not pay for the merge.
 */
export function heldIn(ctx: FsContext, count: number): (key: string) => boolean {
  return count > 16 ? ctx.packs.holder() : (key: string) => ctx.packs.find(key).length > 0;
}
