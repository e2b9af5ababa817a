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
import { COMPONENTS } from './components/index.js';
import { boolean, type ConfigOf, integer, oneOf, parsedBy, section, string } from './config/fields.js';
import { ConfigError } from './errors.js';
import { MODEL_CONFIG } from './llm/endpoint.js';
import { hintFor, MARKER_MODES, type MarkerMode, markerModeFromEnv } from './marker-mode.js';
import { PRESET_NAMES } from './presets.js';
import { PROXY_CONFIG } from './proxy/config.js';
import { DEFAULT_HINT } from './store/marker.js';
import { REDIS_FIELDS } from './store/redis-config.js';
import { TOKENIZERS } from './tokens.js';
import { announceIgnored } from './trust/notice.js';
import { readTextFile } from './trust/read.js';
import { configHome } from './trust/record.js';
import { projectTrust } from './trust/state.js';
import { parseYamlFile } from './trust/yaml.js';

const MIB = 2 ** 20;

/** The store section; the Redis keys (url, prefix, …) are described in store/redis-config.ts. */
const STORE = section({
  /** From the config file, relative to it; CG_STORE_DIR still wins over it. */
  dir: string()
    .optional()
    .doc('where originals go, relative to this file (CG_STORE_DIR wins)', '`~/.cache/cg/store`'),
  ttlDays: integer().key('ttl_days').or(14).doc('days an unused original is kept'),
  maxBytes: integer({ min: 1 })
    .key('max_mb')
    .or(512)
    .to((mb) => mb * MIB)
    .doc('MiB past which the least recently used originals go'),
  compress: boolean().or(true).doc('gzip an original when that pays'),
  /**
   * The largest original either store keeps, uncompressed (1 GiB; Node's buffers stop at 4 GiB): a
   * larger one is not stashed (its rewrite is reverted), and no read inflates a stored form past it,
   * so a planted value that inflates to gigabytes reads as corrupt (store/verify.ts).
   */
  maxEntryBytes: integer({ min: 1, max: 4095 })
    .key('max_entry_mb')
    .or(1024)
    .to((mb) => mb * MIB)
    .doc('MiB: the largest original kept or read back, uncompressed'),
  /** Text after the marker: {key} and {args} are filled in. */
  hint: string()
    .check(hintProblem)
    .optional()
    .doc(
      'text after each marker; `{key}` and `{args}` filled in',
      '`" [full output: cg expand {key}{args}]"`',
    ),
  /** full or compact: a shorthand for the hint (marker-mode.ts). */
  marker: oneOf(MARKER_MODES)
    .optional()
    .doc('`compact`: the marker alone (as `hint: ""`); CG_MARKER wins', '`full`'),
  ...REDIS_FIELDS,
}).to(markerHint);
export type StoreConfig = ConfigOf<typeof STORE>;

export const STORE_CONFIG_DEFAULTS: Readonly<StoreConfig> = Object.freeze(STORE.defaults);

/** Each component's own section, parsed by its parseConfig; only those the file mentions. */
const COMPONENT_SETTINGS = section(
  Object.fromEntries(COMPONENTS.map((c) => [c.name, parsedBy((raw) => c.parseConfig(raw)).optional()])),
).to((components): Record<string, unknown> => components);

/** The config file's top level (exported for the reference tables, scripts/docs.mjs). */
export const CONFIG = section({
  preset: oneOf(PRESET_NAMES)
    .optional()
    .doc('the preset when no --preset or --components', '`shell` (text), `balanced` (bodies)'),
  /** Parsed per-component config, keyed by component name (only those the file mentions). */
  components: COMPONENT_SETTINGS,
  store: STORE,
  tokenizer: oneOf(TOKENIZERS).or('o200k').doc('`o200k` or `cl100k`'),
  /** The model for model-assisted components (extract's code strategy, summarize). */
  model: MODEL_CONFIG,
  /** A section whose feature lands later: accepted only empty, so a typo is never silently ignored. */
  filters: section({}).doc('reserved: accepted only empty'),
  /** `cg proxy`: upstreams, preset, deadline (honoured only from the user's own config). */
  proxy: PROXY_CONFIG,
}).to(({ filters, ...cfg }) => cfg);

export type CgConfig = ConfigOf<typeof CONFIG> & {
  /** The file this came from, if any. */
  file?: string;
};

export function defaultConfig(): CgConfig {
  return CONFIG.defaults;
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
 * user knows it by a shorter path); relative paths in it are relative to the file. A file that is
 * not a cg config at all is said to be so without a word of its content (trust/yaml.ts).
 */
export async function parseConfigText(text: string, file: string, shown = file): Promise<CgConfig> {
  const { value } = await parseYamlFile(text, shown, {
    mappingOf: 'settings',
    format: { keys: CONFIG.keys, name: 'cg config' },
  });
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
  const cfg: CgConfig = CONFIG.parse(raw);
  if (file) cfg.file = file;
  if (cfg.store.dir !== undefined) cfg.store.dir = storeDir(cfg.store.dir, file);
  return cfg;
}

function hintProblem(hint: string): string | undefined {
  return hint.includes('{key}') || hint.trim() === ''
    ? undefined
    : 'must contain {key} so the agent knows what to expand (or be empty)';
}

/** store.marker is a shorthand for the hint: compact writes none, so it refuses one beside it. */
function markerHint<S extends { hint?: string; marker?: MarkerMode }>(
  { hint, marker, ...store }: S,
  path: string,
): Omit<S, 'hint' | 'marker'> & { hint: string } {
  if (marker === 'compact' && hint !== undefined && hint !== '')
    throw new ConfigError(`${path}.marker`, 'compact writes no hint: drop store.hint or set it to ""');
  const written = hint ?? DEFAULT_HINT;
  return { ...store, hint: marker ? hintFor(marker, written) : written };
}

/** ~ is the home directory; a relative dir is relative to the file that names it, not the cwd. */
function storeDir(path: string, file: string | undefined): string {
  if (path === '') return path;
  if (path === '~' || path.startsWith('~/')) return join(homedir(), path.slice(1));
  return file && !isAbsolute(path) ? resolve(dirname(file), path) : path;
}
