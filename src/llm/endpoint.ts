/**
 * Which model a model-assisted component calls, and with which key: the `model:` config section
 * (parseModelConfig, strict like every config section) plus the environment (resolveEndpoint).
 *
 * source 'incoming' (default) reuses the model the intercepted request itself names, with the
 * provider's usual env vars (ANTHROPIC_API_KEY / OPENAI_API_KEY and *_BASE_URL), so cg works with no
 * model setup at all; input that names no model (raw text) falls back to the configured one.
 * source 'config' always calls a dedicated (cheaper) model: CG_MODEL, CG_MODEL_API and
 * CG_MODEL_BASE_URL override the file, and the key comes from the env var named in api_key_env.
 *
 * The key itself never sits in the config file (it gets committed), and no reason produced here
 * contains it: failures name the env var to set, never its value.
 */
import type { InputFormat } from '../component.js';
import { type ConfigOf, describe, field, integer, oneOf, section, string } from '../config/fields.js';
import { ConfigError } from '../errors.js';
import type { ModelApi, ModelEndpoint } from './client.js';

export type EndpointResolution =
  | { ok: true; endpoint: ModelEndpoint; source: 'incoming' | 'config' }
  | { ok: false; reason: string };

const APIS: readonly ModelApi[] = ['openai', 'anthropic', 'responses'];
const DEFAULT_BASE: Record<ModelApi, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  responses: 'https://api.openai.com/v1',
};
/** The provider env vars for source 'incoming', by the format of the intercepted request. */
/** Gemini is not here: its bodies name no model (the URL does), and cg's client speaks no Gemini API. */
const PROVIDER: Record<
  Exclude<InputFormat, 'text' | 'gemini'>,
  { api: ModelApi; keyEnv: string; baseEnv: string }
> = {
  anthropic: { api: 'anthropic', keyEnv: 'ANTHROPIC_API_KEY', baseEnv: 'ANTHROPIC_BASE_URL' },
  openai: { api: 'openai', keyEnv: 'OPENAI_API_KEY', baseEnv: 'OPENAI_BASE_URL' },
  // A Responses body's model may be served by /v1/responses only (gpt-5-codex): ask it there.
  responses: { api: 'responses', keyEnv: 'OPENAI_API_KEY', baseEnv: 'OPENAI_BASE_URL' },
};
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The `model:` section. The key itself is refused with its own reason (a file gets committed);
 * api_key_env's value is never echoed back: a user who pasted the key there instead of its
 * variable's name would otherwise see it printed.
 */
export const MODEL_CONFIG = section(
  {
    source: oneOf(['incoming', 'config'] as const)
      .or('incoming')
      .doc("`incoming`: the request's own model; `config`: this section"),
    model: nonEmpty().optional().doc('model name (CG_MODEL wins)', '—'),
    api: oneOf(APIS).optional().doc('`openai`, `anthropic` or `responses` (CG_MODEL_API wins)', '`openai`'),
    baseUrl: nonEmpty()
      .check(notHttpUrl)
      .key('base_url')
      .optional()
      .doc('API base URL (CG_MODEL_BASE_URL wins)', "the API's own"),
    /** The NAME of the env var holding the key, never the key. */
    apiKeyEnv: field(envName)
      .key('api_key_env')
      .or('CG_MODEL_API_KEY')
      .doc('the variable holding the key (never the key)'),
    timeoutMs: integer({ min: 1 }).key('timeout_ms').or(15_000).doc('per request; one retry on 429 or 5xx'),
    maxOutputTokens: integer({ min: 1 })
      .key('max_output_tokens')
      .or(2048)
      .doc('a cap on what any component asks for'),
  },
  { refused: { api_key: 'put the key in an environment variable and name it in api_key_env' } },
);
export type ModelConfig = ConfigOf<typeof MODEL_CONFIG>;

export const MODEL_CONFIG_DEFAULTS: Readonly<ModelConfig> = Object.freeze(MODEL_CONFIG.defaults);

/** The `model:` section; paths in errors are relative to it. undefined/null → the defaults. */
export const parseModelConfig = (raw: unknown): ModelConfig => MODEL_CONFIG.parse(raw);

export function resolveEndpoint(
  cfg: ModelConfig,
  incoming: { format: InputFormat; model?: string },
  env: NodeJS.ProcessEnv,
): EndpointResolution {
  const envSource = env.CG_MODEL_SOURCE || undefined;
  if (envSource !== undefined && envSource !== 'incoming' && envSource !== 'config')
    return { ok: false, reason: 'CG_MODEL_SOURCE must be incoming or config' };
  if ((envSource ?? cfg.source) === 'config') return fromConfig(cfg, env);
  const configured = Boolean(env.CG_MODEL || cfg.model);
  if (incoming.format !== 'text' && incoming.format !== 'gemini' && incoming.model) {
    const p = PROVIDER[incoming.format];
    const apiKey = env[p.keyEnv];
    // Without the provider's key, a dedicated model that is configured is the next best thing.
    if (!apiKey)
      return configured ? fromConfig(cfg, env) : { ok: false, reason: `no API key (set ${p.keyEnv})` };
    const endpoint: ModelEndpoint = {
      api: p.api,
      model: incoming.model,
      baseUrl: env[p.baseEnv] || DEFAULT_BASE[p.api],
      apiKey,
      timeoutMs: cfg.timeoutMs,
      maxOutputTokens: cfg.maxOutputTokens,
    };
    return { ok: true, endpoint, source: 'incoming' };
  }
  if (configured) return fromConfig(cfg, env);
  return { ok: false, reason: 'no model: the input names none and none is configured' };
}

/** The dedicated model: env overrides the file, the file overrides the provider defaults. */
function fromConfig(cfg: ModelConfig, env: NodeJS.ProcessEnv): EndpointResolution {
  const model = env.CG_MODEL || cfg.model;
  if (!model) return { ok: false, reason: 'no model configured (set CG_MODEL or model.model)' };
  const envApi = env.CG_MODEL_API || undefined;
  if (envApi !== undefined && !isApi(envApi))
    return { ok: false, reason: 'CG_MODEL_API must be openai, anthropic or responses' };
  const api: ModelApi = envApi ?? cfg.api ?? 'openai';
  const apiKey = env[cfg.apiKeyEnv];
  if (!apiKey) return { ok: false, reason: `no API key (set ${cfg.apiKeyEnv})` };
  const endpoint: ModelEndpoint = {
    api,
    model,
    baseUrl: env.CG_MODEL_BASE_URL || cfg.baseUrl || DEFAULT_BASE[api],
    apiKey,
    timeoutMs: cfg.timeoutMs,
    maxOutputTokens: cfg.maxOutputTokens,
  };
  return { ok: true, endpoint, source: 'config' };
}

function isApi(s: string): s is ModelApi {
  return (APIS as readonly string[]).includes(s);
}

function nonEmpty() {
  return string().check((s) => (s.trim() === '' ? 'expected a non-empty string' : undefined));
}

function envName(raw: unknown, path: string): string {
  if (typeof raw !== 'string' || !ENV_NAME.test(raw)) {
    throw new ConfigError(
      path,
      'expected the name of an environment variable (letters, digits, _), not the key itself',
    );
  }
  return raw;
}

function notHttpUrl(s: string): string | undefined {
  let url: URL | undefined;
  try {
    url = new URL(s);
  } catch {
    url = undefined;
  }
  const ok = url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:');
  return ok ? undefined : `expected an http(s) URL, got ${describe(s)}`;
}
