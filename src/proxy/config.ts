/**
 * The `proxy:` config section: where `cg proxy` forwards each provider's requests, which preset it
 * compacts with, and how long a compaction may take before the original body goes on instead.
 * Upstreams are data that decides where request bodies (and API keys) are sent, so they come only
 * from the user's own config or the command line, never from a project's `.cg.yaml` (DESIGN §1.8);
 * the command checks where the loaded file came from. Pure and dependency-free: config loading
 * parses it on every start-up, while the server itself is imported only by `cg proxy`.
 */
import { ConfigError } from '../errors.js';
import { isPreset, PRESET_NAMES, type PresetName } from '../presets.js';
import { describe, integer, mapping, string } from '../validate.js';

export interface ProxyConfig {
  /** Base URL of the Anthropic Messages API. */
  anthropic: string;
  /** Base URL of the OpenAI API (Chat Completions and Responses). */
  openai: string;
  preset: PresetName;
  host: string;
  port: number;
  /** A compaction still running after this forwards the original body instead. */
  timeoutMs: number;
}

export const PROXY_CONFIG_DEFAULTS: Readonly<ProxyConfig> = Object.freeze({
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com',
  preset: 'agent',
  host: '127.0.0.1',
  port: 8787,
  timeoutMs: 20_000,
});

const KEYS = ['anthropic', 'openai', 'preset', 'host', 'port', 'timeout_ms'] as const;

/** An http(s) URL with no query or fragment, without a trailing slash; else a ConfigError at `path`. */
export function upstreamUrl(raw: string, path: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(path, `expected an http(s) URL, got ${describe(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(path, `expected an http(s) URL, got ${describe(raw)}`);
  if (url.search || url.hash || url.username || url.password)
    throw new ConfigError(path, 'an upstream URL takes no query, fragment or credentials');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

export function parseProxyConfig(raw: unknown): ProxyConfig {
  const m = mapping(raw, '', KEYS);
  const preset = string(m.preset, 'preset', PROXY_CONFIG_DEFAULTS.preset);
  if (!isPreset(preset))
    throw new ConfigError('preset', `expected one of ${PRESET_NAMES.join(', ')}, got ${describe(preset)}`);
  return {
    anthropic: upstreamUrl(string(m.anthropic, 'anthropic', PROXY_CONFIG_DEFAULTS.anthropic), 'anthropic'),
    openai: upstreamUrl(string(m.openai, 'openai', PROXY_CONFIG_DEFAULTS.openai), 'openai'),
    preset,
    host: string(m.host, 'host', PROXY_CONFIG_DEFAULTS.host),
    port: integer(m.port, 'port', PROXY_CONFIG_DEFAULTS.port, 0, 65535),
    timeoutMs: integer(m.timeout_ms, 'timeout_ms', PROXY_CONFIG_DEFAULTS.timeoutMs, 1),
  };
}
