/**
 * Markers any model can open (issue 34): apps on the real OpenAI and Anthropic SDKs, each with a
 * tool loop of its own and no shell, talk to a scripted model through `cg proxy`. The proxy
 * compacts the app's long log to a marker, offers the model cg_expand, answers its call from the
 * store and hands the app the model's final answer — which holds a line only the original has.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CACHE_BREAKPOINT } from '../../src/input/builder.js';
import { arrayChunks } from '../../src/json/array-chunks.js';
import { objectMembers } from '../../src/json/object-members.js';
import { createFsStore } from '../../src/store/fs-store.js';
import { tempDir } from '../helpers.js';
import { type FakeUpstream, startFakeUpstream } from './fake-upstream.js';
import { send, startTestProxy, type TestProxy, type TestProxyOptions } from './harness.js';
import { type Format, type ModelOptions, NEEDLE, ScriptedModel } from './scripted-model.js';
import { AnthropicApp, type App, ChatApp, LOG, ResponsesApp } from './sdk-apps.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

interface World {
  model: ScriptedModel;
  up: FakeUpstream;
  proxy: TestProxy;
  app: App;
}

async function world(
  format: Format,
  stream: boolean,
  model: ModelOptions = {},
  o: TestProxyOptions = {},
): Promise<World> {
  const m = new ScriptedModel(format, model);
  const up = await startFakeUpstream(m.script);
  open.push(up);
  const proxy = await startTestProxy({ anthropic: up.url, openai: up.url, ...o });
  open.push(proxy);
  const app =
    format === 'anthropic'
      ? new AnthropicApp(proxy.url, stream)
      : format === 'openai'
        ? new ChatApp(proxy.url, stream)
        : new ResponsesApp(proxy.url, stream);
  return { model: m, up, proxy, app };
}

const body = (w: Pick<World, 'up'>, i: number) =>
  JSON.parse(w.up.requests[i]!.body.toString('utf8')) as Record<string, unknown>;

/**
 * The JSON text of each top-level member and of each conversation element, as the bytes hold them
 * — less the cache breakpoint cacheinject moves to the newest turn each time (proxy.test.ts too).
 */
function parts(
  w: Pick<World, 'up'>,
  i: number,
  format: Format,
): { members: Map<string, string>; items: string[] } {
  const text = w.up.requests[i]!.body.toString('utf8');
  const members = new Map<string, string>();
  for (const m of objectMembers(text, 0)) members.set(m.key, text.slice(m.valueStart, m.valueEnd));
  const list = members.get(format === 'responses' ? 'input' : 'messages')!;
  const items = [...arrayChunks(list, 0, 1, 0)].map((c) =>
    list.slice(c.from, c.to).replaceAll(CACHE_BREAKPOINT, ''),
  );
  return { members, items };
}

const toolNames = (format: Format, b: Record<string, unknown>) =>
  ((b.tools as Record<string, unknown>[]) ?? []).map((t) =>
    String(format === 'openai' ? (t.function as { name: string }).name : t.name),
  );

const FORMATS: Format[] = ['anthropic', 'openai', 'responses'];
const CASES = FORMATS.flatMap((format) => [false, true].map((stream) => ({ format, stream })));

describe.each(CASES)('cg proxy retrieval: $format, stream $stream', ({ format, stream }) => {
  it("the app's final answer holds the line only the original has; the hidden round never reaches it", async () => {
    const w = await world(format, stream);
    const answer = await w.app.ask('Please look at the service log.');
    expect(answer).toContain(NEEDLE);
    // read_log called, cg_expand called (answered by the proxy), the final answer.
    expect(w.up.requests).toHaveLength(3);
    expect(w.app.received).toHaveLength(2);
    // What the app received is, byte for byte, the upstream's first and last replies.
    expect(w.app.received[0]!.equals(w.model.bytes(0))).toBe(true);
    expect(w.app.received[1]!.equals(w.model.bytes(2))).toBe(true);
    // The model saw a marker, not the needle, then the original through the proxy's cg_expand.
    expect(w.up.requests[1]!.body.toString()).toMatch(/<<cg:[0-9a-f]{16}>>/);
    expect(w.up.requests[1]!.body.toString()).not.toContain(NEEDLE);
    expect(toolNames(format, body(w, 0))).toEqual(['read_log', 'read_more']);
    expect(toolNames(format, body(w, 1))).toEqual(['read_log', 'read_more', 'cg_expand']);
    const hidden = parts(w, 2, format);
    const result = hidden.items.at(-1)!;
    expect(result).toContain(NEEDLE);
    expect(JSON.stringify(JSON.parse(result))).toContain(JSON.stringify(LOG).slice(1, -1));
  });

  it('later turns keep every earlier message and the tools byte-stable, the hidden exchange included', async () => {
    const w = await world(format, stream);
    await w.app.ask('Please look at the service log.');
    await w.app.ask('Thanks. Anything else?');
    expect(w.up.requests).toHaveLength(4);
    const before = parts(w, 2, format);
    const after = parts(w, 3, format);
    expect(after.items.slice(0, before.items.length)).toEqual(before.items);
    expect(after.members.get('tools')).toBe(before.members.get('tools'));
    // The model's view: the hidden call and its result sit before the answer the app got.
    expect(after.items.length).toBe(before.items.length + 2);
  });

  it('an answer that also calls a tool of the app reaches the app without the proxy call, and every call gets its result', async () => {
    const w = await world(format, stream, { mixed: true });
    const answer = await w.app.ask('Please look at the service log.');
    expect(answer).toContain(NEEDLE);
    // read_log, then read_more + cg_expand in one answer, then the final answer.
    expect(w.up.requests).toHaveLength(3);
    expect(w.app.received[1]!.toString()).toContain('read_more');
    expect(w.app.received[1]!.toString()).not.toContain('cg_expand');
    const last = w.up.requests[2]!.body.toString();
    expect(last).toContain(NEEDLE);
    expect(last).toContain('nothing more to read');
    // The model's answer went back whole: both its calls, as it made them.
    const calls = (last.match(/"cg_expand"/g) ?? []).length;
    expect(calls).toBe(2); // the tool definition and the call
  });
});

describe('cg proxy retrieval: bounds and bad input', () => {
  it('a key no store holds gets the model a tool error saying the original is gone', async () => {
    const w = await world('openai', false, { bogus: true });
    const answer = await w.app.ask('Please look at the service log.');
    expect(answer).toContain('I could not read it: 0123456789abcdef: not in the store');
    const result = parts(w, 2, 'openai').items.at(-1)!;
    expect(result).toContain('expired or was never stored here');
  });

  it('a result over the configured size is sliced with a note, and a model paging through it finds the line', async () => {
    const w = await world(
      'anthropic',
      true,
      { paging: true },
      { retrieval: { maxBytes: 8000, maxRounds: 6 } },
    );
    const answer = await w.app.ask('Please look at the service log.');
    expect(answer).toContain(NEEDLE);
    const first = JSON.parse(parts(w, 2, 'anthropic').items.at(-1)!) as { content: { content: string }[] };
    const slice = first.content[0]!.content;
    expect(Buffer.byteLength(slice)).toBeLessThanOrEqual(8000);
    expect(slice).toMatch(
      /\[cg: lines 1-\d+ of 600 shown, over 8000 bytes; the next slice: cg_expand \{"key":"<<cg:[0-9a-f]{16}>>","lines":"\d+-"\}\]$/,
    );
    expect(w.app.received).toHaveLength(2);
  });

  it('past the round limit the call goes to the app as it came, and its error tells the model', async () => {
    const w = await world('responses', true, { greedy: true }, { retrieval: { maxRounds: 2 } });
    const answer = await w.app.ask('Please look at the service log.');
    expect(answer).toBe('The app has no cg_expand: giving up.');
    // read_log, two hidden rounds, the third call handed to the app, its error, the answer.
    expect(w.up.requests).toHaveLength(5);
    expect(w.app.received).toHaveLength(3);
    expect(w.app.received[1]!.equals(w.model.bytes(3))).toBe(true);
    expect(w.up.requests[4]!.body.toString()).toContain('error: no tool named cg_expand');
  });

  it('an upstream error during a proxy-answered round reaches the app as the upstream sent it', async () => {
    const w = await world('anthropic', false);
    w.model.failAt.set(2, 529);
    await expect(w.app.ask('Please look at the service log.')).rejects.toMatchObject({ status: 529 });
    expect(w.app.received.at(-1)!.equals(w.model.bytes(2))).toBe(true);
  });
});

describe('cg proxy retrieval: who gets the tool', () => {
  const bigOutput = LOG;
  const chat = (tools: string[]) => ({
    model: 'm',
    messages: [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            // The big output comes from the offered tool, unless that is a cg_expand: what a
            // cg_expand returns is an original and stays as it is (pipeline/verbatim.ts).
            function: {
              name: tools[0] === undefined || /cg_expand$/.test(tools[0]) ? 'x' : tools[0],
              arguments: '{"command":"cat log"}',
            },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: bigOutput },
    ],
    tools: tools.map((name) => ({
      type: 'function',
      function: { name, parameters: { type: 'object', properties: {} } },
    })),
  });

  it.each([['Bash'], ['exec_command'], ['run_shell_command'], ['mcp__cg__cg_expand']])(
    'a client offering %s opens markers itself: its requests get no injected tool, then or later',
    async (tool) => {
      const up = await startFakeUpstream(() => ({
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }));
      open.push(up);
      const p = await startTestProxy({ openai: up.url });
      open.push(p);
      const headers = { authorization: 'Bearer sk-test', 'x-cg-session': `s-${tool}` };
      await send(p.url, '/v1/chat/completions', JSON.stringify(chat([tool])), headers);
      await send(p.url, '/v1/chat/completions', JSON.stringify(chat([tool, 'other'])), headers);
      for (const r of up.requests) {
        expect(r.body.toString()).toMatch(/<<cg:[0-9a-f]{16}>>/);
        expect(r.body.toString()).not.toContain('"cg_expand"');
      }
    },
  );

  it('a session that later offers a cg_expand of its own keeps one tool of that name: the proxy adds none', async () => {
    const w = await world('openai', false);
    await w.app.ask('Please look at the service log.');
    const app = w.app as ChatApp;
    app.tools.push({
      type: 'function',
      function: { name: 'cg_expand', parameters: { type: 'object', properties: {} } },
    });
    await app.ask('Thanks. Anything else?');
    expect(toolNames('openai', body(w, 3)).filter((n) => n === 'cg_expand')).toHaveLength(1);
    expect(toolNames('openai', body(w, 2)).filter((n) => n === 'cg_expand')).toHaveLength(1);
  });

  it('retrieval: always offers the tool even beside a shell; never, not at all', async () => {
    for (const [mode, offered] of [
      ['always', true],
      ['never', false],
    ] as const) {
      const up = await startFakeUpstream(() => ({
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }));
      open.push(up);
      const p = await startTestProxy({ openai: up.url, retrieval: { mode } });
      open.push(p);
      await send(p.url, '/v1/chat/completions', JSON.stringify(chat(['Bash'])), {
        authorization: 'Bearer sk-test',
      });
      expect(up.requests[0]!.body.toString()).toMatch(/<<cg:[0-9a-f]{16}>>/);
      expect(up.requests[0]!.body.toString().includes('"name":"cg_expand"')).toBe(offered);
    }
  });
});

describe('cg proxy: GET /expand/KEY', () => {
  async function stashed(o: TestProxyOptions = {}): Promise<{ p: TestProxy; key: string }> {
    const p = await startTestProxy(o);
    open.push(p);
    const put = await p.store.put(LOG);
    if (!put.ok) throw new Error('put failed');
    return { p, key: put.key };
  }

  it('on loopback gives the original byte for byte, or the lines and grep asked for', async () => {
    const { p, key } = await stashed();
    const whole = await send(p.url, `/expand/${key}`, '', {}, 'GET');
    expect(whole.status).toBe(200);
    expect(whole.body.toString('utf8')).toBe(LOG);
    const lines = await send(
      p.url,
      `/expand/${encodeURIComponent(`<<cg:${key}>>`)}?lines=418-419`,
      '',
      {},
      'GET',
    );
    expect(lines.body.toString()).toBe(`${LOG.split('\n').slice(417, 419).join('\n')}\n`);
    const grep = await send(p.url, `/expand/${key}?grep=${encodeURIComponent('checksum')}`, '', {}, 'GET');
    expect(grep.body.toString()).toBe(`418:2024-05-01T10:57:00Z INFO ${NEEDLE}\n`);
  });

  it('answers a missing key 404 and a bad one 400, each with a reason', async () => {
    const { p } = await stashed();
    const missing = await send(p.url, '/expand/0123456789abcdef', '', {}, 'GET');
    expect(missing.status).toBe(404);
    expect(missing.body.toString()).toContain('expired or was never stored here');
    const bad = await send(p.url, '/expand/nope', '', {}, 'GET');
    expect(bad.status).toBe(400);
    const range = await send(p.url, '/expand/0123456789abcdef?lines=9-1', '', {}, 'GET');
    expect(range.status).toBe(400);
  });

  it('beyond loopback serves no original without the proxy token, and one with it', async () => {
    const { p, key } = await stashed({ host: '0.0.0.0', token: 's3cret-token' });
    const url = p.url.replace('0.0.0.0', '127.0.0.1');
    expect((await send(url, `/expand/${key}`, '', {}, 'GET')).status).toBe(401);
    expect(
      (await send(url, `/expand/${key}`, '', { authorization: 'Bearer s3cret-tokem' }, 'GET')).status,
    ).toBe(401);
    const ok = await send(url, `/expand/${key}`, '', { authorization: 'Bearer s3cret-token' }, 'GET');
    expect(ok.status).toBe(200);
    expect(ok.body.toString()).toBe(LOG);
    const { p: bare, key: k2 } = await stashed({ host: '0.0.0.0' });
    const refused = await send(
      bare.url.replace('0.0.0.0', '127.0.0.1'),
      `/expand/${k2}`,
      '',
      { authorization: 'Bearer x' },
      'GET',
    );
    expect(refused.status).toBe(403);
    expect(refused.body.toString()).toContain('CG_PROXY_TOKEN');
  });
});

describe('cg proxy retrieval: a conversation the provider stores (Responses previous_response_id)', () => {
  it.each([false, true])(
    'stream %s: a hidden round continues it, and a later turn is sent as the app wrote it',
    async (stream) => {
      const m = new ScriptedModel('responses');
      const up = await startFakeUpstream(m.script);
      open.push(up);
      const proxy = await startTestProxy({ openai: up.url });
      open.push(proxy);
      const app = new ResponsesApp(proxy.url, stream, true);
      expect(await app.ask('Please look at the service log.')).toContain(NEEDLE);
      expect(up.requests).toHaveLength(3);
      const hidden = body({ up }, 2);
      expect(hidden.previous_response_id).toBe(body({ up }, 1).previous_response_id);
      await app.ask('Thanks. Anything else?');
      expect((body({ up }, 3).input as unknown[]).length).toBe(1);
    },
  );

  it("a mixed answer's proxy result goes first in the input of the request that continues it", async () => {
    const m = new ScriptedModel('responses', { mixed: true });
    const up = await startFakeUpstream(m.script);
    open.push(up);
    const proxy = await startTestProxy({ openai: up.url });
    open.push(proxy);
    const app = new ResponsesApp(proxy.url, true, true);
    expect(await app.ask('Please look at the service log.')).toContain(NEEDLE);
    const input = body({ up }, 2).input as { type: string; output?: string }[];
    expect(input.map((i) => i.type)).toEqual(['function_call_output', 'function_call_output']);
    expect(input[0]!.output).toContain(NEEDLE);
    expect(input[1]!.output).toBe('nothing more to read');
  });
});

describe('cg proxy retrieval: a restarted proxy', () => {
  it('carries the session on: the decision and the hidden exchange come back from its records', async () => {
    const dir = tempDir('cg-retrieval-restart-');
    try {
      const store = createFsStore({
        dir: join(dir, 'store'),
        ttlDays: 14,
        maxBytes: 1 << 30,
        compress: true,
      });
      const o = { stateDir: join(dir, 'state'), store };
      const m = new ScriptedModel('openai');
      const up = await startFakeUpstream(m.script);
      open.push(up);
      const first = await startTestProxy({ openai: up.url, ...o });
      const app = new ChatApp(first.url, true);
      await app.ask('Please look at the service log.');
      await first.close();
      const second = await startTestProxy({ openai: up.url, ...o });
      open.push(second);
      const again = new ChatApp(second.url, true);
      again.messages.splice(0, again.messages.length, ...app.messages);
      await again.ask('Thanks. Anything else?');
      const before = parts({ up }, 2, 'openai');
      const after = parts({ up }, 3, 'openai');
      expect(after.items.slice(0, before.items.length)).toEqual(before.items);
      expect(after.members.get('tools')).toBe(before.members.get('tools'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
