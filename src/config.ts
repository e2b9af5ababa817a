/**
 * Config discovery and strict validation (DESIGN §5). The first file found wins: --config,
 * CG_CONFIG, the project's .cg.yaml (found from the working directory up to the repository root,
 * and used only once trusted with `cg trust`: see trust/state.ts), $XDG_CONFIG_HOME/cg/config.yaml
 * (~/.config/cg/config.yaml). An untrusted project config is ignored whole — its model endpoint,
 * key variable, store location and limits and marker hint would otherwise be a cloned repository's
 * to choose — and one line on stderr says so. Every file is read as a bounded regular file. Unknown
 * keys, unknown component names and bad values are errors naming the file and the dotted path. The
 * YAML parser is imported only when a config file exists, so the common start-up path never loads it.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { COMPONENTS, findComponent } from './components/index.js';
import { ConfigError } from './errors.js';
import { MODEL_CONFIG_DEFAULTS, type ModelConfig, parseModelConfig } from './llm/endpoint.js';
import { hintFor, MARKER_MODES, markerModeFromEnv } from './marker-mode.js';
import { isPreset, PRESET_NAMES, type PresetName } from './presets.js';
import { PROXY_CONFIG_DEFAULTS, type ProxyConfig, parseProxyConfig } from './proxy/config.js';
import { DEFAULT_HINT } from './store/marker.js';
import {
  parseRedisSettings,
  REDIS_DEFAULTS,
  REDIS_STORE_KEYS,
  type RedisSettings,
} from './store/redis-config.js';
import { TOKENIZERS, type TokenizerName } from './tokens.js';
import { announceIgnored } from './trust/notice.js';
import { readTextFile } from './trust/read.js';
import { configHome } from './trust/record.js';
import { projectTrust } from './trust/state.js';
import { parseYamlFile } from './trust/yaml.js';
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
  /** `cg proxy`: upstreams, preset, deadline (honoured only from the user's own config). */
  proxy: ProxyConfig;
}

export const STORE_CONFIG_DEFAULTS: StoreConfig = {
  ...REDIS_DEFAULTS,
  ttlDays: 14,
  maxBytes: 512 * 1024 * 1024,
  compress: true,
  hint: DEFAULT_HINT,
};

const TOP_KEYS = ['preset', 'components', 'store', 'tokenizer', 'model', 'filters', 'proxy'] as const;
const STORE_KEYS = ['dir', 'ttl_days', 'max_mb', 'compress', 'hint', 'marker', ...REDIS_STORE_KEYS] as const;

export function defaultConfig(): CgConfig {
  return {
    components: {},
    store: { ...STORE_CONFIG_DEFAULTS },
    tokenizer: 'o200k',
    model: { ...MODEL_CONFIG_DEFAULTS },
    proxy: { ...PROXY_CONFIG_DEFAULTS },
  };
}

/** Where a config came from: the user named it, the project (trusted) or the user's own file. */
export type ConfigOrigin = 'explicit' | 'project' | 'user';

export interface ConfigText {
  file: string;
  origin: ConfigOrigin;
  text: string;
}

export interface LoadOptions {
  /** Told that an untrusted project config was ignored (default: one `cg: …` line on stderr). */
  onNote?: (line: string) => void;
}

/**
 * The config file to use and its text, or undefined for the defaults. An explicitly named file
 * must exist; a project config that is not trusted is passed over for the user's own.
 */
export function findConfig(
  explicit: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
  opts: LoadOptions = {},
): ConfigText | undefined {
  const named = explicit ?? (env.CG_CONFIG || undefined);
  if (named) {
    const file = resolve(cwd, named);
    if (!existsSync(file)) throw new ConfigError('', `config file not found: ${file}`);
    return { file, origin: 'explicit', text: readConfigText(file) };
  }
  const project = projectTrust(cwd, env);
  if (project.status === 'trusted' && project.contents.config) {
    return { file: project.contents.config.path, origin: 'project', text: project.contents.config.text };
  }
  if (project.status !== 'none' && project.status !== 'trusted' && project.project.config)
    announceIgnored(project, cwd, opts.onNote);
  const user = join(configHome(env), 'cg', 'config.yaml');
  return existsSync(user) ? { file: user, origin: 'user', text: readConfigText(user) } : undefined;
}

export async function loadConfig(
  explicit: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
  opts: LoadOptions = {},
): Promise<CgConfig> {
  const found = findConfig(explicit, env, cwd, opts);
  const cfg = found ? await parseConfigText(found.text, found.file) : defaultConfig();
  const mode = markerModeFromEnv(env);
  if (mode) cfg.store.hint = hintFor(mode, cfg.store.hint);
  return cfg;
}

/**
 * A config file's text → the validated config. Every error names the file (as `shown`, when the
 * user knows it by a shorter path); relative paths in it are relative to the file.
 */
export async function parseConfigText(text: string, file: string, shown = file): Promise<CgConfig> {
  const { value } = await parseYamlFile(text, shown, { mappingOf: 'settings' });
  try {
    return parseConfigObject(value ?? {}, file);
  } catch (err) {
    if (err instanceof ConfigError) throw err.file ? err : new ConfigError(err.path, err.reason, shown);
    throw err;
  }
}

/** The user's own files may be links (dotfiles); each is still a bounded regular file. */
function readConfigText(file: string): string {
  return readTextFile(file, { shown: file, what: 'config file', followLinks: true });
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
    ...(store.dir !== undefined ? { dir: storeDir(string(store.dir, 'store.dir', ''), file) } : {}),
    ttlDays: integer(store.ttl_days, 'store.ttl_days', STORE_CONFIG_DEFAULTS.ttlDays, 0),
    maxBytes: integer(store.max_mb, 'store.max_mb', STORE_CONFIG_DEFAULTS.maxBytes / 2 ** 20, 1) * 2 ** 20,
    compress: boolean(store.compress, 'store.compress', true),
    hint: string(store.hint, 'store.hint', DEFAULT_HINT),
    ...parseRedisSettings(store),
  };
  if (!cfg.store.hint.includes('{key}') && cfg.store.hint.trim() !== '') {
    throw new ConfigError('store.hint', 'must contain {key} so the agent knows what to expand (or be empty)');
  }
  if (store.marker !== undefined) {
    const mode = oneOf(store.marker, 'store.marker', MARKER_MODES, 'full');
    if (mode === 'compact' && store.hint !== undefined && cfg.store.hint !== '')
      throw new ConfigError('store.marker', 'compact writes no hint: drop store.hint or set it to ""');
    cfg.store.hint = hintFor(mode, cfg.store.hint);
  }
  try {
    cfg.model = parseModelConfig(top.model);
  } catch (err) {
    if (err instanceof ConfigError) throw err.under('model');
    throw err;
  }
  try {
    cfg.proxy = parseProxyConfig(top.proxy);
  } catch (err) {
    if (err instanceof ConfigError) throw err.under('proxy');
    throw err;
  }
  // A section whose feature lands later: accepted only empty, so a typo is never silently ignored.
  mapping(top.filters, 'filters', []);
  return cfg;
}

/** ~ is the home directory; a relative dir is relative to the file that names it, not the cwd. */
function storeDir(path: string, file: string | undefined): string {
  if (path === '') return path;
  if (path === '~' || path.startsWith('~/')) return join(homedir(), path.slice(1));
  return file && !isAbsolute(path) ? resolve(dirname(file), path) : path;
}
