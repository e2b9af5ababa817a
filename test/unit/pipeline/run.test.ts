import { describe, expect, it } from 'vitest';
import { type Component, MARKER_SLOT, type OutputComponent } from '../../../src/component.js';
import { format } from '../../../src/components/format.js';
import type { ToolOutput, Transcript } from '../../../src/input/transcript.js';
import { type PipelineEvent, runPipeline, type Stage } from '../../../src/pipeline/run.js';
import { keyOf } from '../../../src/store/keys.js';
import { createTokens } from '../../../src/tokens.js';
import { MemoryStore } from '../../memory-store.js';

function transcript(texts: Array<string | Partial<ToolOutput>>): Transcript {
  const outputs = texts.map((t, i): ToolOutput => {
    const base: ToolOutput = { id: `t${i}`, text: '', rewritable: true, isError: false, messageIndex: i };
    return typeof t === 'string' ? { ...base, text: t } : { ...base, ...t };
  });
  return {
    format: 'openai',
    outputs,
    messages: [],
    write: (rw) => JSON.stringify(outputs.map((o) => rw.get(o.id) ?? o.text)),
  };
}

function fake(
  name: string,
  lossy: boolean,
  run: OutputComponent<null>['run'],
  extra: Partial<OutputComponent<null>> = {},
): Component {
  return {
    name,
    lossy,
    summary: name,
    scope: 'output',
    defaults: null,
    parseConfig: () => null,
    run,
    ...extra,
  };
}

const stage = (component: Component): Stage => ({ component, config: component.defaults });
const big = Array.from({ length: 400 }, (_, i) => `line ${i} of a long and repetitive build log`).join('\n');
const firstLine = fake('first_line', true, (o) => ({
  kind: 'rewrite',
  text: `${o.text.split('\n')[0]}\n${MARKER_SLOT}`,
  loss: 'whole',
}));

async function run(t: Transcript, stages: Component[], store: MemoryStore | null = new MemoryStore()) {
  const events: PipelineEvent[] = [];
  const result = await runPipeline(t, {
    stages: stages.map(stage),
    store,
    tokens: createTokens(),
    onEvent: (e) => events.push(e),
  });
  return { ...result, events, store };
}

describe('pipeline', () => {
  it('stashes the original of a lossy rewrite and writes the marker with its hint in the slot', async () => {
    const { rewrites, store } = await run(transcript([big]), [firstLine]);
    const key = keyOf(big);
    expect(rewrites.get('t0')).toBe(
      `line 0 of a long and repetitive build log\n<<cg:${key}>> [full output: cg expand ${key}]`,
    );
    expect(store!.entries.get(key)?.toString()).toBe(big);
  });

  it('appends the marker on its own line when the component leaves no slot', async () => {
    const c = fake('cut', true, () => ({
      kind: 'rewrite',
      text: 'short\n',
      loss: 'tail',
      expandArgs: '--lines 2-',
    }));
    const { rewrites } = await run(transcript([big]), [c]);
    const key = keyOf(big);
    expect(rewrites.get('t0')).toBe(`short\n<<cg:${key}>> [full output: cg expand ${key} --lines 2-]\n`);
  });

  it('keys the stash on the tool output as it arrived, even after a lossless rewrite', async () => {
    const json = `${big}\n${JSON.stringify({ a: [1, 2, 3] }, null, 2)}\n`;
    const { rewrites, store, events } = await run(transcript([json]), [format, firstLine]);
    expect(events[0]).toMatchObject({ component: 'format', action: 'rewrite' });
    expect(rewrites.get('t0')).toContain(`<<cg:${keyOf(json)}>>`);
    expect(store!.entries.get(keyOf(json))?.toString()).toBe(json);
  });

  it('never lets a lossy component touch an output that already carries a marker', async () => {
    const marked = `${big}\n<<cg:0123456789abcdef>>`;
    const store = new MemoryStore();
    store.entries.set('0123456789abcdef', Buffer.from('an earlier original'));
    const { rewrites, events } = await run(transcript([marked]), [firstLine], store);
    expect(rewrites.size).toBe(0);
    expect(events[0]).toMatchObject({ action: 'skip', reason: 'already has a marker' });
  });

  it('treats marker-shaped text no store entry stands behind as ordinary text', async () => {
    // A diff of code that mentions markers, a log quoting one from a store since cleared.
    const quoted = `${big}\nexpect(out).toBe('<<cg:0123456789abcdef>>');`;
    const store = new MemoryStore();
    const { rewrites } = await run(
      transcript([quoted, `${big}\n<<cg:fedcba9876543210>>`]),
      [firstLine],
      store,
    );
    expect([...rewrites.keys()]).toEqual(['t0', 't1']);
    expect(rewrites.get('t0')).toContain(`<<cg:${keyOf(quoted)}>>`);
    expect(store.entries.get(keyOf(quoted))?.toString()).toBe(quoted);
    // With one of its keys in the store, the output is kept; the store was asked once per key.
    const held = new MemoryStore();
    held.entries.set('fedcba9876543210', Buffer.from('x'));
    let asked = 0;
    const has = held.has.bind(held);
    held.has = async (k: string) => {
      asked++;
      return has(k);
    };
    const twice = `${big}\n<<cg:fedcba9876543210>> and <<cg:0123456789abcdef>> <<cg:fedcba9876543210>>`;
    const r = await run(transcript([twice, twice, quoted]), [firstLine], held);
    expect([...r.rewrites.keys()]).toEqual(['t2']);
    expect(asked).toBe(2);
  });

  it('keeps closed a marker the store cannot vouch for either way (no has)', async () => {
    const store = new MemoryStore();
    (store as { has?: unknown }).has = undefined;
    const { rewrites } = await run(transcript([`${big}\n<<cg:0123456789abcdef>>`]), [firstLine], store);
    expect(rewrites.size).toBe(0);
  });

  it('leaves tool errors, non-rewritable content and cg expand output verbatim', async () => {
    const t = transcript([
      { text: big, isError: true },
      { text: big, rewritable: false },
      { text: big, command: 'cg expand 0123456789abcdef' },
      { text: big, toolName: 'cg_expand' },
    ]);
    const { rewrites, events } = await run(t, [firstLine]);
    expect(rewrites.size).toBe(0);
    expect(events.map((e) => e.reason)).toEqual([
      'tool error',
      'verbatim content',
      'cg expand output',
      'cg expand output',
    ]);
  });

  it('reverts a rewrite that is not strictly fewer tokens, marker included, and stashes nothing', async () => {
    const same = fake('same', true, (o) => ({ kind: 'rewrite', text: o.text.slice(0, -5), loss: 'tail' }));
    const { rewrites, events, store } = await run(transcript([big]), [same]);
    expect(rewrites.size).toBe(0);
    expect(events[0]).toMatchObject({ action: 'revert', reason: 'not fewer tokens than its input' });
    expect(store!.puts).toBe(0);
  });

  it('reverts a component that throws and still runs the next one', async () => {
    const boom = fake('boom', true, () => {
      throw new Error('kaput');
    });
    const { rewrites, events } = await run(transcript([big]), [boom, firstLine]);
    expect(events[0]).toMatchObject({ component: 'boom', action: 'fail', reason: 'threw: kaput' });
    expect(rewrites.get('t0')).toContain('<<cg:');
  });

  it('reverts a component that times out', async () => {
    const slow = fake('slow', false, () => new Promise(() => {}));
    const t = transcript([big]);
    const events: PipelineEvent[] = [];
    const r = await runPipeline(t, {
      stages: [stage(slow)],
      store: null,
      tokens: createTokens(),
      timeoutMs: 20,
      onEvent: (e) => events.push(e),
    });
    expect(r.rewrites.size).toBe(0);
    expect(events[0]?.reason).toMatch(/timed out after 20 ms/);
  });

  it('rejects loss from a lossless component, a marker written by a component, and two marker slots', async () => {
    const liar = fake('liar', false, () => ({ kind: 'rewrite', text: 'x', loss: 'whole' }));
    const forger = fake('forger', true, () => ({
      kind: 'rewrite',
      text: '<<cg:0123456789abcdef>>',
      loss: 'whole',
    }));
    const twice = fake('twice', true, () => ({
      kind: 'rewrite',
      text: `${MARKER_SLOT}${MARKER_SLOT}`,
      loss: 'whole',
    }));
    const { rewrites, events } = await run(transcript([big]), [liar, forger, twice]);
    expect(rewrites.size).toBe(0);
    expect(events.map((e) => e.action)).toEqual(['fail', 'fail', 'fail']);
  });

  it('lets a lossless rewrite keep markers its input already carried (text about cg itself)', async () => {
    const doc = `docs mention <<cg:0123456789abcdef>> here\n${JSON.stringify({ rows: big.split('\n') }, null, 2)}\n`;
    const { rewrites, events } = await run(transcript([doc]), [format]);
    expect(events[0]).toMatchObject({ action: 'rewrite' });
    expect(rewrites.get('t0')).toContain('<<cg:0123456789abcdef>>');
  });

  it('skips lossy components without a store and still runs lossless ones', async () => {
    const json = JSON.stringify({ log: big.split('\n') }, null, 2);
    const { rewrites, events } = await run(transcript([json]), [format, firstLine], null);
    expect(rewrites.get('t0')).toBe(JSON.stringify({ log: big.split('\n') }));
    expect(events.find((e) => e.component === 'first_line')).toMatchObject({ output: '*', action: 'skip' });
  });

  it('reverts a lossless rewrite its proof cannot back, whatever the component claims', async () => {
    const json = `note:\n${JSON.stringify({ log: big.split('\n') }, null, 2)}\n`;
    const claims = [
      // No proof at all.
      fake('bare', false, (o) => ({ kind: 'rewrite', text: o.text.replaceAll('  ', ' '), loss: 'none' })),
      // A JSON proof for a change outside the document.
      fake('outside', false, (o) => ({
        kind: 'rewrite',
        text: o.text.replace('note:', 'n:'),
        loss: 'none',
        proof: 'json',
      })),
      // A JSON proof for a document whose value changed.
      fake('value', false, (o) => ({
        kind: 'rewrite',
        text: o.text.replace('line 7 ', 'line 8 '),
        loss: 'none',
        proof: 'json',
      })),
      // A TOON proof for text that is not TOON of the input.
      fake('toon', false, () => ({ kind: 'rewrite', text: 'log[1]: x', loss: 'none', proof: 'toon' })),
    ];
    const { rewrites, events } = await run(transcript([json]), claims);
    expect(rewrites.size).toBe(0);
    expect(events.map((e) => [e.component, e.action, e.reason])).toEqual([
      ['bare', 'revert', 'not proven lossless: claims no loss without a proof'],
      ['outside', 'revert', 'not proven lossless: changed text outside a JSON document'],
      ['value', 'revert', 'not proven lossless: changed the value of a JSON document'],
      ['toon', 'revert', 'not proven lossless: the input is not one JSON document'],
    ]);
  });

  it('skips lossy components when the store is not writable, and reverts when a stash fails', async () => {
    const ro = new MemoryStore();
    ro.canWrite = false;
    const a = await run(transcript([big]), [firstLine], ro);
    expect(a.rewrites.size).toBe(0);
    expect(a.events[0]?.reason).toMatch(/store not writable/);
    const full = new MemoryStore();
    full.failPuts = true;
    const b = await run(transcript([big]), [firstLine], full);
    expect(b.rewrites.size).toBe(0);
    expect(b.events[0]).toMatchObject({ action: 'revert' });
    expect(b.events[0]?.reason).toMatch(/could not stash the original \(error: disk full\)/);
  });

  it('is deterministic: the same input gives the same rewrites', async () => {
    const t = transcript([big, `${big}\nmore`, 'small']);
    const a = await run(t, [firstLine]);
    const b = await run(t, [firstLine]);
    expect([...a.rewrites]).toEqual([...b.rewrites]);
  });

  it('gates the outcomes of a transcript-scope component per output', async () => {
    const all: Component = {
      name: 'all',
      lossy: true,
      summary: 'all',
      scope: 'transcript',
      defaults: null,
      parseConfig: () => null,
      run: (outs) =>
        new Map(outs.map((o) => [o.id, { kind: 'rewrite', text: 'gone', loss: 'whole' } as const])),
    };
    const { rewrites } = await run(transcript([big, { text: big, isError: true }]), [all]);
    expect([...rewrites.keys()]).toEqual(['t0']);
    expect(rewrites.get('t0')).toBe(`gone\n<<cg:${keyOf(big)}>> [full output: cg expand ${keyOf(big)}]`);
  });
});

describe('pipeline, components whose runs overlap', () => {
  it('runs up to concurrency() outputs at once and still settles them in document order', async () => {
    let inFlight = 0;
    let most = 0;
    const slowFirst = fake(
      'slow_first',
      true,
      async (o) => {
        inFlight++;
        most = Math.max(most, inFlight);
        // The first output finishes last.
        await new Promise((r) => setTimeout(r, o.id === 't0' ? 60 : 5));
        inFlight--;
        return { kind: 'rewrite', text: `${o.id}\n${MARKER_SLOT}`, loss: 'whole' };
      },
      { concurrency: () => 3 },
    );
    const r = await run(transcript([big, `${big}!`, `${big}?`, `${big}.`, `${big},`]), [slowFirst]);
    expect(most).toBe(3);
    expect(r.events.filter((e) => e.action === 'rewrite').map((e) => e.output)).toEqual([
      't0',
      't1',
      't2',
      't3',
      't4',
    ]);
    expect(r.rewrites.size).toBe(5);
  });

  it('treats a concurrency() that throws or returns nonsense as one at a time', async () => {
    for (const concurrency of [
      () => Number.NaN,
      () => -2,
      () => {
        throw new Error('x');
      },
    ]) {
      let inFlight = 0;
      let most = 0;
      const c = fake(
        'odd',
        true,
        async (o) => {
          inFlight++;
          most = Math.max(most, inFlight);
          await new Promise((r) => setTimeout(r, 2));
          inFlight--;
          return { kind: 'rewrite', text: `${o.id}\n${MARKER_SLOT}`, loss: 'whole' };
        },
        { concurrency },
      );
      await run(transcript([big, `${big}!`, `${big}?`]), [c]);
      expect(most).toBe(1);
    }
  });
});

describe('pipeline deadlines', () => {
  const slow = (deadlineMs?: () => number) =>
    fake(
      'slow',
      true,
      async (o) => {
        await new Promise((r) => setTimeout(r, 150));
        return { kind: 'rewrite', text: `${o.text.split('\n')[0]}\n${MARKER_SLOT}`, loss: 'whole' };
      },
      deadlineMs ? { deadlineMs } : {},
    );
  const runWith = (c: Component) =>
    runPipeline(transcript([big]), {
      stages: [stage(c)],
      store: new MemoryStore(),
      tokens: createTokens(),
      timeoutMs: 50,
    });

  it('gives up on a run past its deadline, and reverts it alone', async () => {
    const r = await runWith(slow());
    expect(r.rewrites.size).toBe(0);
    expect(r.events.find((e) => e.component === 'slow')?.reason).toBe('timed out after 50 ms');
  });

  it('waits longer for a component that says it needs longer (a model call)', async () => {
    expect((await runWith(slow(() => 5000))).rewrites.size).toBe(1);
    expect((await runWith(slow(() => Number.NaN))).rewrites.size).toBe(0);
  });
});
