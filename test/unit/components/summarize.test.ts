import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARY_HEADER } from '../../../src/components/summarize.js';
import { type CompactOptions, compactText } from '../../../src/engine.js';
import type { PipelineEvent } from '../../../src/pipeline/run.js';
import { markerKeys } from '../../../src/store/marker.js';
import { createTokens } from '../../../src/tokens.js';
import { type ModelServer, type RecordedRequest, startModelServer, textReply } from '../../llm-server.js';
import { MemoryStore } from '../../memory-store.js';

const tokens = createTokens('o200k');
const KEY = 'sk-summarize-test-0123456789';
let server: ModelServer;
const reply = 'The agent read src/app.py and found the failing assertion in parse().';
let dirs: string[] = [];

beforeAll(async () => {
  server = await startModelServer((req, i) => textReply(`${reply} (#${i})`)(req, i));
});
afterAll(() => server.close());
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
  server.requests.length = 0;
});

const log = (n: number, tag: string) =>
  Array.from({ length: 60 }, (_, k) => `${tag} line ${k}: value=${(n * 7919 + k * 104729) % 100003}`).join(
    '\n',
  );

/** An Anthropic body: the task, then `turns` tool calls with their results, then a closing user turn. */
function anthropicBody(turns: number, extra = '') {
  const messages: unknown[] = [{ role: 'user', content: 'Fix the failing test in tests/test_parse.py' }];
  for (let i = 0; i < turns; i++) {
    messages.push({
      role: 'assistant',
      content: [
        { type: 'tool_use', id: `tu_${i}`, name: 'Bash', input: { command: `grep -n parse src/f${i}.py` } },
      ],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `tu_${i}`, content: log(i, `TOOLOUT${i}`) }],
    });
  }
  messages.push({ role: 'assistant', content: `Looking at the results.${extra}` });
  messages.push({ role: 'user', content: 'Go on.' });
  return { model: 'claude-sonnet-4-5', system: 'You are a coding agent.', max_tokens: 1000, messages };
}

/** The request trigger is lowered: the bodies here are a few thousand tokens, not tens. */
const TRIGGER = { min_request_tokens: 3000, min_messages: 8 };

function options(
  store: MemoryStore,
  extra: Partial<CompactOptions> = {},
  model: Record<string, unknown> = {},
  summarize: Record<string, unknown> = {},
) {
  const dir = mkdtempSync(join(tmpdir(), 'cg-sum-'));
  dirs.push(dir);
  return {
    store,
    tokens,
    components: 'summarize',
    config: {
      components: { summarize: { trigger: TRIGGER, ...summarize } },
      model: { source: 'config', model: 'cheap-1', api: 'openai', base_url: server.openaiBaseUrl, ...model },
    },
    env: { CG_MODEL_API_KEY: KEY },
    session: { dir },
    ...extra,
  } satisfies CompactOptions;
}

const summaryOf = (s: string) => (JSON.parse(s) as { messages: { content: string }[] }).messages[1]!.content;
const promptOf = (r: RecordedRequest) =>
  ((r.body as { messages: { content: string }[] }).messages[1]?.content as string) ?? '';

describe('summarize', () => {
  it('replaces the middle by one summary message and leaves the first and last three byte-identical', async () => {
    const body = anthropicBody(6);
    const input = JSON.stringify(body);
    const store = new MemoryStore();
    const r = await compactText(input, options(store));
    expect(server.requests).toHaveLength(1);
    const out = JSON.parse(r.output) as { messages: { role: string; content: string }[] };
    // 15 messages: the task, 12 tool messages, the assistant's text and the last user turn. The last
    // three would open on a tool result, so the cut moves back to its call: four are kept.
    expect(out.messages).toHaveLength(1 + 1 + 4);
    const summary = out.messages[1]!;
    expect(summary.role).toBe('user');
    expect(summary.content.startsWith(`${SUMMARY_HEADER}\nThe agent read src/app.py`)).toBe(true);
    expect(summary.content).toContain('[10 earlier messages summarised] <<cg:');
    const expected = JSON.stringify({
      ...body,
      messages: [body.messages[0], { role: 'user', content: summary.content }, ...body.messages.slice(11)],
    });
    expect(r.output).toBe(expected);
  });

  it('stashes the exact bytes of the replaced messages under the marker', async () => {
    const body = anthropicBody(6);
    const store = new MemoryStore();
    const r = await compactText(JSON.stringify(body), options(store));
    const [key] = markerKeys(r.output);
    const span = JSON.stringify(body.messages.slice(1, 11)).slice(1, -1);
    expect(store.entries.get(key!)?.toString('utf8')).toBe(span);
  });

  it('grounds the prompt in the task and the recent turns, with tool outputs masked by default', async () => {
    await compactText(JSON.stringify(anthropicBody(6)), options(new MemoryStore()));
    const prompt = promptOf(server.requests[0]!);
    expect(prompt).toContain('<task>\n[0] user: Fix the failing test in tests/test_parse.py');
    expect(prompt).toContain('<recent>');
    expect(prompt).toContain('Go on.');
    expect(prompt).toContain('grep -n parse src/f0.py');
    expect(prompt).not.toContain('TOOLOUT0 line');
    expect(prompt).toMatch(/\[tool output of Bash: \d+ chars, not shown\]/);
  });

  it('shows the model the tool outputs with include_tool_calls', async () => {
    const opts = options(new MemoryStore(), {}, {}, { include_tool_calls: true });
    await compactText(JSON.stringify(anthropicBody(6)), opts);
    expect(promptOf(server.requests[0]!)).toContain('TOOLOUT0 line 1');
  });

  it('reuses the checkpoint verbatim until the new tail passes resummarize_tokens, then rolls forward', async () => {
    const store = new MemoryStore();
    const opts = options(store, {}, {}, { resummarize_tokens: 2500 });
    const first = await compactText(JSON.stringify(anthropicBody(6)), opts);
    expect(server.requests).toHaveLength(1);

    // Two more tool turns (about 2 × 900 tokens) stay under 2500: same summary bytes, no request.
    const second = await compactText(JSON.stringify(anthropicBody(8)), opts);
    expect(server.requests).toHaveLength(1);
    expect(summaryOf(second.output)).toBe(summaryOf(first.output));
    expect(JSON.parse(second.output).messages).toHaveLength(1 + 1 + 8);

    // Past it: one new request that carries the previous summary, and a summary covering more.
    const third = await compactText(JSON.stringify(anthropicBody(10)), opts);
    expect(server.requests).toHaveLength(2);
    expect(promptOf(server.requests[1]!)).toContain(`<previous_summary>\n${reply} (#0)`);
    expect(summaryOf(third.output)).toContain('[18 earlier messages summarised]');
    const [key] = markerKeys(summaryOf(third.output));
    const body = anthropicBody(10);
    expect(store.entries.get(key!)?.toString('utf8')).toBe(
      JSON.stringify(body.messages.slice(1, 19)).slice(1, -1),
    );
  });

  it('keeps the summary it has when a roll forward fails, rather than sending the whole history', async () => {
    const store = new MemoryStore();
    const opts = options(store, {}, {}, { resummarize_tokens: 2500 });
    const first = await compactText(JSON.stringify(anthropicBody(6)), opts);
    const events: PipelineEvent[] = [];
    const down = await compactText(JSON.stringify(anthropicBody(10)), {
      ...opts,
      env: {},
      onEvent: (e) => events.push(e),
    });
    expect(summaryOf(down.output)).toBe(summaryOf(first.output));
    expect(events.find((e) => e.action === 'rewrite')?.note).toMatch(/summary reused \(no model/);
  });

  it('never keeps a summary the pipeline refuses, and a refused roll keeps the summary it has', async () => {
    // A summary that carries a marker of its own is refused by the pipeline's marker check.
    const forged = await startModelServer(textReply('Summary citing <<cg:0123456789abcdef>> as if stashed.'));
    try {
      const store = new MemoryStore();
      const opts = options(store, {}, {}, { resummarize_tokens: 2500 });
      const summarize = { resummarize_tokens: 2500 };
      const viaForged = {
        ...options(store, {}, { base_url: forged.openaiBaseUrl }, summarize),
        session: opts.session,
      };
      const input = JSON.stringify(anthropicBody(6));
      const events: PipelineEvent[] = [];
      expect((await compactText(input, { ...viaForged, onEvent: (e) => events.push(e) })).output).toBe(input);
      expect(events.some((e) => e.action === 'skip' && /marker/.test(e.reason ?? ''))).toBe(true);
      // Not checkpointed: the next turn asks again rather than reusing it.
      await compactText(input, viaForged);
      expect(forged.requests).toHaveLength(2);

      const first = await compactText(input, opts);
      expect(server.requests).toHaveLength(1);
      const rolled: PipelineEvent[] = [];
      const later = await compactText(JSON.stringify(anthropicBody(10)), {
        ...viaForged,
        onEvent: (e) => rolled.push(e),
      });
      expect(forged.requests).toHaveLength(3);
      expect(summaryOf(later.output)).toBe(summaryOf(first.output));
      expect(rolled.find((e) => e.action === 'rewrite')?.note).toMatch(
        /summary reused \(new summary refused\)/,
      );
    } finally {
      await forged.close();
    }
  });

  it('never opens the kept tail with a tool result whose call would be dropped', async () => {
    const body = anthropicBody(6);
    body.messages.splice(-2); // now ends with a tool_result: keep_last 3 would start on one
    const r = await compactText(JSON.stringify(body), options(new MemoryStore()));
    const out = JSON.parse(r.output) as { messages: { role: string; content: unknown }[] };
    const tail = out.messages.slice(2);
    expect(tail).toEqual(body.messages.slice(-4));
    expect((tail[0] as { role: string }).role).toBe('assistant');
  });

  it('works on OpenAI and Responses bodies, cutting before tool messages, never between call and output', async () => {
    const messages: unknown[] = [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: 'Fix it' },
    ];
    for (let i = 0; i < 6; i++) {
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: `c${i}`, type: 'function', function: { name: 'sh', arguments: '{"command":"ls"}' } },
        ],
      });
      messages.push({ role: 'tool', tool_call_id: `c${i}`, content: log(i, 'OUT') });
    }
    const openai = await compactText(
      JSON.stringify({ model: 'gpt-x', messages }),
      options(new MemoryStore()),
    );
    const o = JSON.parse(openai.output) as { messages: { role: string }[] };
    const roles = ['system', 'user', 'user', 'assistant', 'tool', 'assistant', 'tool'];
    expect(o.messages.map((m) => m.role)).toEqual(roles);

    const input: unknown[] = [{ role: 'user', content: 'Fix it' }];
    for (let i = 0; i < 6; i++) {
      input.push({ type: 'function_call', call_id: `c${i}`, name: 'sh', arguments: '{"command":"ls"}' });
      input.push({ type: 'function_call_output', call_id: `c${i}`, output: log(i, 'OUT') });
    }
    const responses = await compactText(
      JSON.stringify({ model: 'gpt-x', input }),
      options(new MemoryStore()),
    );
    const items = (JSON.parse(responses.output) as { input: { type?: string; role?: string }[] }).input;
    const kinds = [
      'user',
      'user',
      'function_call',
      'function_call_output',
      'function_call',
      'function_call_output',
    ];
    expect(items.map((x) => x.type ?? x.role)).toEqual(kinds);
  });

  it('keeps the calls of one Responses response together with their reasoning and outputs', async () => {
    const input: unknown[] = [{ role: 'user', content: 'Fix it' }];
    for (let i = 0; i < 5; i++) {
      input.push({ type: 'reasoning', id: `rs_${i}`, summary: [] });
      input.push({ type: 'function_call', call_id: `c${i}a`, name: 'sh', arguments: '{"command":"ls"}' });
      input.push({ type: 'function_call', call_id: `c${i}b`, name: 'sh', arguments: '{"command":"pwd"}' });
      input.push({ type: 'function_call_output', call_id: `c${i}a`, output: log(i, 'A') });
      input.push({ type: 'function_call_output', call_id: `c${i}b`, output: log(i, 'B') });
    }
    const opts = options(new MemoryStore(), {}, {}, { keep_last: 2 });
    const r = await compactText(JSON.stringify({ model: 'gpt-x', input }), opts);
    const items = (JSON.parse(r.output) as { input: { type?: string; call_id?: string }[] }).input;
    // The last 2 items would orphan output c4a and reasoning rs_4: the whole response is kept.
    expect(items.slice(2).map((x) => x.type)).toEqual([
      'reasoning',
      'function_call',
      'function_call',
      'function_call_output',
      'function_call_output',
    ]);
  });

  it('opens the kept turn with a thinking block when extended thinking is on', async () => {
    const body = anthropicBody(6) as ReturnType<typeof anthropicBody> & { thinking?: unknown };
    body.thinking = { type: 'enabled', budget_tokens: 1024 };
    // Only the first assistant message of the tool loop (and one later) starts with thinking.
    const think = { type: 'thinking', thinking: 'hmm', signature: 'sig' };
    for (const i of [1, 7]) {
      const m = body.messages[i] as { content: unknown[] };
      m.content = [think, ...m.content];
    }
    const r = await compactText(JSON.stringify(body), options(new MemoryStore()));
    const out = JSON.parse(r.output) as {
      messages: { role: string; content: { type: string }[] | string }[];
    };
    const firstKept = out.messages[2]!;
    expect(firstKept.role).toBe('assistant');
    expect((firstKept.content as { type: string }[])[0]!.type).toBe('thinking');
    expect(out.messages.slice(2)).toEqual(body.messages.slice(7));
  });

  it('does not ask the model when the store cannot take the messages', async () => {
    const store = new MemoryStore();
    store.canWrite = false;
    const input = JSON.stringify(anthropicBody(6));
    expect((await compactText(input, options(store))).output).toBe(input);
    expect(server.requests).toHaveLength(0);
  });

  it('does nothing without a model, and says why under --verbose', async () => {
    const input = JSON.stringify(anthropicBody(6));
    const events: PipelineEvent[] = [];
    const r = await compactText(input, {
      ...options(new MemoryStore()),
      env: {},
      onEvent: (e) => events.push(e),
    });
    expect(r.output).toBe(input);
    expect(server.requests).toHaveLength(0);
    expect(events.some((e) => e.action === 'skip' && /no model \(no API key/.test(e.reason ?? ''))).toBe(
      true,
    );
  });

  it('does nothing when the server fails, returns garbage, or the request is small', async () => {
    const input = JSON.stringify(anthropicBody(6));
    const bad = await startModelServer([{ status: 500 }, { status: 500 }, { raw: 'not json at all' }]);
    try {
      const model = { base_url: bad.openaiBaseUrl };
      expect((await compactText(input, options(new MemoryStore(), {}, model))).output).toBe(input);
      expect((await compactText(input, options(new MemoryStore(), {}, model))).output).toBe(input);
      expect(bad.requests).toHaveLength(3); // one retry after the first 500, none after garbage
    } finally {
      await bad.close();
    }
    const small = JSON.stringify(anthropicBody(2));
    expect((await compactText(small, options(new MemoryStore()))).output).toBe(small);
    expect(server.requests).toHaveLength(0);
  });

  it('leaves its own output alone: cg(cg(x)) == cg(x), even with triggers that its output meets', async () => {
    const once = await compactText(JSON.stringify(anthropicBody(6)), options(new MemoryStore()));
    const twice = await compactText(once.output, options(new MemoryStore()));
    expect(twice.output).toBe(once.output);
    const eager = { keep_last: 1, min_tokens: 10, trigger: { min_request_tokens: 10, min_messages: 3 } };
    const first = await compactText(
      JSON.stringify(anthropicBody(6)),
      options(new MemoryStore(), {}, {}, eager),
    );
    const again = await compactText(first.output, options(new MemoryStore(), {}, {}, eager));
    expect(again.output).toBe(first.output);
  });
});

describe('summarize after cacheinject', () => {
  it('takes a breakpoint placed on a message it replaces away with it', async () => {
    const { cacheinject } = await import('../../../src/components/cacheinject.js');
    const { summarize } = await import('../../../src/components/summarize.js');
    const { readTranscript } = await import('../../../src/input/read.js');
    const { runPipeline } = await import('../../../src/pipeline/run.js');
    const body = anthropicBody(6);
    // Block content, so cacheinject has a block to mark on the message before the newest turn.
    body.messages[body.messages.length - 2] = {
      role: 'assistant',
      content: [{ type: 'text', text: 'Looking at the results.' }],
    };
    const t = readTranscript(JSON.stringify(body), 'auto', {});
    const config = summarize.parseConfig({ keep_last: 1, trigger: TRIGGER });
    const alone = await runPipeline(t, {
      stages: [{ component: cacheinject, config: cacheinject.defaults }],
      store: new MemoryStore(),
      tokens,
    });
    expect(alone.edits.map((e) => e.kind)).toEqual(['cache_breakpoint']);
    const model = {
      available: true as const,
      label: 'stand-in',
      budgetMs: 1000,
      complete: async () => ({ ok: true as const, text: 'Summary.' }),
    };
    const r = await runPipeline(t, {
      stages: [
        { component: cacheinject, config: cacheinject.defaults },
        { component: summarize, config },
      ],
      store: new MemoryStore(),
      tokens,
      model,
    });
    // cacheinject marked the message before the newest turn; keep_last 1 puts it in the summary.
    expect(r.edits.map((e) => e.kind)).toEqual(['replace_messages']);
    expect(t.write(r.rewrites, r.edits)).not.toContain('cache_control');
  });
});
