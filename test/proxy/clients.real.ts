/**
 * Real agent clients through the built `cg proxy` to a scripted fake upstream (run by
 * `npm run test:proxy-clients`: test/clients/run.mjs installs the pinned clients and runs this inside
 * a loopback-only network namespace).
 *
 *   Claude Code 2.1.332 (ANTHROPIC_BASE_URL)  →  TCP tap  →  cg proxy  →  fake Anthropic Messages (SSE)
 *   Codex 0.171.0 (a model_provider)          →  TCP tap  →  cg proxy  →  fake Responses API (SSE)
 *
 * The fake upstream scripts a multi-turn session: it asks for a shell command each turn (the client
 * runs it for real and sends its output back), then ends. The same session is also run with no proxy,
 * so the upstream's request tokens can be compared. The tap keeps what the client received, to
 * byte-compare every streamed response with what the upstream sent.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, skipReason } from '../clients/harness.js';
import { cg } from '../e2e/run-cg.js';
import { tempDir } from '../helpers.js';
import {
  anthropicStream,
  type FakeUpstream,
  type Recorded,
  type Reply,
  replyBytes,
  responsesStream,
  startFakeUpstream,
} from './fake-upstream.js';
import { type SpawnedProxy, spawnProxy } from './spawn-proxy.js';
import { startTap, type Tap } from './tee.js';

// The clients test/clients/run.mjs installed (pinned in test/clients/clients.json); a missing one is
// skipped by name with the reason, never passed.
const CLAUDE = client('claude').bin ?? '';
const CODEX = client('codex').bin ?? '';
const STEPS = 12;
const MARKER = /<<cg:([0-9a-f]{16})>>/g;

/**
 * A workspace with log files the scripted commands print (deterministic, ~21 KB each: below the size
 * at which Claude Code saves an output to a file and sends only a preview).
 */
function workspace(): string {
  const dir = tempDir('cg-client-ws-');
  for (let k = 0; k < STEPS; k++) {
    let text = '';
    for (let i = 0; i < 270; i++)
      text += `2026-11-0${1 + (k % 9)}T10:${String(i % 60).padStart(2, '0')}:00Z INFO [worker-${i % 7}] step ${k} request ${i * 7919} handled in ${i % 97} ms\n`;
    writeFileSync(join(dir, `log${k}.txt`), text);
  }
  return dir;
}

async function tokens(bodies: readonly Buffer[]): Promise<number> {
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
  let n = 0;
  for (const b of bodies) n += countTokens(b.toString('utf8'), { disallowedSpecial: new Set() });
  return n;
}

const strip = (m: unknown) => JSON.stringify(m, (k, v) => (k === 'cache_control' ? undefined : v));

/**
 * Consecutive request pairs of one conversation (same first message): how many keep every earlier
 * message identical, and whether every change to an earlier message is cg moving a tool output
 * forward to a placeholder with a marker — the batched move replay allows, never anything else.
 * `own` lists the changes the client makes itself (found in the run without the proxy, as
 * "pair:index"): Claude Code rewrites some of its own earlier system messages.
 */
function stability(
  bodies: readonly Buffer[],
  list: (b: Record<string, unknown>) => unknown[],
  own: ReadonlySet<string> = new Set(),
): { pairs: number; stable: number; onlyPlaceholderMoves: boolean; changes: Set<string> } {
  const changes = new Set<string>();
  let pairs = 0;
  let stable = 0;
  let onlyPlaceholderMoves = true;
  let previous: unknown[] | undefined;
  for (const b of bodies) {
    const msgs = list(JSON.parse(b.toString('utf8')));
    if (previous && previous.length > 0 && strip(previous[0]) === strip(msgs[0])) {
      pairs++;
      const changed = previous.flatMap((m, i) => (strip(m) === strip(msgs[i]) ? [] : [i]));
      for (const i of changed) changes.add(`${pairs}:${i}`);
      const ours = changed.filter((i) => !own.has(`${pairs}:${i}`));
      if (ours.length === 0) stable++;
      for (const i of ours) {
        const markers = (x: unknown) => (strip(x).match(MARKER) ?? []).length;
        if (markers(msgs[i]) <= markers(previous[i])) {
          onlyPlaceholderMoves = false;
          // CG_DEBUG_STABILITY=1 shows what changed, to tell cg's doing from the client's own.
          if (process.env.CG_DEBUG_STABILITY)
            console.log(
              `pair ${pairs} message ${i}:\n- ${strip(previous[i]).slice(0, 3000)}\n+ ${strip(msgs[i]).slice(0, 3000)}`,
            );
        }
      }
    }
    previous = msgs;
  }
  return { pairs, stable, onlyPlaceholderMoves, changes };
}

interface Session {
  upstream: FakeUpstream;
  /** What the upstream sent, per request, in order. */
  replies: Reply[];
  tap?: Tap;
  proxy?: SpawnedProxy;
}

/** A fake upstream that runs the scripted session, counting the tool outputs already returned. */
async function scripted(reply: (done: number, req: Recorded) => Reply): Promise<Session> {
  const replies: Reply[] = [];
  const upstream = await startFakeUpstream((req) => {
    const r = { ...reply(Number.NaN, req), sized: true };
    replies.push(r);
    return r;
  });
  return { upstream, replies };
}

async function through(session: Session, dir: string): Promise<string> {
  session.proxy = await spawnProxy(
    ['--anthropic-upstream', session.upstream.url, '--openai-upstream', session.upstream.url],
    {
      dir,
    },
  );
  session.tap = await startTap(Number(new URL(session.proxy.url).port));
  return session.tap.url;
}

/** `cg stats --json` of a proxied session: its requests are the client's, through the proxy. */
function statsOf(s: Session): {
  requests: { count: number };
  hosts: { host: string; via: Record<string, number> }[];
} {
  const r = cg(['stats', '--json'], { env: s.proxy!.env, storeDir: s.proxy!.storeDir });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.out);
}

async function close(s: Session | undefined) {
  await s?.tap?.close();
  await s?.proxy?.stop();
  await s?.upstream.close();
}

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a client without blocking this process (the fake upstream and tap live in it). */
function run(bin: string, args: string[], o: { cwd: string; env: Record<string, string> }): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(bin, args, { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const claudeReply = (_: number, req: Recorded): Reply => {
  const body = JSON.parse(req.body.toString('utf8') || '{}');
  if (!req.url.startsWith('/v1/messages') || req.url.includes('count_tokens') || !Array.isArray(body.tools))
    return {
      status: 404,
      headers: { 'content-type': 'application/json' },
      body: '{"type":"error","error":{"type":"not_found_error","message":"no"}}',
    };
  const done = (req.body.toString('utf8').match(/"type":"tool_result"/g) ?? []).length;
  return done < STEPS
    ? anthropicStream(
        {
          tool: {
            id: `toolu_step${done}`,
            name: 'Bash',
            input: { command: `cat log${done}.txt`, description: `read log ${done}` },
          },
        },
        `msg_${done}`,
      )
    : anthropicStream({ text: 'All logs read.' }, 'msg_end');
};

function runClaude(baseUrl: string, cwd: string, home: string) {
  return run(
    CLAUDE,
    ['-p', 'Read the logs one by one.', '--output-format', 'json', '--allowedTools', 'Bash'],
    {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        ANTHROPIC_BASE_URL: baseUrl,
        ANTHROPIC_API_KEY: 'sk-ant-test',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        ENABLE_TOOL_SEARCH: 'true',
        BASH_MAX_OUTPUT_LENGTH: '200000',
      },
    },
  );
}

describe.skipIf(skipReason('claude') !== undefined)(
  `Claude Code ${client('claude').version ?? ''} through cg proxy`,
  () => {
    let direct: Session | undefined;
    let proxied: Session | undefined;
    let dir = '';
    beforeAll(async () => {
      const cwd = workspace();
      dir = tempDir('cg-client-claude-');
      direct = await scripted(claudeReply);
      const a = await runClaude(direct.upstream.url, cwd, join(dir, 'home-direct'));
      expect(a.status, a.stderr).toBe(0);
      proxied = await scripted(claudeReply);
      const b = await runClaude(await through(proxied, dir), cwd, join(dir, 'home-proxied'));
      expect(b.status, b.stderr).toBe(0);
      expect(JSON.parse(b.stdout).result).toBe('All logs read.');
    }, 600_000);
    afterAll(async () => {
      await close(direct);
      await close(proxied);
    });

    const main = (s: Session) =>
      s.upstream.requests.filter((r) => r.url.startsWith('/v1/messages') && r.body.includes('"tools"'));

    it('runs the whole scripted session, and the upstream receives compacted tool results with markers', () => {
      expect(main(proxied!).length).toBe(STEPS + 1);
      const last = main(proxied!).at(-1)!.body.toString('utf8');
      expect((last.match(MARKER) ?? []).length).toBeGreaterThanOrEqual(STEPS - 3);
    });

    it('sends at least 30 % fewer request tokens upstream than without the proxy', async () => {
      const without = await tokens(main(direct!).map((r) => r.body));
      const withProxy = await tokens(main(proxied!).map((r) => r.body));
      console.log(
        `Claude Code: request tokens upstream ${without} without cg proxy, ${withProxy} with it (−${(100 * (1 - withProxy / without)).toFixed(1)} %)`,
      );
      expect(withProxy).toBeLessThanOrEqual(0.7 * without);
    });

    it('makes every marker expand to the exact tool output Claude Code sent', () => {
      const directTexts = main(direct!).at(-1)!.body.toString('utf8');
      const keys = new Set(
        [
          ...main(proxied!)
            .map((r) => r.body.toString('utf8'))
            .join('\n')
            .matchAll(MARKER),
        ].map((m) => m[1]!),
      );
      expect(keys.size).toBeGreaterThan(0);
      for (const key of keys) {
        const r = cg(['expand', key], { env: proxied!.proxy!.env, storeDir: proxied!.proxy!.storeDir });
        expect(r.code).toBe(0);
        expect(directTexts).toContain(JSON.stringify(r.out).slice(1, -1));
      }
    });

    it('counts every request in cg stats as Claude Code through the proxy', () => {
      const stats = statsOf(proxied!);
      expect(stats.requests.count).toBeGreaterThanOrEqual(main(proxied!).length);
      expect(stats.hosts.map((h) => [h.host, Object.keys(h.via)])).toEqual([['claude-code', ['proxy']]]);
    });

    it('routes every request Claude Code sent: the proxy refused none of them', () => {
      expect(proxied!.proxy!.stderr()).not.toMatch(/refused/);
      const routes = new Set(proxied!.upstream.requests.map((r) => `${r.method} ${r.url.split('?')[0]}`));
      console.log(`Claude Code through cg proxy called: ${[...routes].join(', ')}`);
      expect(routes.size).toBeGreaterThan(0);
    });

    it('gives Claude Code every streamed response byte for byte as the upstream sent it', () => {
      const got = proxied!.tap!.bodies();
      const sent = proxied!.replies.map(replyBytes);
      expect(got.length).toBe(sent.length);
      for (const [i, b] of got.entries()) expect(b.equals(sent[i]!)).toBe(true);
    });

    it('keeps earlier messages byte-identical from one request to the next, but for batched placeholder moves', () => {
      const messages = (b: Record<string, unknown>) => b.messages as unknown[];
      const own = stability(
        main(direct!).map((x) => x.body),
        messages,
      ).changes;
      const r = stability(
        main(proxied!).map((x) => x.body),
        messages,
        own,
      );
      console.log(
        `Claude Code: ${r.stable} of ${r.pairs} request pairs kept every earlier message identical (${own.size} changes of its own set aside)`,
      );
      expect(r.pairs).toBe(STEPS);
      expect(r.onlyPlaceholderMoves).toBe(true);
      expect(r.stable).toBeGreaterThanOrEqual(STEPS / 2);
    });
  },
);

const codexReply = (_: number, req: Recorded): Reply => {
  if (req.method !== 'POST' || !req.url.endsWith('/responses'))
    return {
      status: 404,
      headers: { 'content-type': 'application/json' },
      body: '{"error":{"message":"no","type":"invalid_request_error"}}',
    };
  const done = (req.body.toString('utf8').match(/"type":"function_call_output"/g) ?? []).length;
  return done < STEPS
    ? responsesStream(
        {
          call: {
            callId: `call_step${done}`,
            name: 'exec_command',
            arguments: JSON.stringify({ cmd: `cat log${done}.txt` }),
          },
        },
        `resp_${done}`,
      )
    : responsesStream({ text: 'All logs read.' }, 'resp_end');
};

function runCodex(baseUrl: string, cwd: string, home: string) {
  const codexHome = join(home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    join(codexHome, 'config.toml'),
    `model = "gpt-5"\nmodel_provider = "cg"\n[model_providers.cg]\nname = "cg proxy"\nbase_url = "${baseUrl}/v1"\nwire_api = "responses"\nenv_key = "OPENAI_API_KEY"\n`,
  );
  return run(
    CODEX,
    [
      'exec',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      'Read the logs one by one.',
    ],
    {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: home, CODEX_HOME: codexHome, OPENAI_API_KEY: 'sk-test' },
    },
  );
}

describe.skipIf(skipReason('codex') !== undefined)(
  `Codex ${client('codex').version ?? ''} through cg proxy`,
  () => {
    let direct: Session | undefined;
    let proxied: Session | undefined;
    beforeAll(async () => {
      const cwd = workspace();
      const dir = tempDir('cg-client-codex-');
      direct = await scripted(codexReply);
      const a = await runCodex(direct.upstream.url, cwd, join(dir, 'home-direct'));
      expect(a.status, a.stderr).toBe(0);
      proxied = await scripted(codexReply);
      const b = await runCodex(await through(proxied, dir), cwd, join(dir, 'home-proxied'));
      expect(b.status, b.stderr).toBe(0);
      expect(b.stdout).toContain('All logs read.');
    }, 600_000);
    afterAll(async () => {
      await close(direct);
      await close(proxied);
    });

    const main = (s: Session) =>
      s.upstream.requests.filter((r) => r.method === 'POST' && r.url.endsWith('/responses'));

    it('runs the whole scripted session, and the upstream receives compacted tool outputs with markers', async () => {
      expect(main(proxied!).length).toBe(STEPS + 1);
      const last = main(proxied!).at(-1)!.body.toString('utf8');
      expect((last.match(MARKER) ?? []).length).toBeGreaterThanOrEqual(STEPS - 3);
      const without = await tokens(main(direct!).map((r) => r.body));
      const withProxy = await tokens(main(proxied!).map((r) => r.body));
      console.log(
        `Codex: request tokens upstream ${without} without cg proxy, ${withProxy} with it (−${(100 * (1 - withProxy / without)).toFixed(1)} %)`,
      );
      expect(withProxy).toBeLessThan(without);
    });

    it('counts every request in cg stats as Codex through the proxy', () => {
      const stats = statsOf(proxied!);
      expect(stats.requests.count).toBeGreaterThanOrEqual(main(proxied!).length);
      expect(stats.hosts.map((h) => [h.host, Object.keys(h.via)])).toEqual([['codex', ['proxy']]]);
    });

    it('routes every request Codex sent: the proxy refused none of them', () => {
      expect(proxied!.proxy!.stderr()).not.toMatch(/refused/);
      const routes = new Set(proxied!.upstream.requests.map((r) => `${r.method} ${r.url.split('?')[0]}`));
      console.log(`Codex through cg proxy called: ${[...routes].join(', ')}`);
      expect(routes.size).toBeGreaterThan(0);
    });

    it('gives Codex every streamed response byte for byte as the upstream sent it', () => {
      const got = proxied!.tap!.bodies();
      const sent = proxied!.replies.map(replyBytes);
      expect(got.length).toBe(sent.length);
      for (const [i, b] of got.entries()) expect(b.equals(sent[i]!)).toBe(true);
    });

    it('keeps earlier input items byte-identical from one request to the next, but for batched placeholder moves', () => {
      const input = (b: Record<string, unknown>) => b.input as unknown[];
      const r = stability(
        main(proxied!).map((x) => x.body),
        input,
        stability(
          main(direct!).map((x) => x.body),
          input,
        ).changes,
      );
      console.log(`Codex: ${r.stable} of ${r.pairs} request pairs kept every earlier input item identical`);
      expect(r.pairs).toBe(STEPS);
      expect(r.onlyPlaceholderMoves).toBe(true);
      expect(r.stable).toBeGreaterThanOrEqual(STEPS / 2);
    });
  },
);
