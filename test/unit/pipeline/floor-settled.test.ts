/**
 * A pinned output no stage can move — sent as it came and under every lossy transcript stage's
 * floor, or any pinned output when no stage moves pinned ones — is settled for the run
 * (src/pipeline/settled.ts): not visited, counted as replayed, shown to transcript components as
 * not to change but not as `settled` (it still counts as a later run, an earlier copy, …). What a
 * run decides must be exactly what it decides when every such output is visited.
 */
import { describe, expect, it } from 'vitest';
import { agentSession } from '../../../bench/proxy-sessions.mjs';
import type { Component, TranscriptComponent } from '../../../src/component.js';
import { dedup } from '../../../src/components/dedup.js';
import { extract } from '../../../src/components/extract.js';
import { failed_run } from '../../../src/components/failed_run.js';
import { mask } from '../../../src/components/mask.js';
import { readTranscript } from '../../../src/input/read.js';
import type { Transcript } from '../../../src/input/transcript.js';
import { type Pin, type PipelineEvent, runPipeline } from '../../../src/pipeline/run.js';
import { createTokens } from '../../../src/tokens.js';
import { seededRandom } from '../../helpers.js';
import { MemoryStore } from '../../memory-store.js';

interface Seen {
  id: string;
  settled: boolean;
  mayChange: boolean;
}

/** A lossy transcript component that changes nothing and records what it was shown. */
function witness(seen: Seen[][], floor?: number): Component {
  return {
    name: 'witness',
    lossy: true,
    scope: 'transcript',
    summary: 'witness',
    defaults: null,
    parseConfig: () => null,
    ...(floor !== undefined ? { floorTokens: () => floor } : {}),
    run(outputs) {
      seen.push(outputs.map((o) => ({ id: o.id, settled: o.settled === true, mayChange: o.mayChange })));
      return new Map();
    },
  };
}

/** The same component without its floor: every pinned output it could see is visited. */
function floorless(c: Component): Component {
  const { floorTokens: _, ...rest } = c as TranscriptComponent;
  return rest as Component;
}

async function run(t: Transcript, pins: Map<string, Pin>, stages: [Component, unknown][]) {
  const events: PipelineEvent[] = [];
  const tokens = createTokens();
  const r = await runPipeline(t, {
    stages: stages.map(([component, raw]) => ({ component, config: component.parseConfig(raw) })),
    store: new MemoryStore(),
    tokens,
    onEvent: (e) => events.push(e),
    replay: { pins, flushTokens: 0 },
  });
  const replayed = events.filter((e) => e.output === '*' && /replayed as sent/.test(e.reason ?? ''));
  return { r, events, replayed, tokens };
}

/** An Anthropic body of Bash calls and their results, in order. */
function bash(results: { command: string; text: string }[]): Transcript {
  const messages: unknown[] = [{ role: 'user', content: 'fix the tests' }];
  results.forEach(({ command, text }, i) => {
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: { command } }],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: text }],
    });
  });
  return readTranscript(JSON.stringify({ model: 'm', max_tokens: 10, messages }), 'anthropic', {});
}

describe('pinned outputs under every floor', () => {
  it('are not shown as ones to change, nor as settled, and are counted as replayed', async () => {
    const t = readTranscript(JSON.stringify(agentSession(12)), 'anthropic', {});
    const tokens = createTokens();
    const pins = new Map<string, Pin>();
    const counts: number[] = [];
    for (const [i, o] of t.outputs.entries()) {
      counts.push(await tokens.count(o.text));
      if (i === 3) pins.set(o.id, { text: 'short rewrite', final: false, rewritten: true });
      else if (i < 11) pins.set(o.id, { text: o.text, final: false, rewritten: false });
    }
    const floor = [...counts].sort((a, b) => a - b)[6]!;
    const seen: Seen[][] = [];
    const { replayed } = await run(t, pins, [[witness(seen, floor), null]]);
    const under = t.outputs.filter((_o, i) => i < 11 && i !== 3 && counts[i]! < floor);
    expect(under.length).toBeGreaterThan(2);
    expect(under.length).toBeLessThan(10);
    expect(seen).toEqual([
      t.outputs.map((o) => ({ id: o.id, settled: false, mayChange: !under.includes(o) })),
    ]);
    expect(replayed.map((e) => e.reason)).toEqual([`${under.length} outputs replayed as sent`]);

    // Without a floor every pinned output not final may still move.
    const open: Seen[][] = [];
    await run(t, pins, [[witness(open), null]]);
    expect(open[0]!.every((s) => s.mayChange)).toBe(true);
  });

  it('still count as the later run that supersedes an earlier failed one', async () => {
    const failing = [
      ...Array.from({ length: 40 }, (_, k) => `  ✗ case ${k} failed: expected ${k} got ${k + 1}`),
      'Tests: 40 failed, 40 total',
    ].join('\n');
    const t = bash([
      { command: 'npm test', text: failing },
      { command: 'npm test', text: 'Tests: 3 passed, 3 total' },
      { command: 'ls', text: 'a\nb' },
    ]);
    const pins = new Map<string, Pin>(
      t.outputs.slice(0, 2).map((o) => [o.id, { text: o.text, final: false, rewritten: false }]),
    );
    const stages: [Component, unknown][] = [
      [dedup, {}],
      [failed_run, {}],
      [mask, { keep_recent: 10 }],
    ];
    const { r, replayed } = await run(t, pins, stages);
    expect(r.rewrites.get('toolu_0')).toMatch(/^\[superseded by a later run\] <<cg:/);
    expect(r.rewrites.has('toolu_1')).toBe(false);
    // The small later run is replayed unvisited by every stage; the earlier one only by failed_run's stage on.
    expect(replayed.map((e) => [e.component, e.reason])).toEqual([
      ['dedup', '1 outputs replayed as sent'],
      ['failed_run', '1 outputs replayed as sent'],
      ['mask', '2 outputs replayed as sent'],
    ]);
    const visited = await run(
      t,
      pins,
      stages.map(([c, raw]) => [floorless(c), raw]),
    );
    expect(visited.r.rewrites).toEqual(r.rewrites);
  });

  it('decide nothing differently from a run that visits them, turn after turn', async () => {
    const rand = seededRandom(23);
    const stages: [Component, unknown][] = [
      [dedup, {}],
      [failed_run, {}],
      [mask, { keep_recent: 6 }],
      [extract, {}],
    ];
    for (let round = 0; round < 6; round++) {
      const t = readTranscript(JSON.stringify(agentSession(60, { seed: round + 1 })), 'anthropic', {});
      // An earlier turn sent most outputs: some as they came, some as final placeholders.
      const pins = new Map<string, Pin>();
      for (const o of t.outputs.slice(0, 50)) {
        const p = rand();
        if (p < 0.6) pins.set(o.id, { text: o.text, final: false, rewritten: false });
        else if (p < 0.8)
          pins.set(o.id, { text: '[older tool output masked] <<cg:0123456789ab>>', final: true });
      }
      const settled = await run(t, pins, stages);
      const visited = await run(
        t,
        pins,
        stages.map(([c, raw]) => [floorless(c), raw]),
      );
      expect(settled.r.rewrites).toEqual(visited.r.rewrites);
      expect(settled.r.finals).toEqual(visited.r.finals);
      expect(settled.r.rewrites.size).toBeGreaterThan(0);
      // Some were settled by size: fewer visits, more replayed.
      const count = (x: typeof settled) =>
        x.replayed.reduce((n, e) => n + Number(/^(\d+)/.exec(e.reason ?? '')![1]), 0);
      expect(count(settled)).toBeGreaterThan(count(visited));
    }
  });

  it('with no stage that moves pinned outputs, every pinned output is settled', async () => {
    const t = readTranscript(JSON.stringify(agentSession(10)), 'anthropic', {});
    const pins = new Map<string, Pin>(
      t.outputs.slice(0, 8).map((o, i) => [o.id, { text: i % 2 ? o.text : `kept ${i}`, final: false }]),
    );
    const seen: Seen[][] = [];
    const lossless: Component = { ...(witness(seen) as TranscriptComponent), lossy: false };
    const { r, replayed } = await run(t, pins, [
      [lossless, null],
      [extract, {}],
    ]);
    expect(seen[0]!.map((s) => s.mayChange)).toEqual(t.outputs.map((_, i) => i >= 8));
    expect(replayed.map((e) => e.reason)).toEqual([
      '8 outputs replayed as sent',
      '8 outputs replayed as sent',
    ]);
    for (const [id, pin] of pins) if (pin.text.startsWith('kept')) expect(r.rewrites.get(id)).toBe(pin.text);
  });
});
