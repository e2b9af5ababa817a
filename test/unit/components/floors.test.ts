/**
 * A transcript component's floor (floorTokens) is a promise the pipeline builds on: an output under
 * it is never rewritten, whatever the rest of the transcript holds (src/pipeline/settled.ts settles
 * such outputs of a replayed session without showing them as ones to change). Checked here against
 * each component's own run on random transcripts where every output may change, with the defaults
 * and with configs that make the component act on almost everything else.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Candidate, TranscriptComponent } from '../../../src/component.js';
import { dedup } from '../../../src/components/dedup.js';
import { failed_run } from '../../../src/components/failed_run.js';
import { mask } from '../../../src/components/mask.js';
import { phi_evict } from '../../../src/components/phi_evict.js';
import { summarize } from '../../../src/components/summarize.js';
import { context } from '../../helpers.js';

const ctx = context({ format: 'anthropic' });

const LINES = [
  '============================= test session starts ==============================',
  'FAILED tests/test_m.py::test_3 - AssertionError: assert 1 == 2',
  '=== 3 failed, 51 passed in 0.40s ===',
  'src/app.ts:12:5 - error TS2322: Type string is not assignable to type number.',
  '  ✓ case 4 (12 ms)',
  'npm ERR! code ELIFECYCLE',
  'export function f(x: number) { return x * 2; }',
  'ok',
];
const COMMANDS = ['npm test', 'pytest -q', 'cargo build', 'ls -la'];

/** An output of 1 to 40 lines drawn from LINES: small ones under every floor, large ones over. */
const output = fc.record({
  lines: fc.array(fc.integer({ min: 0, max: LINES.length - 1 }), { minLength: 1, maxLength: 40 }),
  command: fc.option(fc.integer({ min: 0, max: COMMANDS.length - 1 }), { nil: undefined }),
});

/** Outputs drawn from a small pool, so the same output (or command) comes again. */
const transcript = fc.array(output, { minLength: 1, maxLength: 4 }).chain((pool) =>
  fc.array(
    fc.integer({ min: 0, max: pool.length - 1 }).map((i) => pool[i]!),
    { minLength: 1, maxLength: 12 },
  ),
);

function candidates(drawn: { lines: number[]; command: number | undefined }[]): Candidate[] {
  return drawn.map((d, i) => ({
    id: `o${i}`,
    text: d.lines.map((l) => LINES[l]).join('\n'),
    messageIndex: 2 * i + 2,
    mayChange: true,
    ...(d.command !== undefined ? { command: COMMANDS[d.command]!, toolName: 'Bash' } : {}),
  }));
}

const cases: [string, TranscriptComponent<never>, unknown][] = [
  ['mask (defaults)', mask as TranscriptComponent<never>, {}],
  ['mask (keeps 1, floor 20)', mask as TranscriptComponent<never>, { keep_recent: 1, min_tokens: 20 }],
  ['dedup (defaults)', dedup as TranscriptComponent<never>, {}],
  ['dedup (floor 5)', dedup as TranscriptComponent<never>, { min_tokens: 5 }],
  ['failed_run (defaults)', failed_run as TranscriptComponent<never>, {}],
  ['failed_run (floor 10)', failed_run as TranscriptComponent<never>, { min_tokens: 10 }],
  ['phi_evict (budget 1)', phi_evict as TranscriptComponent<never>, { budget_tokens: 1 }],
  ['summarize', summarize as TranscriptComponent<never>, {}],
];

describe('transcript components keep their floor', () => {
  for (const [name, component, raw] of cases) {
    it(`${name}: no output under floorTokens is ever rewritten`, async () => {
      const cfg = component.parseConfig(raw) as never;
      const floor = component.floorTokens!(cfg);
      expect(floor).toBeGreaterThan(0);
      let acted = 0;
      await fc.assert(
        fc.asyncProperty(transcript, async (drawn) => {
          const outs = candidates(drawn);
          const result = await component.run(outs, cfg, ctx);
          for (const id of result.keys()) {
            const o = outs.find((c) => c.id === id)!;
            expect(await ctx.tokens.count(o.text)).toBeGreaterThanOrEqual(floor);
            acted++;
          }
        }),
        { numRuns: 150, seed: 17 },
      );
      // The property is about something: the component did rewrite outputs over its floor.
      if (name !== 'summarize') expect(acted).toBeGreaterThan(0);
    });
  }

  it('a floor follows the config it is given', () => {
    expect(mask.floorTokens!(mask.parseConfig({ min_tokens: 7 }))).toBe(7);
    expect(dedup.floorTokens!(dedup.parseConfig({ min_tokens: 0 }))).toBe(0);
    expect(failed_run.floorTokens!(failed_run.parseConfig({}))).toBe(100);
  });
});
