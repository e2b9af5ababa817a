import { describe, expect, it } from 'vitest';
import type { Component } from '../../../src/component.js';
import { format } from '../../../src/components/format.js';
import { readTranscript } from '../../../src/input/read.js';
import type { MessageView, ToolOutput, Transcript } from '../../../src/input/transcript.js';
import { type Pin, runPipeline } from '../../../src/pipeline/run.js';
import { keyOf } from '../../../src/store/keys.js';
import { createTokens } from '../../../src/tokens.js';
import { MemoryStore } from '../../memory-store.js';

const tokens = createTokens('o200k');
const big = (i: number) => Array.from({ length: 150 }, (_, k) => `output ${i} line ${k} value`).join('\n');

function transcript(texts: string[], messages: MessageView[] = []): Transcript {
  const outputs = texts.map(
    (text, i): ToolOutput => ({ id: `o${i}`, text, rewritable: true, isError: false, messageIndex: i }),
  );
  return { format: 'anthropic', outputs, messages, write: () => '' };
}

/** A transcript component that replaces every output but the last by a placeholder. */
const placeholder: Component = {
  name: 'ph',
  lossy: true,
  scope: 'transcript',
  summary: '',
  defaults: null,
  parseConfig: () => null,
  run: (outs) =>
    new Map(outs.slice(0, -1).map((o) => [o.id, { kind: 'rewrite', text: 'gone', loss: 'whole' } as const])),
};

/** Pretty-printed JSON, which format (a lossless output component) compacts. */
const pretty = (i: number) => JSON.stringify({ output: i, lines: big(i).split('\n') }, null, 2);

const run = (t: Transcript, stages: Component[], pins: Record<string, Pin>, flushTokens: number) =>
  runPipeline(t, {
    stages: stages.map((component) => ({ component, config: component.defaults })),
    store: new MemoryStore(),
    tokens,
    replay: { pins: new Map(Object.entries(pins)), flushTokens },
  });

describe('the pipeline replaying a session', () => {
  it('sends a pinned output as pinned and runs no output component on it', async () => {
    const t = transcript([pretty(0), pretty(1)]);
    const r = await run(t, [format], { o0: { text: 'as sent before', final: false } }, 0);
    expect(r.rewrites.get('o0')).toBe('as sent before');
    expect(r.rewrites.get('o1')).toBe(JSON.stringify(JSON.parse(pretty(1))));
    expect(r.events.some((e) => e.reason === '1 outputs replayed as sent')).toBe(true);
  });

  it('holds placeholders for sent outputs back until they save a batch, then applies them all', async () => {
    const t = transcript([big(0), big(1), big(2)]);
    const pins = { o0: { text: big(0), final: false }, o1: { text: big(1), final: false } };
    const held = await run(t, [placeholder], pins, 1_000_000);
    expect(held.rewrites.size).toBe(0);
    expect(held.events.filter((e) => e.reason?.startsWith('held back until a batch is due'))).toHaveLength(2);
    const flushed = await run(t, [placeholder], pins, 100);
    expect([...flushed.finals].sort()).toEqual(['o0', 'o1']);
    expect(flushed.rewrites.get('o0')).toBe(
      `gone\n<<cg:${keyOf(big(0))}>> [full output: cg expand ${keyOf(big(0))}]`,
    );
  });

  it("moves a pinned output that carries cg's own marker forward, and never a final one", async () => {
    const t = transcript([big(0), big(1), big(2)]);
    const marked = `${big(0).slice(0, 2000)}\n<<cg:${keyOf(big(0))}>> [full output: cg expand ${keyOf(big(0))}]`;
    const r = await run(
      t,
      [placeholder],
      { o0: { text: marked, final: false }, o1: { text: 'masked', final: true } },
      0,
    );
    expect(r.rewrites.get('o0')).toMatch(/^gone\n<<cg:/);
    expect(r.rewrites.get('o1')).toBe('masked');
    expect([...r.finals].sort()).toEqual(['o0', 'o1']);
  });

  it('validates structural edits: a real block, no second breakpoint, at most four in the body', async () => {
    const text = (t: string, cached = false) => [
      { type: 'text', text: t, ...(cached ? { cache_control: { type: 'ephemeral' } } : {}) },
    ];
    const body = {
      model: 'm',
      messages: [
        { role: 'user', content: text('a') },
        { role: 'assistant', content: 'b' },
        { role: 'user', content: text('c', true) },
        { role: 'user', content: text('d') },
      ],
    };
    const editing = (edits: unknown): Component => ({
      name: 'ed',
      lossy: false,
      scope: 'transcript',
      summary: '',
      defaults: null,
      parseConfig: () => null,
      run: () => new Map(),
      edits: () => {
        if (edits instanceof Error) throw edits;
        return edits as never;
      },
    });
    const t = readTranscript(JSON.stringify(body), 'anthropic', {});
    const all = [0, 1, 2, 3, 7, 0].map((messageIndex) => ({ kind: 'cache_breakpoint', messageIndex }));
    const r = await run(t, [editing(all)], {}, 0);
    expect(r.edits).toEqual([
      { kind: 'cache_breakpoint', messageIndex: 0 },
      { kind: 'cache_breakpoint', messageIndex: 3 },
    ]);
    expect(r.events.filter((e) => e.action === 'skip').map((e) => e.reason)).toEqual([
      'message 1 has no content block for a cache breakpoint',
      'breakpoint already there',
      'message 7 has no content block for a cache breakpoint',
      'breakpoint already there',
    ]);
    const full = await runPipeline(
      { ...t, cacheBreakpoints: 4 },
      {
        stages: [{ component: editing(all), config: null }],
        store: null,
        tokens,
      },
    );
    expect(full.edits).toEqual([]);
    expect((await run(t, [editing(new Error('boom'))], {}, 0)).events[0]).toMatchObject({ action: 'fail' });
  });
});
