/**
 * Config discovery and strict validation (DESIGN §5). The first file found wins: --config,
 * CG_CONFIG, ./.cg.yaml, $XDG_CONFIG_HOME/cg/config.yaml (~/.config/cg/config.yaml). Unknown keys,
 * unknown component names and bad values are errors naming the file and the dotted path. The YAML
 * parser is imported only when a config file exists, so the common start-up path never loads it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { COMPONENTS, findComponent } from './components/index.js';
import { ConfigError } from './errors.js';
import { cjsExports } from './lazy.js';
import { MODEL_CONFIG_DEFAULTS, type ModelConfig, parseModelConfig } from './llm/endpoint.js';
import { isPreset, PRESET_NAMES, type PresetName } from './presets.js';
import { DEFAULT_HINT } from './store/marker.js';
import {
  parseRedisSettings,
  REDIS_DEFAULTS,
  REDIS_STORE_KEYS,
  type RedisSettings,
} from './store/redis-config.js';
import { TOKENIZERS, type TokenizerName } from './tokens.js';
import { boolean, describe, integer, mapping, oneOf, string } from './validate.js';

/** The Redis keys (url, prefix, …) are described in store/redis-config.ts. */
export interface StoreConfig extends RedisSettings {
  /** From the config file; CG_STORE_DIR still wins over it. */
  dir?: string;
  ttlDays: number;
  maxBytes: number;
  compress: boolean;
  /** Text after the marker: {key} and {args} are filled in. */
  hint: string;
}

export interface CgConfig {
  /** The file this came from, if any. */
  file?: string;
  preset?: PresetName;
  /** Parsed per-component config, keyed by component name (only those the file mentions). */
  components: Record<string, unknown>;
  store: StoreConfig;
  tokenizer: TokenizerName;
  /** The model for model-assisted components (extract's code strategy, summarize). */
  model: ModelConfig;
}

export const STORE_CONFIG_DEFAULTS: StoreConfig = {
  ...REDIS_DEFAULTS,
  ttlDays: 14,
  maxBytes: 512 * 1024 * 1024,
  compress: true,
  hint: DEFAULT_HINT,
};

const TOP_KEYS = ['preset', 'components', 'store', 'tokenizer', 'model', 'filters'] as const;
const STORE_KEYS = ['dir', 'ttl_days', 'max_mb', 'compress', 'hint', ...REDIS_STORE_KEYS] as const;

export function defaultConfig(): CgConfig {
  return {
    components: {},
    store: { ...STORE_CONFIG_DEFAULTS },
    tokenizer: 'o200k',
    model: { ...MODEL_CONFIG_DEFAULTS },
  };
}

/** Finds the config file to use, or undefined. An explicitly named file must exist. */
export function findConfigFile(
  explicit: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
): string | undefined {
  const named = explicit ?? (env.CG_CONFIG || undefined);
  if (named) {
    const path = resolve(cwd, named);
    if (!existsSync(path)) throw new ConfigError('', `config file not found: ${path}`);
    return path;
  }
  const local = join(cwd, '.cg.yaml');
  if (existsSync(local)) return local;
  const xdg = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  const user = join(xdg, 'cg', 'config.yaml');
  return existsSync(user) ? user : undefined;
}

export async function loadConfig(
  explicit: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): Promise<CgConfig> {
  const file = findConfigFile(explicit, env, cwd);
  if (!file) return defaultConfig();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError('', `cannot read config: ${(err as Error).message}`, file);
  }
  const { parseDocument } = cjsExports(await import('yaml'));
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const where = e.linePos?.[0] ? `line ${e.linePos[0].line}: ` : '';
    throw new ConfigError('', `invalid YAML: ${where}${e.message.split('\n')[0]}`, file);
  }
  try {
    return parseConfigObject(doc.toJS() ?? {}, file);
  } catch (err) {
    if (err instanceof ConfigError) throw err.file ? err : new ConfigError(err.path, err.reason, file);
    throw err;
  }
}

/** Validates an already-parsed config object (also used by the library API). */
export function parseConfigObject(raw: unknown, file?: string): CgConfig {
  const top = mapping(raw, '', TOP_KEYS);
  const cfg = defaultConfig();
  if (file) cfg.file = file;
  if (top.preset !== undefined) {
    if (typeof top.preset !== 'string' || !isPreset(top.preset)) {
      throw new ConfigError(
        'preset',
        `expected one of ${PRESET_NAMES.join(', ')}, got ${describe(top.preset)}`,
      );
    }
    cfg.preset = top.preset;
  }
  cfg.tokenizer = oneOf(top.tokenizer, 'tokenizer', TOKENIZERS, 'o200k');
  const comps = mapping(
    top.components,
    'components',
    COMPONENTS.map((c) => c.name),
  );
  for (const [name, value] of Object.entries(comps)) {
    const component = findComponent(name)!;
    try {
      cfg.components[name] = component.parseConfig(value ?? {});
    } catch (err) {
      if (err instanceof ConfigError) throw err.under(`components.${name}`);
      throw new ConfigError(`components.${name}`, (err as Error).message);
    }
  }
  const store = mapping(top.store, 'store', STORE_KEYS);
  cfg.store = {
    ...(store.dir !== undefined ? { dir: expandHome(string(store.dir, 'store.dir', '')) } : {}),
    ttlDays: integer(store.ttl_days, 'store.ttl_days', STORE_CONFIG_DEFAULTS.ttlDays, 0),
    maxBytes: integer(store.max_mb, 'store.max_mb', STORE_CONFIG_DEFAULTS.maxBytes / 2 ** 20, 1) * 2 ** 20,
    compress: boolean(store.compress, 'store.compress', true),
    hint: string(store.hint, 'store.hint', DEFAULT_HINT),
    ...parseRedisSettings(store),
  };
  if (!cfg.store.hint.includes('{key}') && cfg.store.hint.trim() !== '') {
    throw new ConfigError('store.hint', 'must contain {key} so the agent knows what to expand (or be empty)');
  }
  try {
    cfg.model = parseModelConfig(top.model);
  } catch (err) {
    if (err instanceof ConfigError) throw err.under('model');
    throw err;
  }
  // A section whose feature lands later: accepted only empty, so a typo is never silently ignored.
  mapping(top.filters, 'filters', []);
  return cfg;
}

function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path;
}
