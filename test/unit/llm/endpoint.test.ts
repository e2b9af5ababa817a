import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import {
  type EndpointResolution,
  MODEL_CONFIG_DEFAULTS,
  type ModelConfig,
  parseModelConfig,
  resolveEndpoint,
} from '../../../src/llm/endpoint.js';

const KEY = 'sk-cgtest-DO-NOT-LEAK-7f3a9c2e1b';

function configError(raw: unknown): ConfigError {
  try {
    parseModelConfig(raw);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

function cfg(over: Partial<ModelConfig> = {}): ModelConfig {
  return { ...MODEL_CONFIG_DEFAULTS, ...over };
}

function reason(r: EndpointResolution): string {
  if (r.ok) throw new Error(`expected a failure, got ${r.endpoint.model}`);
  expect(r.reason).not.toContain(KEY);
  return r.reason;
}

describe('parseModelConfig', () => {
  it('reads a missing or empty section as the defaults', () => {
    expect(parseModelConfig(undefined)).toEqual(MODEL_CONFIG_DEFAULTS);
    expect(parseModelConfig(null)).toEqual(MODEL_CONFIG_DEFAULTS);
    expect(MODEL_CONFIG_DEFAULTS).toEqual({
      source: 'incoming',
      apiKeyEnv: 'CG_MODEL_API_KEY',
      timeoutMs: 15000,
      maxOutputTokens: 2048,
    });
  });

  it('reads every key', () => {
    const raw = {
      source: 'config',
      model: 'small-model',
      api: 'anthropic',
      base_url: 'http://localhost:8080',
      api_key_env: 'MY_KEY',
      timeout_ms: 3000,
      max_output_tokens: 512,
    };
    expect(parseModelConfig(raw)).toEqual({
      source: 'config',
      model: 'small-model',
      api: 'anthropic',
      baseUrl: 'http://localhost:8080',
      apiKeyEnv: 'MY_KEY',
      timeoutMs: 3000,
      maxOutputTokens: 512,
    });
  });

  it('rejects an unknown key with its path and the known keys', () => {
    const e = configError({ modle: 'x' });
    expect(e.path).toBe('modle');
    expect(e.reason).toMatch(/unknown key .*api_key_env/);
  });

  it('refuses an API key written in the file and says where it belongs', () => {
    const e = configError({ model: 'm', api_key: KEY });
    expect(e.path).toBe('api_key');
    expect(e.reason).toBe('put the key in an environment variable and name it in api_key_env');
    expect(e.message).not.toContain(KEY);
  });

  it('rejects a key pasted into api_key_env without printing it', () => {
    const e = configError({ api_key_env: KEY });
    expect(e.path).toBe('api_key_env');
    expect(e.message).not.toContain(KEY);
  });

  it('rejects a bad api, source, timeout, token limit, model or base URL', () => {
    expect(configError({ api: 'gemini' }).path).toBe('api');
    expect(configError({ source: 'env' }).path).toBe('source');
    expect(configError({ timeout_ms: 0 }).path).toBe('timeout_ms');
    expect(configError({ timeout_ms: '15s' }).reason).toMatch(/expected an integer/);
    expect(configError({ timeout_ms: 1.5 }).path).toBe('timeout_ms');
    expect(configError({ max_output_tokens: -1 }).path).toBe('max_output_tokens');
    expect(configError({ model: '' }).path).toBe('model');
    expect(configError({ model: 42 }).path).toBe('model');
    expect(configError({ base_url: 'api.openai.com' }).path).toBe('base_url');
    expect(configError(['a']).reason).toMatch(/expected a mapping/);
  });
});

describe('resolveEndpoint with source incoming', () => {
  it('reuses an Anthropic request’s model with the Anthropic key and base URL', () => {
    const env = { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: 'http://proxy:9000' };
    const r = resolveEndpoint(cfg({ timeoutMs: 999 }), { format: 'anthropic', model: 'claude-x' }, env);
    expect(r).toEqual({
      ok: true,
      source: 'incoming',
      endpoint: {
        api: 'anthropic',
        model: 'claude-x',
        baseUrl: 'http://proxy:9000',
        apiKey: KEY,
        timeoutMs: 999,
        maxOutputTokens: 2048,
      },
    });
  });

  it('reuses an OpenAI or Responses request’s model, on its own API, with the OpenAI key and base URL', () => {
    for (const format of ['openai', 'responses'] as const) {
      const r = resolveEndpoint(cfg(), { format, model: 'gpt-x' }, { OPENAI_API_KEY: KEY });
      expect(r).toMatchObject({
        ok: true,
        source: 'incoming',
        endpoint: { api: format, model: 'gpt-x', baseUrl: 'https://api.openai.com/v1', apiKey: KEY },
      });
    }
  });

  it('names the provider’s env var when its key is missing', () => {
    expect(reason(resolveEndpoint(cfg(), { format: 'anthropic', model: 'c' }, {}))).toBe(
      'no API key (set ANTHROPIC_API_KEY)',
    );
    expect(
      reason(resolveEndpoint(cfg(), { format: 'responses', model: 'g' }, { ANTHROPIC_API_KEY: KEY })),
    ).toBe('no API key (set OPENAI_API_KEY)');
  });

  it('falls back to the configured model when the input names none', () => {
    const env = { CG_MODEL_API_KEY: KEY };
    const text = resolveEndpoint(cfg({ model: 'small' }), { format: 'text' }, env);
    expect(text).toMatchObject({ ok: true, source: 'config', endpoint: { model: 'small', api: 'openai' } });
    const bodyWithoutModel = resolveEndpoint(cfg(), { format: 'openai' }, { ...env, CG_MODEL: 'from-env' });
    expect(bodyWithoutModel).toMatchObject({ ok: true, source: 'config', endpoint: { model: 'from-env' } });
  });

  it('fails when neither the input nor the config names a model', () => {
    expect(reason(resolveEndpoint(cfg(), { format: 'text' }, { CG_MODEL_API_KEY: KEY }))).toBe(
      'no model: the input names none and none is configured',
    );
  });
});

describe('resolveEndpoint with source config', () => {
  const config = cfg({ source: 'config', model: 'file-model', api: 'anthropic', baseUrl: 'http://file:1' });

  it('uses the file’s model, api and base URL, and the key from CG_MODEL_API_KEY', () => {
    const r = resolveEndpoint(config, { format: 'openai', model: 'ignored' }, { CG_MODEL_API_KEY: KEY });
    expect(r).toEqual({
      ok: true,
      source: 'config',
      endpoint: {
        api: 'anthropic',
        model: 'file-model',
        baseUrl: 'http://file:1',
        apiKey: KEY,
        timeoutMs: 15000,
        maxOutputTokens: 2048,
      },
    });
  });

  it('lets the environment override the file', () => {
    const env = {
      CG_MODEL_API_KEY: KEY,
      CG_MODEL: 'env-model',
      CG_MODEL_API: 'openai',
      CG_MODEL_BASE_URL: 'http://env:2',
    };
    const r = resolveEndpoint(config, { format: 'text' }, env);
    expect(r).toMatchObject({
      ok: true,
      endpoint: { model: 'env-model', api: 'openai', baseUrl: 'http://env:2' },
    });
  });

  it('defaults to the OpenAI API and each API’s public base URL', () => {
    const env = { CG_MODEL_API_KEY: KEY };
    const plain = cfg({ source: 'config', model: 'm' });
    expect(resolveEndpoint(plain, { format: 'text' }, env)).toMatchObject({
      endpoint: { api: 'openai', baseUrl: 'https://api.openai.com/v1' },
    });
    expect(resolveEndpoint(plain, { format: 'text' }, { ...env, CG_MODEL_API: 'anthropic' })).toMatchObject({
      endpoint: { api: 'anthropic', baseUrl: 'https://api.anthropic.com' },
    });
  });

  it('reads the key from the env var the config names, and names it when missing', () => {
    const own = cfg({ source: 'config', model: 'm', apiKeyEnv: 'MY_KEY' });
    expect(resolveEndpoint(own, { format: 'text' }, { MY_KEY: KEY })).toMatchObject({
      endpoint: { apiKey: KEY },
    });
    expect(reason(resolveEndpoint(own, { format: 'text' }, { CG_MODEL_API_KEY: KEY }))).toBe(
      'no API key (set MY_KEY)',
    );
  });

  it('fails without a model or with a bad CG_MODEL_API', () => {
    const env = { CG_MODEL_API_KEY: KEY };
    expect(reason(resolveEndpoint(cfg({ source: 'config' }), { format: 'openai', model: 'g' }, env))).toBe(
      'no model configured (set CG_MODEL or model.model)',
    );
    expect(reason(resolveEndpoint(config, { format: 'text' }, { ...env, CG_MODEL_API: 'gemini' }))).toBe(
      'CG_MODEL_API must be openai, anthropic or responses',
    );
  });
});

describe('choosing between the incoming and the configured model', () => {
  const dedicated = { CG_MODEL: 'cheap', CG_MODEL_API_KEY: 'sk-cheap' };
  it('uses the configured model when the incoming provider has no key', () => {
    const r = resolveEndpoint(
      parseModelConfig(undefined),
      { format: 'anthropic', model: 'claude-x' },
      dedicated,
    );
    expect(r).toMatchObject({ ok: true, source: 'config', endpoint: { model: 'cheap' } });
  });

  it('lets CG_MODEL_SOURCE override the file, and refuses a bad value', () => {
    const env = { ...dedicated, ANTHROPIC_API_KEY: 'sk-ant' };
    const incoming = { format: 'anthropic' as const, model: 'claude-x' };
    expect(resolveEndpoint(parseModelConfig(undefined), incoming, env)).toMatchObject({ source: 'incoming' });
    expect(
      resolveEndpoint(parseModelConfig(undefined), incoming, { ...env, CG_MODEL_SOURCE: 'config' }),
    ).toMatchObject({
      source: 'config',
    });
    expect(
      resolveEndpoint(parseModelConfig({ source: 'config' }), incoming, {
        ...env,
        CG_MODEL_SOURCE: 'incoming',
      }),
    ).toMatchObject({
      source: 'incoming',
    });
    expect(
      resolveEndpoint(parseModelConfig(undefined), incoming, { ...env, CG_MODEL_SOURCE: 'cheap' }),
    ).toEqual({
      ok: false,
      reason: 'CG_MODEL_SOURCE must be incoming or config',
    });
  });
});
