// The proxy's decisions count tokens exactly wherever byte bounds cannot decide; the stats record
// of the request is handed those counts (CompactedRequest.known), so no text the pipeline counted
// is counted again by whoever settles the record (issue 16 item 5: a first sight's stats).
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterEach, describe, expect, it } from 'vitest';
import { agentSession } from '../../bench/proxy-sessions.mjs';
import { anthropicStream, type FakeUpstream, startFakeUpstream } from './fake-upstream.js';
import { send, startTestProxy, type TestProxy } from './harness.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

describe('cg proxy: the counts its decisions made', () => {
  it('hands the stats record the exact count of every text its decisions counted, and no other', async () => {
    const up: FakeUpstream = await startFakeUpstream(() => anthropicStream({ text: 'done' }));
    open.push(up);
    const p: TestProxy = await startTestProxy({ anthropic: up.url });
    open.push(p);
    const res = await send(p.url, '/v1/messages', JSON.stringify(agentSession(120)), { 'x-api-key': 'k' });
    expect(res.status).toBe(200);
    const c = p.compacted[0]!;
    expect(c.rewritten).toBe(true);
    const texts = new Set(c.events.flatMap((e) => [e.before, e.after]).filter((t) => t !== undefined));
    const known = [...texts].flatMap((t) => {
      const n = c.known?.(t);
      return n === undefined ? [] : [[t, n] as const];
    });
    expect(known.length).toBeGreaterThan(0);
    for (const [t, n] of known) expect(n).toBe(countTokens(t));
    expect(known.length).toBeLessThan(texts.size); // only what was counted: nothing counted for this
  });
});
