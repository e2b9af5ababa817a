import { afterEach, describe, expect, it } from 'vitest';
import { modelAccess } from '../../../src/llm/access.js';
import { complete, type ModelApi, type ModelEndpoint } from '../../../src/llm/client.js';
import { parseModelConfig } from '../../../src/llm/endpoint.js';
import { estimatedUsage, replyUsage } from '../../../src/llm/usage.js';
import { createTokens } from '../../../src/tokens.js';
import {
  anthropicReply,
  type ModelServer,
  openaiReply,
  responsesReply,
  type ScriptedReply,
  startModelServer,
} from '../../llm-server.js';

const REQ = { system: 'You shorten tool output.', prompt: 'line one\nline two' };

let servers: ModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function ask(api: ModelApi, replies: ScriptedReply[], over: Partial<ModelEndpoint> = {}) {
  const s = await startModelServer(replies);
  servers.push(s);
  const baseUrl = api === 'anthropic' ? s.anthropicBaseUrl : s.openaiBaseUrl;
  return complete(
    { api, model: 'm', baseUrl, apiKey: 'k', timeoutMs: 5000, maxOutputTokens: 100, ...over },
    REQ,
  );
}

describe('what a model call cost, as each API reports it', () => {
  it('reads Chat Completions prompt_tokens and completion_tokens, with the cached part', async () => {
    const usage = {
      prompt_tokens: 1234,
      completion_tokens: 56,
      prompt_tokens_details: { cached_tokens: 1024 },
    };
    const r = await ask('openai', [openaiReply('short', usage)]);
    expect(r).toMatchObject({ ok: true, text: 'short' });
    expect(r.usage).toEqual({ calls: 1, in: 1234, out: 56, cacheRead: 1024, cacheWrite: 0, estimated: 0 });
  });

  it('reads Responses input_tokens and output_tokens, with the cached part', async () => {
    const usage = { input_tokens: 900, output_tokens: 40, input_tokens_details: { cached_tokens: 512 } };
    const r = await ask('responses', [responsesReply('short', usage)]);
    expect(r.usage).toEqual({ calls: 1, in: 900, out: 40, cacheRead: 512, cacheWrite: 0, estimated: 0 });
  });

  it('adds Anthropic cache reads and writes to its uncached input_tokens', async () => {
    const usage = {
      input_tokens: 30,
      output_tokens: 70,
      cache_read_input_tokens: 2000,
      cache_creation_input_tokens: 500,
    };
    const r = await ask('anthropic', [anthropicReply('short', usage)]);
    expect(r.usage).toEqual({ calls: 1, in: 2530, out: 70, cacheRead: 2000, cacheWrite: 500, estimated: 0 });
  });

  it('reports no usage when the server sends none, or counts it cannot trust', async () => {
    expect((await ask('openai', [openaiReply('short', null)])).usage).toBeUndefined();
    expect((await ask('anthropic', [anthropicReply('short', null)])).usage).toBeUndefined();
    expect(replyUsage('openai', { usage: { prompt_tokens: '12', completion_tokens: 5 } })).toBeUndefined();
    expect(replyUsage('openai', { usage: { prompt_tokens: -1, completion_tokens: 5 } })).toBeUndefined();
    expect(replyUsage('anthropic', { usage: { input_tokens: 3 } })).toBeUndefined();
  });

  it('reads a compatible server that answers Chat Completions with input_tokens and output_tokens', () => {
    expect(replyUsage('openai', { usage: { input_tokens: 8, output_tokens: 2 } })).toMatchObject({
      in: 8,
      out: 2,
    });
  });

  it('says a reply with no text was answered, and what it cost, though the call failed', async () => {
    const empty: ScriptedReply = {
      body: {
        choices: [{ message: { content: '' } }],
        usage: { prompt_tokens: 300, completion_tokens: 100 },
      },
    };
    const r = await ask('openai', [empty], { model: 'gpt-5-mini' });
    expect(r).toMatchObject({ ok: false, reason: 'model reply had no text', answered: true });
    expect(r.usage).toMatchObject({ calls: 1, in: 300, out: 100 });
  });

  it('costs nothing for a request the server refused or never answered', async () => {
    const r = await ask('openai', [
      { status: 500, body: { error: { message: 'overloaded' } } },
      { status: 500, body: { error: { message: 'overloaded' } } },
    ]);
    expect(r.ok).toBe(false);
    expect(r.usage).toBeUndefined();
    expect('answered' in r).toBe(false);
  });

  it('counts, when a server reports nothing, the request and the reply with the given tokenizer', async () => {
    const tokens = createTokens('o200k');
    const u = await estimatedUsage(tokens, REQ, 'short version');
    const expected = {
      in: (await tokens.count(REQ.system)) + (await tokens.count(REQ.prompt)),
      out: await tokens.count('short version'),
    };
    expect(u).toEqual({ calls: 1, ...expected, cacheRead: 0, cacheWrite: 0, estimated: 1 });
  });

  it('passes the reported usage through the model as components see it', async () => {
    const s = await startModelServer([openaiReply('ok', { prompt_tokens: 77, completion_tokens: 3 })]);
    servers.push(s);
    const m = modelAccess(
      parseModelConfig({ source: 'config', model: 'm', base_url: s.openaiBaseUrl }),
      { format: 'text' },
      { CG_MODEL_API_KEY: 'k' },
    );
    if (!m.available) throw new Error(m.reason);
    expect(await m.complete(REQ)).toMatchObject({
      ok: true,
      text: 'ok',
      usage: { calls: 1, in: 77, out: 3 },
    });
  });
});
