/**
 * The corpus's Claude Code sessions replayed turn by turn through `cg proxy` (bench/transcripts.mjs's
 * loop: the request of turn k holds the messages up to the k-th user message), with what the fake
 * upstream receives as the output: over all sessions, at least 95 % of turns keep every earlier
 * message byte-identical (cache_control aside: breakpoints move each turn by design).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replaySession, sessionFiles } from '../../bench/transcripts.mjs';
import { createTokens } from '../../src/tokens.js';
import { HAS_CORPUS } from '../helpers.js';
import { type FakeUpstream, startFakeUpstream } from './fake-upstream.js';
import { send, startTestProxy, type TestProxy } from './harness.js';

describe.skipIf(!HAS_CORPUS)('corpus sessions through cg proxy', () => {
  let up: FakeUpstream;
  let proxy: TestProxy;
  beforeAll(async () => {
    up = await startFakeUpstream(() => ({ body: '{}' }));
    proxy = await startTestProxy({ anthropic: up.url });
  });
  afterAll(async () => {
    await proxy.close();
    await up.close();
  });

  it('keeps every earlier message identical on at least 95 % of turns', async () => {
    const tokens = createTokens('o200k');
    let pairs = 0;
    let stable = 0;
    const lines: string[] = [];
    for (const file of sessionFiles()) {
      const body = JSON.parse(readFileSync(file, 'utf8'));
      const r = await replaySession(body, {
        run: async (request) => {
          await send(proxy.url, '/v1/messages', request, { 'x-api-key': 'k' });
          return up.requests.at(-1)!.body.toString('utf8');
        },
        count: (text) => tokens.count(text),
      });
      pairs += r.pairs;
      stable += r.stable;
      lines.push(
        `${file.split('/').pop()}: ${r.stable}/${r.pairs} stable, tool tokens ${r.toolIn} → ${r.toolOut}`,
      );
    }
    console.log(lines.join('\n'));
    expect(pairs).toBeGreaterThan(100);
    expect(stable / pairs).toBeGreaterThanOrEqual(0.95);
  });
});
