import { describe, expect, it } from 'vitest';
import { proxyEngineEnv } from '../../../src/commands/proxy.js';

describe("the proxy engine's environment", () => {
  const upstreams = { anthropic: 'http://127.0.0.1:9001', openai: 'http://127.0.0.1:9002' };

  it("keeps the user's key variables and state locations, so model-assisted components and records work", () => {
    const env = proxyEngineEnv(
      { ANTHROPIC_API_KEY: 'k', CG_MODEL_API_KEY: 'm', CG_STATE_DIR: '/s', HOME: '/h' },
      upstreams,
    );
    expect(env).toMatchObject({
      ANTHROPIC_API_KEY: 'k',
      CG_MODEL_API_KEY: 'm',
      CG_STATE_DIR: '/s',
      HOME: '/h',
    });
  });

  it('sends "the incoming model" to the proxy\'s own upstreams, never back to the proxy', () => {
    const env = proxyEngineEnv({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:8787' }, upstreams);
    expect(env.ANTHROPIC_BASE_URL).toBe(upstreams.anthropic);
    expect(env.OPENAI_BASE_URL).toBe(`${upstreams.openai}/v1`);
  });

  it('drops CG_SESSION, which would make every client of the proxy one session', () => {
    expect(proxyEngineEnv({ CG_SESSION: 'mine' }, upstreams)).not.toHaveProperty('CG_SESSION');
  });
});
