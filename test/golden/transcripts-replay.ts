/**
 * The replay check shared by transcripts.test.ts and transcripts-large.slow.test.ts: each Claude Code
 * session of the corpus is replayed turn by turn through `--preset agent` with one session record
 * and one fs store, exactly as an agent would send it (the request of turn k holds the messages up to
 * the k-th user message). Every turn is run, since the record must evolve as in real use, and every
 * consecutive pair of turns is compared.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replaySession, sessionFiles } from '../../bench/transcripts.mjs';
import { compactText } from '../../src/engine.js';
import { readTranscript } from '../../src/input/read.js';
import { createFsStore } from '../../src/store/fs-store.js';
import { markerKeys } from '../../src/store/marker.js';
import { createTokens } from '../../src/tokens.js';
import { HAS_CORPUS, tempDir } from '../helpers.js';

/** The two large spotter sessions, on which tool tokens must fall by at least a quarter. */
export const LARGE = ['spotter_258c7280_opus46_main', 'spotter_ae4a77f8_opus46_main'];

export async function replayCorpusSession(file: string) {
  const body = JSON.parse(readFileSync(file, 'utf8'));
  const work = tempDir('cg-replay-');
  const store = createFsStore({ dir: join(work, 'store'), ttlDays: 14, maxBytes: 1 << 30, compress: true });
  const tokens = createTokens('o200k');
  // Every marker must give back exactly the original of the output it stands in; each key is read
  // from the store once, later sightings compare against the verified original.
  const verified = new Map<string, string>();
  const problems: string[] = [];
  const result = await replaySession(body, {
    run: async (request) =>
      (
        await compactText(request, {
          preset: 'agent',
          store,
          tokens,
          session: { dir: join(work, 'sessions') },
        })
      ).output,
    count: (text) => tokens.count(text),
    onTurn: async (k, request, output) => {
      const before = readTranscript(request, 'anthropic', {}).outputs;
      const after = readTranscript(output, 'anthropic', {}).outputs;
      if (after.length !== before.length) problems.push(`turn ${k}: output count changed`);
      for (const [i, o] of after.entries()) {
        const original = before[i]!.text;
        for (const key of markerKeys(o.text)) {
          const known = verified.get(key);
          if (known === undefined) {
            const bytes = await store.get(key);
            if (bytes?.toString('utf8') !== original)
              problems.push(`turn ${k}: ${key} does not expand to ${o.id}`);
            verified.set(key, original);
          } else if (known !== original) {
            problems.push(`turn ${k}: ${key} stands for two different originals`);
          }
        }
      }
    },
  });
  return { ...result, problems, markers: verified.size };
}

export function replayTests(names: (name: string) => boolean) {
  const files = HAS_CORPUS
    ? sessionFiles().filter((f) => names(f.split('/').pop()!.replace('.anthropic.json', '')))
    : [];
  describe.skipIf(!HAS_CORPUS)('replaying Claude Code sessions turn by turn through --preset agent', () => {
    for (const file of files) {
      const name = file.split('/').pop()!.replace('.anthropic.json', '');
      const large = LARGE.includes(name);
      it(`${name}: earlier messages stay byte-identical on ≥ 90 % of turns and every marker expands exactly${large ? ', tool tokens fall ≥ 25 %' : ''}`, async () => {
        const r = await replayCorpusSession(file);
        expect(r.problems).toEqual([]);
        expect(r.stable / r.pairs).toBeGreaterThanOrEqual(0.9);
        if (large) {
          expect(r.toolOut).toBeLessThanOrEqual(0.75 * r.toolIn);
          expect(r.markers).toBeGreaterThan(0);
        }
        expect(r.toolOut).toBeLessThanOrEqual(r.toolIn);
      });
    }
  });
}
