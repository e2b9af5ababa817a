/**
 * Credentials go only to their own provider (DESIGN §1.9), through the real proxy server with three
 * scripted upstreams, one per provider (Anthropic, OpenAI, the Gemini API for Google's): every credential shape of each provider is sent on unknown
 * paths, on the other provider's paths and on the paths both serve, and no upstream ever sees a
 * credential another provider issued — a refused request reaches neither, is answered 404 (400 for
 * mixed credentials) and is said in one line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, type Recorded, startFakeUpstream } from './fake-upstream.js';
import { send, startTestProxy, type TestProxy } from './harness.js';

type Issuer = 'anthropic' | 'openai' | 'google';

/** One credential as a client sends it: headers, or a query parameter. */
interface Shape {
  label: string;
  issuer: Issuer;
  secret: string;
  headers: Record<string, string>;
  query?: string;
}

const SHAPES: readonly Shape[] = [
  {
    label: 'Anthropic x-api-key',
    issuer: 'anthropic',
    secret: 'sk-ant-api03-SECRETxapikey',
    headers: { 'x-api-key': 'sk-ant-api03-SECRETxapikey', 'anthropic-version': '2023-06-01' },
  },
  {
    label: 'Anthropic OAuth bearer (Claude Code signed in)',
    issuer: 'anthropic',
    secret: 'sk-ant-oat01-SECREToauth',
    headers: {
      authorization: 'Bearer sk-ant-oat01-SECREToauth',
      'anthropic-beta': 'oauth-2025-04-20',
      'anthropic-version': '2023-06-01',
    },
  },
  {
    label: 'Anthropic OAuth bearer alone',
    issuer: 'anthropic',
    secret: 'sk-ant-oat01-SECRETbare',
    headers: { authorization: 'Bearer sk-ant-oat01-SECRETbare' },
  },
  {
    label: 'OpenAI project key',
    issuer: 'openai',
    secret: 'sk-proj-SECRETproject',
    headers: { authorization: 'Bearer sk-proj-SECRETproject' },
  },
  {
    label: 'OpenAI legacy key',
    issuer: 'openai',
    secret: 'sk-SECRETlegacyT3BlbkFJabc',
    headers: { authorization: 'Bearer sk-SECRETlegacyT3BlbkFJabc', 'openai-organization': 'org-1' },
  },
  {
    label: 'Gemini x-goog-api-key',
    issuer: 'google',
    secret: 'AIzaSyD-SECRETgoogheader0123456789',
    headers: { 'x-goog-api-key': 'AIzaSyD-SECRETgoogheader0123456789' },
  },
  {
    label: 'Gemini ?key=',
    issuer: 'google',
    secret: 'AIzaSyD-SECRETgoogquery01234567890',
    headers: {},
    query: 'key=AIzaSyD-SECRETgoogquery01234567890',
  },
];

/** Paths no provider here serves, each provider's own (as the other's credential sees them), and shared ones. */
const PATHS: readonly { method: string; path: string }[] = [
  { method: 'GET', path: '/api/oauth/profile' },
  { method: 'GET', path: '/v1/models' },
  { method: 'GET', path: '/v1/files' },
  { method: 'POST', path: '/v1/messages' },
  { method: 'POST', path: '/v1/messages/count_tokens' },
  { method: 'POST', path: '/v1/responses' },
  { method: 'POST', path: '/v1/chat/completions' },
  { method: 'POST', path: '/v1beta/models/gemini-2.5-pro:streamGenerateContent' },
  { method: 'GET', path: '/v2/brand-new-endpoint' },
  { method: 'GET', path: '/' },
];

const BODY = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });

/** Sends a request line exactly as given (no URL normalisation) and resolves to the status. */
async function rawStatus(base: string, line: string, headers: Record<string, string>): Promise<number> {
  const { request } = await import('node:http');
  const [method, path] = line.split(' ') as [string, string];
  return new Promise((resolve, reject) => {
    const req = request(base, { method, path, headers: { ...headers, 'content-length': '2' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end('{}');
  });
}

/** Every byte of a recorded request a secret could travel in. */
const seen = (r: Recorded) => `${r.url}\n${r.rawHeaders.join('\n')}\n${r.body.toString('latin1')}`;

describe('cg proxy: credentials go only to their own provider', () => {
  let anthropic: FakeUpstream;
  let openai: FakeUpstream;
  let gemini: FakeUpstream;
  let p: TestProxy;
  const answered: { shape: Shape; method: string; path: string; status: number }[] = [];

  beforeAll(async () => {
    anthropic = await startFakeUpstream(() => ({
      headers: { 'content-type': 'application/json' },
      body: '{}',
    }));
    openai = await startFakeUpstream(() => ({ headers: { 'content-type': 'application/json' }, body: '{}' }));
    gemini = await startFakeUpstream(() => ({ headers: { 'content-type': 'application/json' }, body: '{}' }));
    p = await startTestProxy({
      anthropic: anthropic.url,
      openai: openai.url,
      gemini: gemini.url,
      store: null,
    });
    for (const shape of SHAPES) {
      for (const { method, path } of PATHS) {
        const url = shape.query ? `${path}?${shape.query}` : path;
        const res = await send(p.url, url, method === 'GET' ? '' : BODY, shape.headers, method);
        answered.push({ shape, method, path, status: res.status });
      }
    }
  });
  afterAll(async () => {
    await p.close();
    await anthropic.close();
    await openai.close();
    await gemini.close();
  });

  it('never lets an upstream see a credential another provider issued, on any path', () => {
    for (const [name, up] of [
      ['anthropic', anthropic],
      ['openai', openai],
      ['google', gemini],
    ] as const) {
      const foreign = SHAPES.filter((s) => s.issuer !== name).map((s) => s.secret);
      const leaked = up.requests.flatMap((r) =>
        foreign.filter((f) => seen(r).includes(f)).map((f) => `${r.url}: ${f}`),
      );
      expect(leaked, `${name} upstream`).toEqual([]);
    }
  });

  it("still sends each provider's credential to its own routes, the shared ones, and an unknown path it names", () => {
    const reached = (secret: string, up: FakeUpstream) =>
      up.requests.filter((r) => seen(r).includes(secret)).map((r) => `${r.method} ${r.url.split('?')[0]}`);
    expect(reached('sk-ant-oat01-SECREToauth', anthropic)).toEqual([
      'GET /api/oauth/profile',
      'GET /v1/models',
      'GET /v1/files',
      'POST /v1/messages',
      'POST /v1/messages/count_tokens',
      'GET /v2/brand-new-endpoint',
      'GET /',
    ]);
    expect(reached('sk-proj-SECRETproject', openai)).toEqual([
      'GET /v1/models',
      'GET /v1/files',
      'POST /v1/responses',
      'POST /v1/chat/completions',
      'GET /v2/brand-new-endpoint',
      'GET /',
    ]);
    // Google's key, in its header or its query parameter, reaches the Gemini API and nothing else.
    for (const secret of ['AIzaSyD-SECRETgoogheader0123456789', 'AIzaSyD-SECRETgoogquery01234567890'])
      expect(reached(secret, gemini), secret).toEqual([
        'GET /v1/models',
        'POST /v1beta/models/gemini-2.5-pro:streamGenerateContent',
        'GET /v2/brand-new-endpoint',
        'GET /',
      ]);
  });

  it('answers a refused request itself with 404, forwards nothing, and says so in one line without the secret', () => {
    const refused = answered.filter((a) => a.status === 404);
    // Gemini's path is the Gemini API's alone: another provider's credential there is refused.
    for (const a of answered.filter((x) => x.path.startsWith('/v1beta/') && x.shape.issuer !== 'google'))
      expect(a.status).toBe(404);
    expect(
      answered
        .filter((a) => a.path === '/api/oauth/profile' && a.shape.issuer === 'openai')
        .map((a) => a.status),
    ).toEqual([404, 404]);
    expect(p.refused).toHaveLength(refused.length);
    expect(p.refused).toContain(
      'refused GET /api/oauth/profile: no route of OpenAI, whose credential or headers it carries; nothing was forwarded (404)',
    );
    const all = p.refused.join('\n');
    for (const s of SHAPES) expect(all).not.toContain(s.secret);
    expect(anthropic.requests.length + openai.requests.length + gemini.requests.length + refused.length).toBe(
      answered.length,
    );
  });
});

describe("cg proxy: requests that claim one provider on the other one's path", () => {
  it('refuses Anthropic headers or an Anthropic body on an OpenAI route with an opaque token, and mixed credentials', async () => {
    const anthropic = await startFakeUpstream(() => ({ body: '{}' }));
    const openai = await startFakeUpstream(() => ({ body: '{}' }));
    const p = await startTestProxy({ anthropic: anthropic.url, openai: openai.url, store: null });
    try {
      const claude = { 'anthropic-version': '2023-06-01', authorization: 'Bearer gateway-token-1' };
      expect((await send(p.url, '/v1/responses', '{"input":[]}', claude)).status).toBe(404);
      expect(
        (await send(p.url, '/v1/chat/completions', BODY, { 'x-api-key': 'gateway-token-2' })).status,
      ).toBe(404);
      const mixed = { 'x-api-key': 'sk-ant-api03-mixed', authorization: 'Bearer sk-proj-mixed' };
      const both = await send(p.url, '/v1/models', '', mixed, 'GET');
      expect(both.status).toBe(400);
      expect(JSON.parse(both.body.toString()).error.message).toMatch(/credentials of Anthropic and OpenAI/);
      expect(anthropic.requests.length + openai.requests.length).toBe(0);
      // An Anthropic Messages body with an opaque token on OpenAI's path claims nothing the path does
      // not: it goes to OpenAI, the provider the client chose, and only there.
      const body = JSON.stringify({ model: 'claude-sonnet-4', system: 'x', messages: [] });
      expect((await send(p.url, '/v1/chat/completions', body, { authorization: 'Bearer tok' })).status).toBe(
        200,
      );
      expect([anthropic.requests.length, openai.requests.length]).toEqual([0, 1]);
      // A dot segment an upstream would resolve to another route is refused before it is routed.
      // (fetch would resolve the dots itself, so the request is written by hand.)
      const dots = await rawStatus(p.url, 'POST /v1/responses/../../v1/messages', {
        authorization: 'Bearer sk-ant-oat01-d',
      });
      expect(dots).toBe(400);
      expect(anthropic.requests.length + openai.requests.length).toBe(1);
    } finally {
      await p.close();
      await anthropic.close();
      await openai.close();
    }
  });
});
