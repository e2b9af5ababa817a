import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Component, ModelAccess, OutputComponent, TranscriptComponent } from '../../../src/component.js';
import { MARKER_SLOT } from '../../../src/component.js';
import { extract } from '../../../src/components/extract.js';
import { compactText } from '../../../src/engine.js';
import type { ToolOutput, Transcript } from '../../../src/input/transcript.js';
import { modelAccess } from '../../../src/llm/access.js';
import { parseModelConfig } from '../../../src/llm/endpoint.js';
import { type PipelineEvent, runPipeline } from '../../../src/pipeline/run.js';
import { createTokens } from '../../../src/tokens.js';
import { type ModelServer, openaiReply, startModelServer } from '../../llm-server.js';
import { MemoryStore } from '../../memory-store.js';

function transcript(texts: string[], format: Transcript['format'] = 'openai'): Transcript {
  const outputs = texts.map(
    (text, i): ToolOutput => ({ id: `t${i}`, text, rewritable: true, isError: false, messageIndex: i }),
  );
  return { format, outputs, messages: [], write: () => '' };
}

const big = Array.from({ length: 300 }, (_, i) => `line ${i} of a long and repetitive build log`).join('\n');

/** Asks the model once per output and keeps the first line whatever it said. */
const asking: OutputComponent<null> = {
  name: 'asking',
  lossy: true,
  summary: 'asks',
  scope: 'output',
  defaults: null,
  parseConfig: () => null,
  concurrency: () => 4,
  async run(o, _cfg, ctx) {
    if (ctx.model?.available) await ctx.model.complete({ system: 'sys', prompt: o.text });
    return { kind: 'rewrite', text: `${o.text.split('\n')[0]}\n${MARKER_SLOT}`, loss: 'whole' };
  },
};

async function run(t: Transcript, components: Component[], model: ModelAccess) {
  const events: PipelineEvent[] = [];
  await runPipeline(t, {
    stages: components.map((component) => ({ component, config: component.defaults })),
    store: new MemoryStore(),
    tokens: createTokens(),
    model,
    onEvent: (e) => events.push(e),
  });
  return events;
}

let server: ModelServer;
beforeAll(async () => {
  // Each request's usage names it: prompt_tokens is 1000 + its index, so overlapping calls stay apart.
  server = await startModelServer((req, i) => {
    const prompt = JSON.stringify(req.body);
    if (prompt.includes('NO-USAGE')) return openaiReply('a summary', null);
    return openaiReply('a summary', { prompt_tokens: 1000 + i, completion_tokens: 10 + i });
  });
});
afterAll(() => server.close());

const served = () =>
  modelAccess(
    parseModelConfig({ source: 'config', model: 'm', base_url: server.openaiBaseUrl }),
    { format: 'text' },
    {
      CG_MODEL_API_KEY: 'k',
    },
  );

describe("the pipeline meters cg's own model calls", () => {
  it('puts what the server reported on the event of the output the call was for, one call each, in parallel', async () => {
    const before = server.requests.length;
    const events = await run(transcript([`A ${big}`, `B ${big}`, `C ${big}`]), [asking], served());
    const mine = server.requests.slice(before);
    expect(mine).toHaveLength(3);
    const byOutput = new Map(events.map((e) => [e.output, e.modelUsage]));
    for (const [i, letter] of ['A', 'B', 'C'].entries()) {
      const index = before + mine.findIndex((r) => JSON.stringify(r.body).includes(`"${letter} line 0`));
      expect(byOutput.get(`t${i}`)).toEqual({
        calls: 1,
        in: 1000 + index,
        out: 10 + index,
        cacheRead: 0,
        cacheWrite: 0,
        estimated: 0,
      });
    }
    expect(events.filter((e) => e.modelUsage)).toHaveLength(3);
  });

  it("counts a call whose server reported no usage with the run's tokenizer, marked estimated", async () => {
    const text = `NO-USAGE ${big}`;
    const [e] = (await run(transcript([text]), [asking], served())).filter((x) => x.modelUsage);
    const tokens = createTokens();
    expect(e!.modelUsage).toEqual({
      calls: 1,
      in: (await tokens.count('sys')) + (await tokens.count(text)),
      out: await tokens.count('a summary'),
      cacheRead: 0,
      cacheWrite: 0,
      estimated: 1,
    });
  });

  it('charges a refused call nothing, and a paid reply with no text its input', async () => {
    const refused: ModelAccess = {
      available: true,
      label: 'fake:m',
      budgetMs: 1000,
      complete: async () => ({ ok: false, reason: 'model server answered HTTP 500' }),
    };
    expect((await run(transcript([big]), [asking], refused)).some((e) => e.modelUsage)).toBe(false);
    const empty: ModelAccess = {
      ...refused,
      complete: async () => ({ ok: false, reason: 'no text', answered: true }),
    };
    const [e] = (await run(transcript([big]), [asking], empty)).filter((x) => x.modelUsage);
    expect(e!.modelUsage).toMatchObject({ calls: 1, out: 0, estimated: 1 });
    expect(e!.modelUsage!.in).toBeGreaterThan(0);
  });

  it("records a call that made no decision on a '*' skip of its own, so no cost goes unrecorded", async () => {
    const silent: TranscriptComponent<null> = {
      name: 'silent',
      lossy: true,
      summary: 'asks, changes nothing',
      scope: 'transcript',
      defaults: null,
      parseConfig: () => null,
      async run(_outputs, _cfg, ctx) {
        if (ctx.model?.available) await ctx.model.complete({ system: 's', prompt: 'p' });
        return new Map();
      },
    };
    const events = await run(transcript([big]), [silent, asking], served());
    const charged = events.filter((e) => e.modelUsage);
    expect(charged.map((e) => [e.component, e.output, e.action])).toEqual([
      ['silent', '*', 'skip'],
      ['asking', 't0', 'rewrite'],
    ]);
    expect(charged[0]!.reason).toBe('asked the model; no decision to report');
  });

  it("charges extract's model strategy for the call even when its program is refused and the fallback cuts", async () => {
    const garbage: ModelAccess = {
      available: true,
      label: 'fake:m',
      budgetMs: 1000,
      complete: async () => ({
        ok: true,
        text: 'no program here',
        usage: { calls: 1, in: 4000, out: 20, cacheRead: 0, cacheWrite: 0, estimated: 0 },
      }),
    };
    const t = transcript(
      [Array.from({ length: 2000 }, (_, i) => `row ${i} value ${i * 7}`).join('\n')],
      'text',
    );
    const events: PipelineEvent[] = [];
    await runPipeline(t, {
      stages: [{ component: extract, config: { ...extract.defaults, strategy: 'code' } }],
      store: new MemoryStore(),
      tokens: createTokens(),
      model: garbage,
      onEvent: (e) => events.push(e),
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ action: 'rewrite', modelUsage: { calls: 1, in: 4000, out: 20 } });
    expect(events[0]!.note).toMatch(/model strategy not used: the model wrote no filter function/);
  });

  it("puts a summary's cost on the rewrite that replaced the messages", async () => {
    const messages: unknown[] = [{ role: 'user', content: 'Fix the bug' }];
    for (let i = 0; i < 6; i++) {
      const content = Array.from(
        { length: 60 },
        (_, k) => `f${i}.py:${k}: def handler_${k}(request): pass`,
      ).join('\n');
      messages.push({
        role: 'assistant',
        content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: {} }],
      });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content }] });
    }
    messages.push({ role: 'assistant', content: 'Found it.' }, { role: 'user', content: 'Fix it then.' });
    const body = JSON.stringify({ model: 'claude-x', max_tokens: 100, messages });
    const events: PipelineEvent[] = [];
    const summarizer: ModelAccess = {
      available: true,
      label: 'fake:m',
      budgetMs: 1000,
      complete: async () => ({
        ok: true,
        text: 'The agent read six files.',
        usage: { calls: 1, in: 3100, out: 9, cacheRead: 3000, cacheWrite: 0, estimated: 0 },
      }),
    };
    const r = await compactText(body, {
      components: 'summarize',
      config: { components: { summarize: { trigger: { min_request_tokens: 2000 } } } },
      store: new MemoryStore(),
      model: summarizer,
      onEvent: (e) => events.push(e),
    });
    expect(r.changed).toBe(true);
    const charged = events.filter((e) => e.modelUsage);
    expect(charged).toHaveLength(1);
    expect(charged[0]).toMatchObject({
      component: 'summarize',
      action: 'rewrite',
      output: expect.stringMatching(/^@messages:/),
      modelUsage: { calls: 1, in: 3100, out: 9, cacheRead: 3000 },
    });
  });
});
