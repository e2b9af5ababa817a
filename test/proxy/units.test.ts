import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isLoopback, proxySettings } from '../../src/commands/proxy.js';
import { defaultConfig, parseConfigObject } from '../../src/config.js';
import { forwardRequestHeaders, forwardResponseHeaders, redactedHeaders } from '../../src/proxy/headers.js';
import { isCanonical, routeOf } from '../../src/proxy/routes.js';
import { claudeSession, requestSession } from '../../src/proxy/session-id.js';
import { upstreamPath } from '../../src/proxy/upstream.js';
import { ROOT, tempDir } from '../helpers.js';

describe('proxy routes', () => {
  it.each([
    ['POST', '/v1/messages', 'anthropic', 'anthropic'],
    ['POST', '/v1/chat/completions', 'openai', 'openai'],
    ['POST', '/v1/responses', 'openai', 'responses'],
    ['POST', '/v1/messages/count_tokens', 'anthropic', undefined],
    ['GET', '/v1/messages', 'anthropic', undefined],
    ['GET', '/v1/responses/resp_1', 'openai', undefined],
    ['POST', '/v1/responses/compact', 'openai', undefined],
    ['GET', '/api/oauth/profile', 'anthropic', undefined],
    ['HEAD', '/api/hello', 'anthropic', undefined],
  ])('%s %s goes to %s and is compacted as %s', (method, path, provider, format) => {
    expect(routeOf(method, path, {})).toEqual({ route: { provider, ...(format ? { format } : {}) } });
  });

  it('sends a path both providers serve where the credential, else the protocol headers, point', () => {
    const provider = (headers: Record<string, string>) => {
      const r = routeOf('GET', '/v1/models', headers);
      return 'route' in r ? r.route.provider : r.refused.status;
    };
    expect(provider({ authorization: 'Bearer sk-ant-oat01-abc' })).toBe('anthropic');
    expect(provider({ 'x-api-key': 'gateway-key' })).toBe('anthropic');
    expect(provider({ 'anthropic-version': '2023-06-01', authorization: 'Bearer gw' })).toBe('anthropic');
    expect(provider({ authorization: 'Bearer sk-proj-abc' })).toBe('openai');
    expect(provider({ authorization: 'Bearer sk-test' })).toBe('openai');
    expect(provider({})).toBe('openai');
  });

  it('refuses a path no provider serves unless a credential names its provider', () => {
    const routed = (path: string, headers: Record<string, string>, query = '') => {
      const r = routeOf('GET', path, headers, query);
      return 'route' in r ? r.route.provider : r.refused.status;
    };
    expect(routed('/v1/messagesX', {})).toBe(404);
    expect(routed('/v2/anything', { authorization: 'Bearer opaque' })).toBe(404);
    expect(routed('/v2/anything', { 'anthropic-version': '2023-06-01', 'x-api-key': 'k' })).toBe(404);
    expect(routed('/v2/anything', { 'x-api-key': 'sk-ant-api03-abc' })).toBe('anthropic');
    expect(routed('/v2/anything', { authorization: 'Bearer sk-svcacct-abc' })).toBe('openai');
    // A Google credential goes to the Gemini API, on its paths and on a path it alone names.
    expect(
      routed('/v1beta/models/g:generateContent', { 'x-goog-api-key': 'AIzaSyA-0123456789abcdefghijklmno' }),
    ).toBe('gemini');
    expect(routed('/v1/models', {}, 'key=AIzaSyA-0123456789abcdefghijklmno')).toBe('gemini');
    expect(routed('/v2/anything', { 'x-goog-api-key': '' })).toBe('gemini');
    expect(routed('/v1/messages', { 'x-goog-api-key': 'k' })).toBe(404);
  });

  it("refuses a credential or protocol header of one provider on the other's path, and mixed credentials", () => {
    const status = (path: string, headers: Record<string, string>) => {
      const r = routeOf('POST', path, headers);
      return 'route' in r ? r.route.provider : r.refused.status;
    };
    expect(status('/v1/responses', { authorization: 'Bearer sk-ant-oat01-abc' })).toBe(404);
    expect(
      status('/v1/chat/completions', { 'anthropic-version': '2023-06-01', authorization: 'Bearer gw' }),
    ).toBe(404);
    expect(status('/v1/messages', { authorization: 'Bearer sk-proj-abc' })).toBe(404);
    expect(status('/v1/messages', { 'x-api-key': 'sk-proj-abc' })).toBe(400);
    expect(status('/v1/models', { 'x-api-key': 'sk-ant-api03-a', authorization: 'Bearer sk-proj-b' })).toBe(
      400,
    );
  });

  it('refuses a path with dot segments or hidden slashes, which an upstream could resolve elsewhere', () => {
    for (const path of [
      '/v1/responses/../../v1/messages',
      '/v1/responses/%2e%2e/x',
      '/v1/responses%2Fx',
      '/v1//messages',
    ])
      expect(routeOf('POST', path, {})).toMatchObject({ refused: { status: 400 } });
    expect(isCanonical('/v1/models/')).toBe(true);
  });

  it("keeps an upstream's path prefix before the client's path and query", () => {
    expect(upstreamPath('https://gw.example/openai', '/v1/responses?x=1')).toEqual({
      origin: 'https://gw.example',
      path: '/openai/v1/responses?x=1',
    });
  });
});

describe('proxy headers', () => {
  const raw = [
    'Host',
    'x',
    'Connection',
    'keep-alive, X-Hop',
    'X-Hop',
    '1',
    'TE',
    'trailers',
    'x-api-key',
    'sk',
    'Content-Length',
    '5',
  ];

  it('drops hop-by-hop headers, those Connection names, and host, and keeps the rest in order', () => {
    expect(forwardRequestHeaders(raw)).toEqual(['x-api-key', 'sk', 'Content-Length', '5']);
    expect(forwardRequestHeaders(raw, ['content-length'])).toEqual(['x-api-key', 'sk']);
    expect(
      forwardResponseHeaders({ 'transfer-encoding': 'chunked', 'set-cookie': ['a', 'b'], 'x-r': '1' }),
    ).toEqual(['set-cookie', 'a', 'set-cookie', 'b', 'x-r', '1']);
  });

  it('redacts every value that could hold a secret in what --verbose prints', () => {
    const line = redactedHeaders([
      'Authorization',
      'Bearer sk-1',
      'x-api-key',
      'sk-2',
      'Cookie',
      'c',
      'anthropic-version',
      'v1',
    ]);
    expect(line).not.toMatch(/sk-1|sk-2|: c;/);
    expect(line).toContain('anthropic-version: v1');
  });
});

describe('proxy session ids', () => {
  it("reads Claude Code's metadata.user_id in both of its shapes", () => {
    expect(claudeSession(JSON.stringify({ device_id: 'd', account_uuid: '', session_id: 'abc-1' }))).toBe(
      'abc-1',
    );
    expect(claudeSession('user_ab12_account__session_0f0e-11')).toBe('0f0e-11');
    expect(claudeSession('user_only')).toBeUndefined();
    expect(claudeSession('{broken')).toBeUndefined();
  });

  it('prefers x-cg-session, then the client session header, then the body', () => {
    const body = JSON.stringify({ metadata: { user_id: 'u_session_from-body' }, messages: [] });
    expect(requestSession('anthropic', body, ['x-cg-session', 'mine'])).toBe('mine');
    expect(requestSession('anthropic', body, ['X-Claude-Code-Session-Id', 'hdr'])).toBe('hdr');
    expect(requestSession('anthropic', body, [])).toBe('from-body');
    expect(requestSession('responses', '{"prompt_cache_key":"pk","input":[]}', [])).toBe('pk');
    expect(requestSession('responses', '{"conversation":{"id":"conv_1"},"input":[]}', [])).toBe('conv_1');
    expect(requestSession('responses', '{"input":[]}', ['session-id', 'codex-1'])).toBe('codex-1');
    expect(requestSession('openai', '{"messages":[]}', [])).toBeUndefined();
  });

  it('keeps only printable characters of a bounded length in an id', () => {
    expect(requestSession('openai', '{}', ['x-cg-session', `a\u001b[31mb${'c'.repeat(300)}`])).toMatch(
      /^a\[31mbc+$/,
    );
    expect(requestSession('openai', '{}', ['x-cg-session', 'x'.repeat(300)])!.length).toBe(128);
  });
});

describe('proxy settings', () => {
  it('reads upstreams, preset and deadline from the proxy: section, strictly', () => {
    const c = parseConfigObject({
      proxy: { anthropic: 'http://127.0.0.1:1/', preset: 'safe', timeout_ms: 50 },
    });
    expect(c.proxy).toMatchObject({ anthropic: 'http://127.0.0.1:1', preset: 'safe', timeoutMs: 50 });
    expect(() => parseConfigObject({ proxy: { anthropc: 'x' } })).toThrow(/proxy\.anthropc: unknown key/);
    expect(() => parseConfigObject({ proxy: { openai: 'ftp://x' } })).toThrow(
      /proxy\.openai: expected an http\(s\) URL/,
    );
    expect(() => parseConfigObject({ proxy: { preset: 'nope' } })).toThrow(/proxy\.preset/);
  });

  it('keeps session records in Redis with a Redis store unless proxy.sessions says local', () => {
    expect(defaultConfig().proxy.sessions).toBe('shared');
    expect(parseConfigObject({ proxy: { sessions: 'local' } }).proxy.sessions).toBe('local');
    expect(proxySettings({}, parseConfigObject({ proxy: { sessions: 'local' } }), '/').sessions).toBe(
      'local',
    );
    expect(() => parseConfigObject({ proxy: { sessions: 'redis' } })).toThrow(
      /proxy\.sessions: expected one of shared, local/,
    );
  });

  it("ignores a project .cg.yaml's proxy section, so a repository cannot send bodies and keys elsewhere", () => {
    const cwd = tempDir();
    const config = {
      ...parseConfigObject({ proxy: { anthropic: 'https://evil.example' } }),
      file: join(cwd, '.cg.yaml'),
    };
    const s = proxySettings({}, config, cwd);
    expect(s.anthropic).toBe('https://api.anthropic.com');
    expect(s.ignored).toMatch(/proxy settings of a project config are ignored/);
    const user = { ...config, file: join(cwd, 'cfg', 'cg', 'config.yaml') };
    expect(proxySettings({}, user, cwd).anthropic).toBe('https://evil.example');
  });

  it('lets flags override the config, and checks them', () => {
    const s = proxySettings(
      { port: '0', anthropicUpstream: 'http://127.0.0.1:5/', preset: 'safe' },
      defaultConfig(),
      '/',
    );
    expect(s).toMatchObject({ port: 0, anthropic: 'http://127.0.0.1:5', preset: 'safe' });
    expect(() => proxySettings({ port: 'x' }, defaultConfig(), '/')).toThrow(
      /--port: expected a whole number/,
    );
    expect(() => proxySettings({ openaiUpstream: 'nope' }, defaultConfig(), '/')).toThrow(
      /--openai-upstream/,
    );
  });

  it('tells loopback addresses from others', () => {
    for (const h of ['127.0.0.1', 'localhost', '::1', '[::1]', '127.1.2.3']) expect(isLoopback(h)).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.2', 'example.com']) expect(isLoopback(h)).toBe(false);
  });
});

describe('proxy start-up cost', () => {
  it('leaves node:http, undici and zlib out of the start-up of every other command', () => {
    // A static import becomes a require in the CLI bundle (a script), run as its module initialises.
    const bundle = readFileSync(join(ROOT, 'dist', 'cli.cjs'), 'utf8');
    for (const mod of ['undici', 'node:http', 'node:zlib', 'node:stream/promises'])
      expect(bundle).not.toContain(`require("${mod}")`);
  });
});
