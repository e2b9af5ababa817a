/**
 * The library API: the same engine as the CLI. `compact()` rewrites raw text or a request body and
 * stashes originals in the store (the default store unless told otherwise); `expand()` gives an
 * original back by key or marker; `loadFilters()` lists the declarative filters a directory sees.
 * Filters follow the CLI's lookup order (DESIGN §5) relative to `cwd` unless a FilterSource is given.
 */
import { type CgConfig, defaultConfig, loadConfig } from './config.js';
import { openDoor } from './door.js';
import {
  createFilterSource,
  type FilterSourceOptions,
  loadFilters as loadFilterSet,
} from './dsl/registry.js';
import { type CompactOptions, compactText, toConfig } from './engine.js';
import { parseKeys } from './store/marker.js';
import { openStore } from './store/open.js';
import type { Store } from './store/store.js';

export type { Component, Loss, ModelAccess, Outcome, ToolOutput } from './component.js';
export type { CgConfig } from './config.js';
export type { CompiledFilter, FilterResult } from './dsl/types.js';
export type { PipelineEvent } from './pipeline/run.js';
export { createFsStore } from './store/fs-store.js';
export { keyOf } from './store/keys.js';
export type { Store } from './store/store.js';
export { createFilterSource, loadConfig };

export interface CompactApiOptions extends Omit<CompactOptions, 'store' | 'config'> {
  /** A config object (validated like a config file) or an already-loaded config. */
  config?: CgConfig | Record<string, unknown>;
  /** A store, null for lossless-only, or omitted for the default store. */
  store?: Store | null;
}

export async function compact(input: string, options: CompactApiOptions = {}) {
  const { config, store, filters, tokens } = openDoor(toConfig(options.config), {
    ...(options.store !== undefined ? { store: options.store } : {}),
    ...(options.filters ? { filters: options.filters } : {}),
    ...(options.tokenizer !== undefined ? { tokenizer: options.tokenizer } : {}),
    ...(options.tokens ? { tokens: options.tokens } : {}),
  });
  const { output, events, changed, format } = await compactText(input, {
    ...options,
    config,
    store,
    filters,
    tokens,
  });
  return { output, events, changed, format };
}

/** Every filter visible from `cwd` (--filters file, trusted project, user, builtins), in selection order. */
export async function loadFilters(opts: Partial<FilterSourceOptions> = {}) {
  const loaded = await loadFilterSet({ cwd: process.cwd(), env: process.env, ...opts });
  return loaded.filters;
}

/** The original behind a key or marker, or undefined when the store does not have it. */
export async function expand(keyOrMarker: string, options: { store?: Store; config?: CgConfig } = {}) {
  const parsed = parseKeys(keyOrMarker);
  if (!parsed.ok) throw new Error(parsed.reason);
  if (parsed.keys.length !== 1) throw new Error('expand() takes exactly one key; call it once per key');
  const store = options.store ?? openStore((options.config ?? defaultConfig()).store);
  const bytes = await store.get(parsed.keys[0]!);
  return bytes?.toString('utf8');
}
