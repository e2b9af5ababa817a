/**
 * A stand-in for the call sites that record stats (compress, `cg run`, `cg expand`), bundled with
 * esbuild by test/e2e/stats.test.ts and run as its own process, so end-to-end tests can drive the
 * recording API the way the CLI will and then read the ledger back through `cg stats`.
 *
 * Usage: node harness.mjs STEPS.json — steps run in order; one JSON line per step on stdout.
 *   {op:'compact', text, command?, session?, components?, now?}   compact, write, record   → {output, keys}
 *   {op:'expand', key, lines?: [from, to], session?}                expand, write, record    → {hit, bytes}
 *   {op:'events', events, command?, session?, now?}                 record synthetic events  → {}
 *   {op:'burst', n, tag}                                            n small runs, no texts   → {}
 * The store is $CG_STORE_DIR and the ledger $CG_STATE_DIR, as for the CLI.
 */
import { readFileSync } from 'node:fs';
import { compactText } from '../../src/engine.js';
import type { PipelineEvent } from '../../src/pipeline/run.js';
import { recordCompaction, recordExpand } from '../../src/stats/index.js';
import { createFsStore, STORE_DEFAULTS } from '../../src/store/fs-store.js';
import { resolveStoreDir } from '../../src/store/location.js';

type Step =
  | { op: 'compact'; text: string; command?: string; session?: string; components?: string; now?: number }
  | { op: 'expand'; key: string; lines?: [number, number]; session?: string }
  | { op: 'events'; events: PipelineEvent[]; command?: string; session?: string; now?: number }
  | { op: 'burst'; n: number; tag: string };

const steps = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Step[];
const store = createFsStore({ dir: resolveStoreDir(), ...STORE_DEFAULTS });

for (const step of steps) {
  if (step.op === 'compact') {
    const result = await compactText(step.text, {
      components: step.components ?? 'format,collapse',
      format: 'text',
      store,
      ...(step.command !== undefined ? { command: step.command } : {}),
    });
    // What compress does: write the output first, then record.
    process.stdout.write(
      `${JSON.stringify({ output: result.output, keys: result.events.flatMap((e) => (e.key ? [e.key] : [])) })}\n`,
    );
    await recordCompaction(result.events, {
      format: result.format,
      tokenizer: 'o200k',
      storeDir: store.dir,
      ...(step.command !== undefined ? { command: step.command } : {}),
      ...(step.session !== undefined ? { session: step.session } : {}),
      ...(step.now !== undefined ? { now: step.now } : {}),
    });
  } else if (step.op === 'expand') {
    const bytes = await store.get(step.key);
    let body = bytes;
    if (bytes && step.lines) {
      const [from, to] = step.lines;
      body = Buffer.from(
        `${bytes
          .toString('utf8')
          .split('\n')
          .slice(from - 1, to)
          .join('\n')}\n`,
        'utf8',
      );
    }
    process.stdout.write(`${JSON.stringify({ hit: !!body, bytes: body?.length ?? 0 })}\n`);
    await recordExpand({
      key: step.key,
      hit: !!body,
      bytes: body?.length ?? 0,
      ...(body ? { output: body } : {}),
      storeDir: store.dir,
      ...(step.session !== undefined ? { session: step.session } : {}),
    });
  } else if (step.op === 'events') {
    await recordCompaction(step.events, {
      format: 'text',
      tokenizer: 'o200k',
      ...(step.command !== undefined ? { command: step.command } : {}),
      ...(step.session !== undefined ? { session: step.session } : {}),
      ...(step.now !== undefined ? { now: step.now } : {}),
    });
    process.stdout.write('{}\n');
  } else {
    for (let i = 0; i < step.n; i++) {
      const command = `${step.tag}-${i}`;
      const events: PipelineEvent[] = [
        {
          component: 'format',
          output: 'stdin',
          action: 'skip',
          reason: 'does not apply',
          bytesIn: 10,
          bytesOut: 0,
          ms: 0,
          command,
        },
        {
          component: 'collapse',
          output: 'stdin',
          action: 'skip',
          reason: 'under max_tokens',
          bytesIn: 10,
          bytesOut: 0,
          ms: 0,
          command,
        },
      ];
      await recordCompaction(events, { format: 'text', tokenizer: 'o200k', command });
    }
    process.stdout.write('{}\n');
  }
}
