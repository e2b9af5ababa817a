/**
 * `cg wrap` end to end: the built CLI runs a fake host (wrap-host.ts) through a cg proxy it starts,
 * in front of a fake upstream — what the host is started with, where its requests go, exit codes,
 * signals both ways, a proxy killed between two turns, a proxy that cannot start, one already
 * running, and an output the hook already shortened.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { anthropicStream, type FakeUpstream, startFakeUpstream } from '../proxy/fake-upstream.js';
import { spawnProxy } from '../proxy/spawn-proxy.js';
import { BIN, cg } from './run-cg.js';
import {
  anthropicBody,
  childrenOf,
  geminiBody,
  installFakeHosts,
  logLines,
  type Plan,
  writePlan,
} from './wrap-host.js';

let upstream: FakeUpstream;
let dir: string;
let bin: string;

beforeAll(async () => {
  upstream = await startFakeUpstream(() => anthropicStream({ text: 'ok' }));
  dir = tempDir('cg-wrap-');
  bin = installFakeHosts(dir);
  // A config whose proxy port nothing listens on: a cg proxy another test left on 8787 is not ours.
  writeFileSync(join(dir, 'config.yaml'), 'proxy:\n  port: 9\n');
});
afterAll(async () => {
  await upstream.close();
});

function envFor(plan: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: join(dir, 'home'),
    XDG_CONFIG_HOME: join(dir, 'xdg'),
    CG_CONFIG: join(dir, 'config.yaml'),
    CG_STORE_DIR: join(dir, 'store'),
    CG_STATE_DIR: join(dir, 'state'),
    ANTHROPIC_BASE_URL: upstream.url,
    OPENAI_BASE_URL: `${upstream.url}/v1`,
    FAKE_PLAN: plan,
    ...extra,
  };
}

interface Wrapped {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

function wrap(args: string[], env: Record<string, string>): Wrapped {
  const child = spawn(process.execPath, [BIN, 'wrap', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  child.stdout!.resume();
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((r) =>
    child.on('close', (code, signal) => r({ code, signal, stderr })),
  );
  return { child, done };
}

function plan(p: Omit<Plan, 'log'>): { file: string; log: string } {
  const log = join(dir, `log-${Math.random().toString(36).slice(2)}.jsonl`);
  return { file: writePlan(dir, { ...p, log }), log };
}

async function until(what: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const BIG = Array.from({ length: 4000 }, (_, i) => `line ${i + 1}: value ${i * 7919}`).join('\n');

describe('cg wrap claude', () => {
  it("points the host at a proxy of its own for this run, forwards where the host's base URL pointed, and returns the host's exit code", async () => {
    const p = plan({ requests: [anthropicBody(BIG)], exit: 7 });
    const before = upstream.requests.length;
    const r = await wrap(['claude', '-p', 'hi'], envFor(p.file)).done;
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toBe('');
    const [start, sent] = logLines(p.log);
    const base = String(start!.base);
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(base).not.toBe(upstream.url);
    expect(start!.args).toEqual([
      '--settings',
      JSON.stringify({ env: { ANTHROPIC_BASE_URL: base } }),
      '-p',
      'hi',
    ]);
    expect(start!.toolSearch).toBe('true');
    expect(sent).toEqual({ status: 200, bytes: expect.any(Number) });
    // Through the proxy to the fake upstream, and the proxy is gone after.
    const got = upstream.requests.slice(before).filter((q) => q.method === 'POST');
    expect(got.map((q) => q.url)).toEqual(['/v1/messages']);
    await expect(fetch(`${base}/_cg/health`)).rejects.toThrow();
  });

  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)(
    're-raises the %s that killed the host',
    async (signal) => {
      const p = plan({ requests: [], selfSignal: signal });
      const r = await wrap(['claude'], envFor(p.file)).done;
      expect(r.signal).toBe(signal);
    },
  );

  it('passes a SIGTERM sent to cg on to the host, and stops the proxy', async () => {
    const p = plan({ requests: [], hang: true, onTerm: 42 });
    const w = wrap(['claude'], envFor(p.file));
    await until(() => logLines(p.log).some((l) => l.started));
    const base = String(logLines(p.log)[0]!.base);
    w.child.kill('SIGTERM');
    const r = await w.done;
    expect(r.code).toBe(42);
    expect(logLines(p.log).some((l) => l.term)).toBe(true);
    await expect(fetch(`${base}/_cg/health`)).rejects.toThrow();
  });

  it('restarts a proxy killed between two turns on the same port: the next request goes through', async () => {
    const gate = join(dir, `gate-${Date.now()}-`);
    const p = plan({ requests: [anthropicBody('one'), anthropicBody('two')], gate });
    const w = wrap(['claude'], envFor(p.file));
    await until(() => logLines(p.log).some((l) => l.waiting === 1));
    const [proxy] = childrenOf(w.child.pid!, 'proxy');
    expect(proxy).toBeGreaterThan(0);
    process.kill(proxy!, 'SIGKILL');
    await until(() => {
      const now = childrenOf(w.child.pid!, 'proxy');
      return now.length === 1 && now[0] !== proxy;
    });
    const base = String(logLines(p.log)[0]!.base);
    // The new proxy listens on the port the host was given.
    const health = async () => {
      for (let i = 0; i < 200; i++) {
        try {
          return (await (await fetch(`${base}/_cg/health`)).json()) as { cg?: string };
        } catch {
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      return {};
    };
    expect((await health()).cg).toBe('proxy');
    writeFileSync(`${gate}1`, '');
    const r = await w.done;
    expect(r.code, r.stderr).toBe(0);
    expect(logLines(p.log).filter((l) => 'status' in l)).toEqual([
      { status: 200, bytes: expect.any(Number) },
      { status: 200, bytes: expect.any(Number) },
    ]);
  });

  it('runs the host unwrapped, with one line, when the proxy cannot start', async () => {
    const p = plan({ requests: [], exit: 0 });
    const r = await wrap(['claude'], envFor(p.file, { ANTHROPIC_BASE_URL: 'ftp://nowhere' })).done;
    expect(r.code).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^cg: wrap: cg proxy could not start \(.*\); running claude unwrapped$/);
    expect(logLines(p.log)[0]).toMatchObject({ base: 'ftp://nowhere', args: [] });
  });

  it('uses a cg proxy already answering where the host points, and leaves it running', async () => {
    const running = await spawnProxy(['--anthropic-upstream', upstream.url]);
    try {
      const p = plan({ requests: [anthropicBody('hello')] });
      const r = await wrap(['claude'], envFor(p.file, { ANTHROPIC_BASE_URL: running.url })).done;
      expect(r.code, r.stderr).toBe(0);
      const [start, sent] = logLines(p.log);
      expect(start!.base).toBe(running.url);
      expect(sent!.status).toBe(200);
      expect(((await (await fetch(`${running.url}/_cg/health`)).json()) as { cg: string }).cg).toBe('proxy');
    } finally {
      await running.stop();
    }
  });

  it('leaves an output the hook already shortened (a real marker) as it is, and shortens one it did not', async () => {
    const hooked = cg(['compress', '--for-model', '--command', 'seq 1 4000'], {
      input: BIG,
      env: { CG_STATE_DIR: join(dir, 'state') },
      storeDir: join(dir, 'store'),
    });
    expect(hooked.code, hooked.stderr).toBe(0);
    expect(hooked.out).toMatch(/<<cg:[0-9a-f]{16}>>/);
    // Long enough that the proxy would shorten it, were it not for the marker it carries.
    const marked = `${BIG.replaceAll('value', 'count')}\n${hooked.out}`;
    const seen = async (output: string) => {
      const p = plan({ requests: [anthropicBody(output)] });
      const before = upstream.requests.length;
      const r = await wrap(['claude'], envFor(p.file)).done;
      expect(r.code, r.stderr).toBe(0);
      const sent = upstream.requests.slice(before).find((q) => q.method === 'POST')!;
      return JSON.parse(sent.body.toString('utf8')).messages.at(-1).content[0].content as string;
    };
    expect(await seen(marked)).toBe(marked);
    expect((await seen(BIG)).length).toBeLessThan(BIG.length / 10);
  });
});

describe('cg wrap codex', () => {
  it('gives Codex -c overrides for a model provider at the proxy, before its own arguments', async () => {
    const p = plan({ requests: [], exit: 0 });
    const r = await wrap(['codex', 'exec', 'run the tests'], envFor(p.file)).done;
    expect(r.code, r.stderr).toBe(0);
    const args = logLines(p.log)[0]!.args as string[];
    expect(args.slice(-2)).toEqual(['exec', 'run the tests']);
    expect(args.filter((a) => a === '-c')).toHaveLength(6);
    expect(args).toContain('model_provider="cg-wrap"');
    expect(args.find((a) => a.includes('base_url='))).toMatch(
      /^model_providers\.cg-wrap\.base_url="http:\/\/127\.0\.0\.1:\d+\/v1"$/,
    );
  });
});

describe('cg wrap, usage', () => {
  it('names the nearest host for a typo, exit 2', () => {
    const r = cg(['wrap', 'cluade']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('cg: wrap: unknown host "cluade" (did you mean claude?)\n');
  });

  it('--print-env prints export lines for the configured proxy', () => {
    const r = cg(['wrap', '--print-env', 'claude'], { env: { CG_CONFIG: join(dir, 'config.yaml') } });
    expect(r.code).toBe(0);
    expect(r.out).toBe('export ANTHROPIC_BASE_URL=http://127.0.0.1:9\nexport ENABLE_TOOL_SEARCH=true\n');
    expect(r.stderr).toMatch(/no cg proxy answers at http:\/\/127\.0\.0\.1:9 yet/);
  });

  it("points gemini at its own proxy with GOOGLE_GEMINI_BASE_URL, forwards where the user's pointed, compacts, and keeps the exit code", async () => {
    installFakeHosts(dir, ['gemini']);
    const p = plan({ requests: [geminiBody(BIG)], exit: 3 });
    const before = upstream.requests.length;
    const r = await wrap(['gemini', '-p', 'hi'], envFor(p.file, { GOOGLE_GEMINI_BASE_URL: upstream.url }))
      .done;
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toBe('');
    const [start, sent] = logLines(p.log);
    expect(String(start!.base)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(start!.base).not.toBe(upstream.url);
    expect(start!.args).toEqual(['-p', 'hi']);
    expect(sent).toEqual({ status: 200, bytes: expect.any(Number) });
    const got = upstream.requests.slice(before).filter((q) => q.method === 'POST');
    expect(got.map((q) => q.url)).toEqual(['/v1beta/models/gemini-test:streamGenerateContent?alt=sse']);
    expect(got[0]!.headers['x-goog-api-key']).toBe('AIzaSyD-wraptest0123456789abcdefgh');
    expect(got[0]!.body.length).toBeLessThan(BIG.length / 4);
    expect(got[0]!.body.toString()).toMatch(/<<cg:[0-9a-f]{16}>>/);
  });

  it('runs gemini unwrapped and says why when it signs in with Google (the Code Assist API)', async () => {
    installFakeHosts(dir, ['gemini']);
    const home = join(dir, 'home-oauth');
    mkdirSync(join(home, '.gemini'), { recursive: true });
    writeFileSync(
      join(home, '.gemini', 'settings.json'),
      JSON.stringify({ security: { auth: { selectedType: 'oauth-personal' } } }),
    );
    const p = plan({ requests: [], exit: 4 });
    const r = await wrap(['gemini', '--version'], envFor(p.file, { HOME: home })).done;
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      /^cg: wrap: Google sign-in talks to the Code Assist API; .*; running gemini unwrapped\n$/,
    );
    expect(logLines(p.log)[0]!.base ?? null).toBeNull();
  });

  it('--print-env gemini prints its base URL variable', () => {
    const r = cg(['wrap', '--print-env', 'gemini'], { env: { CG_CONFIG: join(dir, 'config.yaml') } });
    expect(r.code).toBe(0);
    expect(r.out).toBe('export GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9\n');
  });
});
