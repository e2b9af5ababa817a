/**
 * The gates own "may this output change, and how?": hostile components that ignore them change
 * nothing the gates keep, and the tool-error rules hold whatever a component would like to do.
 */
import { describe, expect, it } from 'vitest';
import {
  type Component,
  MARKER_SLOT,
  type OutputComponent,
  type TranscriptComponent,
} from '../../../src/component.js';
import type { CompiledFilter } from '../../../src/dsl/types.js';
import type { ToolOutput, Transcript } from '../../../src/input/transcript.js';
import { type PipelineEvent, runPipeline } from '../../../src/pipeline/run.js';
import { createTokens } from '../../../src/tokens.js';
import { MemoryStore } from '../../memory-store.js';

const big = (tag: string) =>
  Array.from({ length: 300 }, (_, i) => `${tag} line ${i} of some long output`).join('\n');

function transcript(outputs: Partial<ToolOutput>[]): Transcript {
  const full = outputs.map(
    (o, i): ToolOutput => ({
      id: `t${i}`,
      text: big(`t${i}`),
      rewritable: true,
      isError: false,
      messageIndex: i,
      ...o,
    }),
  );
  return { format: 'anthropic', outputs: full, messages: [], write: () => '' };
}

/** Proposes a placeholder for every output it is given, allowed or not. */
const greedy: Component = {
  name: 'greedy',
  lossy: true,
  scope: 'transcript',
  summary: 'greedy',
  defaults: null,
  parseConfig: () => null,
  run: (outs) =>
    new Map(
      outs.map((o) => [o.id, { kind: 'rewrite', text: `gone ${MARKER_SLOT}`, loss: 'whole' } as const]),
    ),
};

/** A store holding an entry under MARKED, so `<<cg:MARKED>>` in a text is a real marker. */
const MARKED = '0123456789abcdef';
function storeWithMarked(): MemoryStore {
  const s = new MemoryStore();
  s.entries.set(MARKED, Buffer.from('an earlier original'));
  return s;
}

async function run(t: Transcript, stages: Component[], pins?: Map<string, { text: string; final: boolean }>) {
  const events: PipelineEvent[] = [];
  const r = await runPipeline(t, {
    stages: stages.map((component) => ({ component, config: component.defaults })),
    store: storeWithMarked(),
    tokens: createTokens(),
    onEvent: (e) => events.push(e),
    ...(pins ? { replay: { pins, flushTokens: 0 } } : {}),
  });
  return { ...r, events };
}

describe('the gates', () => {
  it('a hostile transcript component returning outcomes for ineligible outputs changes nothing the gates keep', async () => {
    const t = transcript([
      {}, // t0: the only output it may change
      { isError: true, text: 'short error' }, // t1
      { rewritable: false }, // t2
      { command: 'cg expand 0123456789abcdef' }, // t3
      { text: `${big('t4')}\n<<cg:0123456789abcdef>>` }, // t4
      { toolName: 'cg_expand' }, // t5
      { isError: true, command: 'pytest' }, // t6: the newest run of pytest
      {}, // t7: pinned as final
    ]);
    const { rewrites, events } = await run(
      t,
      [greedy],
      new Map([['t7', { text: 'masked before', final: true }]]),
    );
    expect([...rewrites.keys()]).toEqual(['t0', 't7']);
    expect(rewrites.get('t0')).toMatch(/^gone <<cg:/);
    expect(rewrites.get('t7')).toBe('masked before');
    expect(events.filter((e) => e.action === 'skip').map((e) => [e.output, e.reason])).toEqual([
      ['t1', 'tool error'],
      ['t2', 'verbatim content'],
      ['t3', 'cg expand output'],
      ['t4', 'already has a marker'],
      ['t5', 'cg expand output'],
      ['t6', 'tool error'],
      ['*', '1 outputs replayed as sent'],
    ]);
  });

  it('tells a transcript component which outputs it may change', async () => {
    let seen: [string, boolean][] = [];
    const spy: TranscriptComponent<null> = {
      ...(greedy as TranscriptComponent<null>),
      name: 'spy',
      run: (outs) => {
        seen = outs.map((o) => [o.id, o.mayChange]);
        return new Map();
      },
    };
    await run(transcript([{}, { isError: true }, { rewritable: false }]), [spy]);
    expect(seen).toEqual([
      ['t0', true],
      ['t1', false],
      ['t2', false],
    ]);
  });

  it('never calls an output component on an output the gates keep, nor shows it the gate inputs', async () => {
    const calls: Record<string, unknown>[] = [];
    const probe: OutputComponent<null> = {
      name: 'probe',
      lossy: true,
      summary: 'probe',
      scope: 'output',
      defaults: null,
      parseConfig: () => null,
      run: (o) => {
        calls.push({ ...o });
        return { kind: 'skip', gate: 'looked' };
      },
    };
    await run(
      transcript([{}, { isError: true }, { rewritable: false }, { text: '<<cg:0123456789abcdef>>' }]),
      [probe],
    );
    expect(calls.map((c) => c.id)).toEqual(['t0']);
    expect(Object.keys(calls[0]!).sort()).toEqual(['id', 'messageIndex', 'text']);
  });

  it('lets a transcript component fold a superseded failing run, and keeps the newest run verbatim', async () => {
    const t = transcript([
      { isError: true, command: 'pytest -q' },
      { isError: true, command: 'pytest  -q' },
      { isError: true, command: 'make' },
    ]);
    const { rewrites } = await run(t, [greedy]);
    expect([...rewrites.keys()]).toEqual(['t0']);
  });

  it('keeps a short error verbatim even once a later run superseded it', async () => {
    const t = transcript([
      { isError: true, command: 'pytest', text: 'E   assert 2 == 3\n1 failed' },
      { isError: true, command: 'pytest' },
    ]);
    const { rewrites, events } = await run(t, [greedy]);
    expect(rewrites.size).toBe(0);
    expect(events.map((e) => e.reason)).toEqual(['tool error', 'tool error']);
  });

  describe('a large tool error', () => {
    const failing = [
      '============================= test session starts ==============================',
      ...Array.from({ length: 200 }, (_, i) => `tests/test_m.py::test_${i} PASSED`),
      'FAILED tests/test_m.py::test_7 - AssertionError: assert 1 == 2',
      '=================== 1 failed, 199 passed in 0.40s ===================',
    ].join('\n');
    const failureLines = failing.split('\n').filter((l) => /FAILED|failed/.test(l));
    const filter = (name: string, tests: CompiledFilter['tests'], keep: RegExp): CompiledFilter => ({
      name,
      description: name,
      priority: 0,
      sourceKind: 'builtin',
      source: `${name}.yaml`,
      matches: () => true,
      needsRegex: () => true,
      run: (text) => ({
        text: text
          .split('\n')
          .filter((l) => keep.test(l))
          .join('\n'),
        loss: 'whole',
      }),
      tests,
      yaml: '',
    });
    const provenTests = [
      { name: 'fails', input: 'a\nFAILED x - boom\n1 failed', expected: 'FAILED x - boom\n1 failed' },
    ];
    const viaFilter: OutputComponent<null> = {
      name: 'via_filter',
      lossy: true,
      summary: 'via_filter',
      scope: 'output',
      defaults: null,
      parseConfig: () => null,
      usesFilters: true,
      async run(o, _cfg, ctx) {
        const f = await ctx.filters?.select(o.command, o.text);
        if (!f) return { kind: 'skip', gate: 'no filter matches' };
        return { kind: 'rewrite', text: f.run(o.text).text, loss: 'whole' };
      },
    };
    const runWith = async (filters: CompiledFilter[], stages: Component[] = [viaFilter]) => {
      const events: PipelineEvent[] = [];
      const r = await runPipeline(transcript([{ isError: true, command: 'pytest', text: failing }]), {
        stages: stages.map((component) => ({ component, config: component.defaults })),
        store: new MemoryStore(),
        tokens: createTokens(),
        filters: { select: async () => filters[0] },
        onEvent: (e) => events.push(e),
      });
      return { ...r, events };
    };

    it('may be shortened through a filter whose inline tests prove it keeps every failure line', async () => {
      const { rewrites } = await runWith([filter('proven', provenTests, /FAILED|failed/)]);
      const text = rewrites.get('t0')!;
      for (const l of failureLines) expect(text).toContain(l);
      expect(text).not.toContain('PASSED');
    });

    it('is left alone by a filter its tests do not prove', async () => {
      const unproven = filter('unproven', [{ name: 'ok', input: 'a\nb', expected: 'a' }], /FAILED|failed/);
      const { rewrites, events } = await runWith([unproven]);
      expect(rewrites.size).toBe(0);
      expect(events[0]).toMatchObject({ action: 'skip', reason: 'no filter matches' });
    });

    it('reverts a rewrite that lost a failure line, whatever the filter claimed', async () => {
      const liar = filter('liar', provenTests, /PASSED/);
      liar.run = (text) =>
        text.includes('boom')
          ? { text: 'FAILED x - boom\n1 failed', loss: 'whole' }
          : { text: 'tests/test_m.py::test_1 PASSED', loss: 'whole' };
      const { rewrites, events } = await runWith([liar]);
      expect(rewrites.size).toBe(0);
      expect(events[0]?.action).toBe('revert');
      expect(events[0]?.reason).toMatch(/^drops 2 failure line\(s\) of a tool error/);
    });

    it('stays verbatim for components that do not work through filters', async () => {
      const cut: OutputComponent<null> = {
        ...viaFilter,
        name: 'cut',
        run: () => ({ kind: 'rewrite', text: 'x', loss: 'whole' }),
      };
      delete (cut as { usesFilters?: true }).usesFilters;
      const { rewrites, events } = await runWith([], [cut]);
      expect(rewrites.size).toBe(0);
      expect(events[0]).toMatchObject({ action: 'skip', reason: 'tool error' });
    });
  });
});
