/**
 * `cg wrap codex`: Codex takes `-c key=value` config overrides for one run (before any
 * subcommand): a model_provider `cg-wrap` whose base_url is the proxy, wire_api responses over
 * HTTP (a custom provider with supports_websockets=false opens none, and the proxy refuses them),
 * the API key from OPENAI_API_KEY. The upstream is OPENAI_BASE_URL's, else the config's (a provider
 * of the user's own in config.toml is not read: cg wrap codex speaks to OpenAI's API).
 */
import { nonEmpty, shellWord, type WrapHost } from '../wrap.js';

export const CODEX_WRAP_PROVIDER = 'cg-wrap';

/** The `-c` overrides that make Codex use the proxy at `url` for this run. */
export function codexOverrides(url: string): string[] {
  const p = `model_providers.${CODEX_WRAP_PROVIDER}`;
  return [
    `model_provider="${CODEX_WRAP_PROVIDER}"`,
    `${p}.name="cg proxy"`,
    `${p}.base_url="${url}/v1"`,
    `${p}.wire_api="responses"`,
    `${p}.env_key="OPENAI_API_KEY"`,
    `${p}.supports_websockets=false`,
  ].flatMap((kv) => ['-c', kv]);
}

export const CODEX_WRAP: WrapHost = {
  name: 'codex',
  bin: 'codex',
  provider: 'openai',
  ownBase: (env) => nonEmpty(env.OPENAI_BASE_URL)?.replace(/\/+$/, '').replace(/\/v1$/, ''),
  point: (url, _env, args) => ({ env: {}, args: [...codexOverrides(url), ...args] }),
  printEnv: (url) => [
    '# Codex takes its provider from config, not the environment: start it with these overrides',
    `alias codex=${shellWord(`codex ${codexOverrides(url).map(shellWord).join(' ')}`)}`,
  ],
};
