/**
 * Opens the store the CLI and library use: CG_STORE_DIR, else the config's store.dir, else the XDG
 * cache location; limits from the config file.
 */
import { resolve } from 'node:path';
import type { StoreConfig } from '../config.js';
import { createFsStore } from './fs-store.js';
import { resolveStoreDir } from './location.js';
import type { Store } from './store.js';

export function openStore(cfg: StoreConfig, env: NodeJS.ProcessEnv = process.env): Store {
  const dir = !env.CG_STORE_DIR && cfg.dir ? resolve(cfg.dir) : resolveStoreDir(env);
  return createFsStore({ dir, ttlDays: cfg.ttlDays, maxBytes: cfg.maxBytes, compress: cfg.compress });
}
