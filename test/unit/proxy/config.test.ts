import { describe, expect, it } from 'vitest';
import {
  PROXY_CONFIG,
  PROXY_CONFIG_DEFAULTS,
  UPSTREAM_DEFAULTS,
  upstreamUrl,
} from '../../../src/proxy/config.js';

describe('proxy config upstreams', () => {
  it('writes each default upstream as upstreamUrl writes it, so the default skips the URL parse', () => {
    for (const url of Object.values(UPSTREAM_DEFAULTS)) expect(upstreamUrl(url, 'proxy.x')).toBe(url);
    expect(PROXY_CONFIG_DEFAULTS).toMatchObject(UPSTREAM_DEFAULTS);
    expect(PROXY_CONFIG.parse({})).toMatchObject(UPSTREAM_DEFAULTS);
  });

  it('still converts and checks an upstream the file writes', () => {
    const cfg = PROXY_CONFIG.parse({ anthropic: 'https://api.anthropic.com/', openai: 'http://h:8080/v1//' });
    expect(cfg.anthropic).toBe('https://api.anthropic.com');
    expect(cfg.openai).toBe('http://h:8080/v1');
    expect(() => PROXY_CONFIG.parse({ gemini: 'ftp://x' })).toThrow(/proxy|gemini|http/);
    expect(() => PROXY_CONFIG.parse({ gemini: 'https://x/?q=1' })).toThrow(/no query/);
  });
});
