import { afterEach, describe, expect, it } from 'vitest';
import { agentSession } from '../../bench/proxy-sessions.mjs';
import { cg } from '../e2e/run-cg.js';
import { tempDir } from '../helpers.js';
import { anthropicStream, type FakeUpstream, replyBytes, startFakeUpstream } from './fake-upstream.js';
import { proxyEnv, type SpawnedProxy, spawnProxy } from './spawn-proxy.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});
async function fake(): Promise<FakeUpstream> {
  const u = await startFakeUpstream(() => anthropicStream({ text: 'hi' }));
  cleanup.push(() => u.close());
  return u;
}
async function proxy(args: string[], dir?: string): Promise<SpawnedProxy> {
  const p = await spawnProxy(args, dir ? { dir } : {});
  cleanup.push(() => p.stop());
  return p;
}

describe('cg proxy (the command)', () => {
  it('prints where it listens and the lines that point Claude Code and Codex at it, then serves', async () => {
    const up = await fake();
    const p = await proxy(['--anthropic-upstream', up.url]);
    expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(p.stdout()).toContain(`export ANTHROPIC_BASE_URL=${p.url}`);
    expect(p.stdout()).toContain('ENABLE_TOOL_SEARCH=true');
    expect(p.stdout()).toContain(`base_url = "${p.url}/v1"`);
    expect(p.stdout()).toContain('wire_api = "responses"');
    const res = await fetch(`${p.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'k' },
      body: JSON.stringify(agentSession(30)),
    });
    expect(Buffer.from(await res.arrayBuffer()).equals(replyBytes(anthropicStream({ text: 'hi' })))).toBe(
      true,
    );
    expect(up.requests[0]!.body.toString()).toMatch(/<<cg:[0-9a-f]{16}>>/);
    const health = await (await fetch(`${p.url}/_cg/health`)).json();
    expect(health).toMatchObject({ cg: 'proxy', preset: 'agent', observe: false });
    expect(await p.stop()).toBe(0);
  });

  it('refuses to listen on a non-loopback address without --allow-remote', () => {
    const r = cg(['proxy', '--host', '0.0.0.0', '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'cg: --host 0.0.0.0 is not a loopback address: add --allow-remote to listen there\n',
    );
  });

  it('says plainly when its port is taken', async () => {
    const first = await proxy([]);
    const r = cg(['proxy', '--port', new URL(first.url).port]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^cg: port \d+ on 127\.0\.0\.1 is in use \(another cg proxy\?\); choose one with --port\n$/,
    );
  });

  it('records compacted requests in the ledger, and --observe ones only in the observed ledger', async () => {
    const up = await fake();
    const dir = tempDir('cg-proxy-stats-');
    const body = JSON.stringify(agentSession(30, { session: 'sess-real' }));
    const real = await proxy(['--anthropic-upstream', up.url], dir);
    await (
      await fetch(`${real.url}/v1/messages`, { method: 'POST', body, headers: { 'x-api-key': 'k' } })
    ).arrayBuffer();
    await real.stop();
    const observe = await proxy(['--observe', '--anthropic-upstream', up.url], dir);
    expect(observe.stdout()).toContain('observe only: bodies go on unchanged');
    const body2 = JSON.stringify(agentSession(30, { seed: 7, session: 'sess-observed' }));
    await (
      await fetch(`${observe.url}/v1/messages`, {
        method: 'POST',
        body: body2,
        headers: { 'x-api-key': 'k' },
      })
    ).arrayBuffer();
    await observe.stop();
    expect(up.requests[1]!.body.toString()).toBe(body2);
    const env = proxyEnv(dir);
    const run = (args: string[]) => cg(args, { env, storeDir: env.CG_STORE_DIR! });
    const saved = JSON.parse(run(['stats', '--json']).out);
    const observed = JSON.parse(run(['stats', '--json', '--observed']).out);
    expect(saved.runs).toBe(1);
    expect(observed.runs).toBe(1);
    expect(saved.tokens.saved).toBeGreaterThan(0);
    expect(observed.tokens.saved).toBeGreaterThan(0);
    expect(JSON.parse(run(['stats', '--json', '--session', 'sess-observed']).out).runs).toBe(0);
    expect(JSON.parse(run(['stats', '--json', '--observed', '--session', 'sess-observed']).out).runs).toBe(1);
  });

  it('records every request it forwards, shortened or not, as the client host that sent it through the proxy', async () => {
    const up = await fake();
    const dir = tempDir('cg-proxy-requests-');
    const p = await proxy(['--anthropic-upstream', up.url], dir);
    const send = async (body: string, agent: string) =>
      (
        await fetch(`${p.url}/v1/messages`, {
          method: 'POST',
          body,
          headers: { 'x-api-key': 'k', 'user-agent': agent },
        })
      ).arrayBuffer();
    const long = JSON.stringify(agentSession(30, { session: 'sess-claude' }));
    const short = JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    await send(long, 'claude-cli/2.1.332 (external, cli)');
    await send(short, 'claude-cli/2.1.332 (external, cli)');
    await send(short, 'curl/8.5.0');
    await p.stop();
    expect(up.requests[1]!.body.toString()).toBe(short);
    const env = proxyEnv(dir);
    const stats = JSON.parse(cg(['stats', '--json'], { env, storeDir: env.CG_STORE_DIR! }).out);
    expect(stats.requests.count).toBe(3);
    // Counting every whole body on every turn would cost what the turn costs: bytes/4, said so.
    expect(stats.requests.estimated).toBe(3);
    expect(stats.requests.estimatedTokensIn).toBeGreaterThan(stats.requests.estimatedTokensOut);
    const claude = stats.hosts.find((h: { host: string }) => h.host === 'claude-code');
    expect(claude?.via).toEqual({ proxy: 1 });
    expect(stats.hosts.some((h: { via: Record<string, number> }) => 'pipe' in h.via)).toBe(false);
  });
});
