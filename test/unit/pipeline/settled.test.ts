/**
 * A run visits only its live slots; the settled ones (pinned to a final placeholder sent earlier)
 * are counted and shown to transcript components in their places without being visited. What a
 * stage sees and reports must be exactly what visiting every slot would give, also after a summary
 * retired some of them mid-run.
 */
import { describe, expect, it } from 'vitest';
import { agentSession } from '../../../bench/proxy-sessions.mjs';
import { type Component, MARKER_SLOT } from '../../../src/component.js';
import { readTranscript } from '../../../src/input/read.js';
import { type Pin, type PipelineEvent, runPipeline } from '../../../src/pipeline/run.js';
import { createTokens } from '../../../src/tokens.js';
import { MemoryStore } from '../../memory-store.js';

interface Seen {
  id: string;
  settled: boolean;
  mayChange: boolean;
}

/** A lossy transcript component that changes nothing and records what it was shown. */
function witness(name: string, seen: Seen[][]): Component {
  return {
    name,
    lossy: true,
    scope: 'transcript',
    summary: name,
    defaults: null,
    parseConfig: () => null,
    run(outputs) {
      seen.push(outputs.map((o) => ({ id: o.id, settled: o.settled === true, mayChange: o.mayChange })));
      return new Map();
    },
  };
}

/** Replaces messages [1, to) by one short summary message. */
function retire(to: number): Component {
  return {
    name: 'retire',
    lossy: true,
    scope: 'transcript',
    summary: 'retire',
    defaults: null,
    parseConfig: () => null,
    run: () => new Map(),
    edits: () => [{ kind: 'replace_messages', from: 1, to, text: `summary ${MARKER_SLOT}` }],
  };
}

function setUp() {
  const body = agentSession(12, { session: 'ffffffff-2222-4333-8444-555555555555' });
  const t = readTranscript(JSON.stringify(body), 'anthropic', {});
  // Every other output was sent earlier as a final placeholder; one more is pinned as sent, not final.
  const pins = new Map<string, Pin>();
  t.outputs.forEach((o, i) => {
    if (i % 2 === 0 && i < 10) pins.set(o.id, { text: `[masked ${i}]`, final: true });
  });
  pins.set(t.outputs[1]!.id, { text: t.outputs[1]!.text, final: false });
  return { t, pins };
}

async function run(stages: Component[]) {
  const { t, pins } = setUp();
  const events: PipelineEvent[] = [];
  const r = await runPipeline(t, {
    stages: stages.map((component) => ({ component, config: null })),
    store: new MemoryStore(),
    tokens: createTokens(),
    onEvent: (e) => events.push(e),
    replay: { pins, flushTokens: 0 },
  });
  const replayed = events.filter((e) => e.output === '*' && /replayed as sent/.test(e.reason ?? ''));
  return { t, pins, r, events, replayed };
}

describe('settled slots', () => {
  it('are shown to every transcript stage in their places, settled and not to change, and counted as replayed', async () => {
    const seen: Seen[][] = [];
    const { t, pins, r, replayed } = await run([witness('a', seen), witness('b', seen)]);
    const expected = t.outputs.map((o) => ({
      id: o.id,
      settled: pins.get(o.id)?.final === true,
      mayChange: pins.get(o.id)?.final !== true,
    }));
    expect(seen).toEqual([expected, expected]);
    expect(replayed.map((e) => [e.component, e.reason])).toEqual([
      ['a', '5 outputs replayed as sent'],
      ['b', '5 outputs replayed as sent'],
    ]);
    for (const [id, pin] of pins) if (pin.final) expect(r.rewrites.get(id)).toBe(pin.text);
    expect([...r.finals].sort()).toEqual(
      [...pins]
        .filter(([, p]) => p.final)
        .map(([id]) => id)
        .sort(),
    );
  });

  it('that a summary retires are neither shown nor counted by the stages after it', async () => {
    const seen: Seen[][] = [];
    const { t } = setUp();
    // Messages [1, to) hold the first four outputs' calls and results (two of them settled).
    const to = t.outputs[4]!.messageIndex - 1;
    const { pins, r, replayed } = await run([witness('before', seen), retire(to), witness('after', seen)]);
    expect(r.edits.map((e) => e.kind)).toEqual(['replace_messages']);
    const left = t.outputs.filter((o) => o.messageIndex >= to);
    expect(seen[1]!.map((s) => s.id)).toEqual(left.map((o) => o.id));
    const settledLeft = left.filter((o) => pins.get(o.id)?.final).length;
    expect(settledLeft).toBeLessThan(5);
    expect(replayed.map((e) => [e.component, e.reason])).toEqual([
      ['before', '5 outputs replayed as sent'],
      // The summary's own stage gates after its edit.
      ['retire', `${settledLeft} outputs replayed as sent`],
      ['after', `${settledLeft} outputs replayed as sent`],
    ]);
    expect([...r.gone].sort()).toEqual(
      t.outputs
        .filter((o) => o.messageIndex < to)
        .map((o) => o.id)
        .sort(),
    );
  });
});
