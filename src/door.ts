/**
 * The one door factory. Every door into the pipeline — the pipe and `cg run`, the agent hook, the
 * MCP server, the proxy and the library — compacts with the same three things built from a loaded
 * config: the store of originals (null: lossless components only), the declarative filters in the
 * lookup order of DESIGN §5 (lazy: nothing is read until cmdfilter asks), and a token counter.
 * Building them here, once, keeps the doors from drifting apart (which env a store is opened
 * with, which directory filters are looked up from). A door that has its own keeps it.
 */
import type { CgConfig } from './config.js';
import { createFilterSource } from './dsl/registry.js';
import type { FilterSource } from './dsl/types.js';
import type { ConfigError } from './errors.js';
import { openStore } from './store/open.js';
import type { Store } from './store/store.js';
import { createTokens, type TokenizerName, type Tokens } from './tokens.js';

export interface DoorOptions {
  /** Opens the store and looks up filters (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Where project filters are looked up from (default process.cwd()). */
  cwd?: string;
  /** false: no store (--no-store); a Store or null: that one; absent: the config's. */
  store?: Store | null | false;
  /** --filters FILE: a filter file tried before all others (missing: a ConfigError at once). */
  filtersFile?: string;
  /** Told that project filters were ignored, or what else the lookup has to say. */
  onNote?: (line: string) => void;
  /** Overrides the config's tokenizer (--tokenizer). */
  tokenizer?: TokenizerName;
  /** The door's own filters or token counter (a library caller's), used as they are. */
  filters?: DoorFilters;
  tokens?: Tokens;
}

/** Filters as the pipeline selects them; `error` once loading failed (the door reports it). */
export type DoorFilters = FilterSource & { readonly error?: ConfigError | undefined };

export interface Door {
  config: CgConfig;
  store: Store | null;
  filters: DoorFilters;
  tokenizer: TokenizerName;
  tokens: Tokens;
}

/** With the config's store, or one given: a door that always has a store. */
export function openDoor(config: CgConfig, o?: DoorOptions & { store?: Store }): Door & { store: Store };
export function openDoor(config: CgConfig, o?: DoorOptions): Door;
export function openDoor(config: CgConfig, o: DoorOptions = {}): Door {
  const env = o.env ?? process.env;
  const store = o.store === false ? null : o.store !== undefined ? o.store : openStore(config.store, env);
  const filters =
    o.filters ??
    createFilterSource({
      ...(o.filtersFile !== undefined ? { filtersFile: o.filtersFile } : {}),
      cwd: o.cwd ?? process.cwd(),
      env,
      ...(o.onNote ? { onNote: o.onNote } : {}),
    });
  const tokenizer = o.tokenizer ?? config.tokenizer;
  return { config, store, filters, tokenizer, tokens: o.tokens ?? createTokens(tokenizer) };
}
