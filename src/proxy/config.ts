/**
 * The `proxy:` config section: where `cg proxy` forwards each provider's requests, which preset it
 * compacts with, how long a compaction may take before the original body goes on instead, and
 * whether it answers cg_expand itself for clients that cannot (retrieval/).
 * Upstreams are data that decides where request bodies (and API keys) are sent, so they come only
 * from the user's own config or the command line, never from a project's `.cg.yaml` (DESIGN §1.8);
 * the command checks where the loaded file came from. `sessions` says where a session's record
 * lives when the store is Redis: `shared` (in Redis, so any instance behind a balancer replays the
 * last turn's decisions) or `local` (this machine's state directory, as without Redis). Pure and dependency-free: config loading
 * parses it on every start-up, while the server itself is imported only by `cg proxy`.
 */
import { type ConfigOf, describe, integer, oneOf, section, string } from '../config/fields.js';
import { ConfigError } from '../errors.js';
import { PRESET_NAMES } from '../presets.js';

/** Whether the proxy answers cg_expand itself (retrieval/mode.ts decides per session). */
export const RETRIEVAL_MODES = ['auto', 'always', 'never'] as const;
export type RetrievalMode = (typeof RETRIEVAL_MODES)[number];

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

/**
 * The upstreams by default, written as upstreamUrl writes them (a test checks it), so a default is
 * not parsed as a URL again on every start-up: a file's value is converted, a default is used as is.
 */
export const UPSTREAM_DEFAULTS = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com',
  gemini: 'https://generativelanguage.googleapis.com',
} as const;

export const PROXY_CONFIG = section({
  /** Base URL of the Anthropic Messages API. */
  anthropic: string().to(upstreamUrl).or(UPSTREAM_DEFAULTS.anthropic).doc('Anthropic Messages upstream'),
  /** Base URL of the OpenAI API (Chat Completions and Responses). */
  openai: string()
    .to(upstreamUrl)
    .or(UPSTREAM_DEFAULTS.openai)
    .doc('OpenAI upstream (Chat Completions, Responses)'),
  /** Base URL of the Gemini API (generateContent, streamGenerateContent, countTokens). */
  gemini: string()
    .to(upstreamUrl)
    .or(UPSTREAM_DEFAULTS.gemini)
    .doc('Gemini API upstream (generateContent, streamGenerateContent)'),
  preset: oneOf(PRESET_NAMES).or('agent').doc('preset request bodies are compacted with'),
  host: string().or('127.0.0.1').doc('listen address (another needs --allow-remote)'),
  port: integer({ max: 65535 }).or(8787).doc('listen port'),
  /** A compaction still running after this forwards the original body instead. */
  timeoutMs: integer({ min: 1 })
    .key('timeout_ms')
    .or(20_000)
    .doc('a slower compaction sends the original body'),
  /** Session records in Redis beside the store (shared) or on this machine (local). */
  sessions: oneOf(['shared', 'local'] as const)
    .or('shared')
    .doc('records in Redis with a Redis store (`shared`) or `local`'),
  /**
   * cg_expand answered by the proxy (retrieval/): auto for clients that cannot open a marker
   * themselves (no shell-like tool, no cg_expand of their own), always, or never.
   */
  retrieval: oneOf(RETRIEVAL_MODES)
    .or('auto')
    .doc('cg_expand answered by the proxy: `auto`, `always`, `never`'),
  /** Proxy-answered rounds per client request; the call after them goes to the client. */
  retrievalRounds: integer({ min: 0, max: 32 })
    .key('retrieval_rounds')
    .or(3)
    .doc('proxy-answered rounds per request'),
  /** A cg_expand result over this many bytes is sliced, with a note on how to ask for the next slice. */
  retrievalMaxBytes: integer({ min: 1024 })
    .key('retrieval_max_bytes')
    .or(40_000)
    .doc('a larger cg_expand result is sliced'),
  /**
   * The variable holding the proxy's token (never the token itself): what GET /expand asks of a
   * caller when the proxy listens beyond loopback.
   */
  tokenEnv: string()
    .key('token_env')
    .or('CG_PROXY_TOKEN')
    .doc("the variable holding GET /expand's token beyond loopback"),
});
export type ProxyConfig = ConfigOf<typeof PROXY_CONFIG>;

export const PROXY_CONFIG_DEFAULTS: Readonly<ProxyConfig> = Object.freeze(PROXY_CONFIG.defaults);
