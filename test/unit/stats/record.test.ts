import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { compactText } from '../../../src/engine.js';
import type { PipelineEvent } from '../../../src/pipeline/run.js';
import { countRun } from '../../../src/stats/footer.js';
import { PENDING_BUDGET, settlePending } from '../../../src/stats/pending.js';
import { recordCompaction, recordExpand, recordExpands } from '../../../src/stats/record.js';
import { createFsStore, STORE_DEFAULTS } from '../../../src/store/fs-store.js';
import { createTokens } from '../../../src/tokens.js';
import { tempDir } from '../../helpers.js';
import { report, tempLedger } from './helpers.js';

function seq(n: number): string {
  let s = '';
  for (let i = 1; i <= n; i++) s += `${i}\n`;
  return s;
}

const store = () => createFsStore({ dir: join(tempDir(), 'store'), ...STORE_DEFAULTS });

async function compact(text: string, s = store()) {
  return compactText(text, { components: 'format,collapse', format: 'text', store: s, command: 'seq 1 n' });
}

const pendingFiles = (dir: string) =>
  existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.pend')) : [];

describe('recordCompaction', () => {
  it('writes a run that rewrote nothing straight to the ledger, with bytes and no tokenizer', async () => {
    const { env, loc } = tempLedger();
    const result = await compact('hello\n');
    await recordCompaction(result.events, { format: 'text', tokenizer: 'o200k', env });
    expect(pendingFiles(loc.pending)).toEqual([]);
    const r = await report(loc);
    expect(r.runs).toBe(1);
    expect(r.outputs).toEqual({ rewritten: 0, untouched: 1, untouchedBytes: 6 });
    expect(r.components.map((c) => [c.component, c.skips])).toEqual([
      ['collapse', 1],
      ['format', 1],
    ]);
  });

  it('defers a rewriting run to a pending record that settles to exact token counts', async () => {
    const { env, loc } = tempLedger();
    const s = store();
    const input = seq(5000);
    const result = await compact(input, s);
    await recordCompaction(result.events, {
      format: 'text',
      tokenizer: 'o200k',
      storeDir: s.dir,
      env,
      session: 'S',
    });
    expect(pendingFiles(loc.pending)).toHaveLength(1);
    expect((await report(loc)).runs).toBe(0); // nothing counted until a reader settles it
    expect(await settlePending(loc)).toEqual({ settled: 1, bad: 0, left: 0 });
    const r = await report(loc);
    expect(r.tokens.in).toBe(countTokens(input));
    expect(r.tokens.out).toBe(countTokens(result.output));
    expect(r.components.find((c) => c.component === 'collapse')).toMatchObject({
      rewrites: 1,
      tokensIn: countTokens(input),
      tokensOut: countTokens(result.output),
    });
    expect((await report(loc, { session: 'S' })).runs).toBe(1);
  });

  it('takes counts already made for the footer straight to the ledger, without a pending record', async () => {
    const { env, loc } = tempLedger();
    const input = seq(5000);
    const tokens = createTokens('o200k');
    const result = await compactText(input, {
      components: 'collapse',
      format: 'text',
      store: store(),
      tokens,
    });
    const counts = await countRun(result.events, tokens);
    await recordCompaction(result.events, { format: 'text', tokenizer: 'o200k', counts, env });
    expect(pendingFiles(loc.pending)).toEqual([]);
    const r = await report(loc);
    expect(r.tokens).toMatchObject({ in: countTokens(input), out: countTokens(result.output) });
    expect(counts).toMatchObject({ tokensIn: r.tokens.in, tokensOut: r.tokens.out, estimate: false });
  });

  it('keeps 100 runs of a 120 KB output in a few hundred KB, with no copy of the original, and counts them exactly', async () => {
    const { env, loc } = tempLedger();
    const s = store();
    const lines = Array.from(
      { length: 2700 },
      (_, i) => `line ${i} of a long build log, nothing to see here\n`,
    );
    lines[1350] = 'export TOKEN=secret-in-the-dropped-middle\n';
    const input = lines.join('');
    expect(input.length).toBeGreaterThan(120_000);
    for (let i = 0; i < 100; i++) {
      const result = await compact(input, s);
      await recordCompaction(result.events, { format: 'text', tokenizer: 'o200k', storeDir: s.dir, env });
    }
    const files = readdirSync(loc.pending).map((n) => join(loc.pending, n));
    expect(files).toHaveLength(100);
    const bytes = files.reduce((n, f) => n + readFileSync(f).length, 0);
    expect(bytes).toBeLessThan(400 * 1024); // copies of the original were 100 × 120 KB
    for (const f of files) expect(readFileSync(f, 'utf8')).not.toContain('secret-in-the-dropped-middle');
    await settlePending(loc);
    const r = await report(loc);
    expect(r.runs).toBe(100);
    expect(r.tokens.in).toBe(100 * countTokens(input));
    expect(r.estimated.outputs).toBe(0);
  });

  it('stops keeping texts once pending records hold their budget, and labels what follows as estimated', async () => {
    const { env, loc } = tempLedger();
    mkdirSync(loc.pending, { recursive: true });
    writeFileSync(join(loc.pending, `old.${PENDING_BUDGET}.pend`), ''); // a full directory, by name
    const s = store();
    const result = await compact(seq(5000), s);
    await recordCompaction(result.events, { format: 'text', tokenizer: 'o200k', storeDir: s.dir, env });
    expect(pendingFiles(loc.pending)).toEqual([`old.${PENDING_BUDGET}.pend`]);
    const r = await report(loc);
    expect(r.runs).toBe(1);
    expect(r.tokens).toMatchObject({ in: 0, out: 0 });
    expect(r.estimated.outputs).toBe(1);
  });

  it('marks a text too large to keep and not stashed as an estimate, never as an exact count', async () => {
    const { env, loc } = tempLedger();
    const huge = 'x'.repeat(65 * 1024 * 1024);
    const events: PipelineEvent[] = [
      {
        component: 'format',
        output: 'stdin',
        action: 'rewrite',
        loss: 'none',
        bytesIn: huge.length,
        bytesOut: 3,
        ms: 0,
        before: huge,
        after: 'xyz',
      },
    ];
    await recordCompaction(events, { format: 'text', tokenizer: 'o200k', env });
    const pending = readdirSync(loc.pending).filter((n) => n.endsWith('.pend'));
    expect(readFileSync(join(loc.pending, pending[0]!)).length).toBeLessThan(4096); // the 65 MB never written
    await settlePending(loc);
    const r = await report(loc);
    expect(r.tokens).toMatchObject({ in: 0, out: 0 });
    expect(r.estimated).toMatchObject({
      outputs: 1,
      tokensIn: Math.ceil(huge.length / 4),
      tokensOut: 1,
      events: 1,
    });
  });

  it('records a structural rewrite of no output without token figures rather than as an estimate', async () => {
    const { env, loc } = tempLedger();
    const events: PipelineEvent[] = [
      {
        component: 'cacheinject',
        output: '*',
        action: 'rewrite',
        bytesIn: 0,
        bytesOut: 0,
        ms: 0,
        note: 'cache breakpoint',
      },
    ];
    await recordCompaction(events, { format: 'anthropic', tokenizer: 'o200k', env });
    const r = await report(loc);
    expect(r.components).toMatchObject([{ component: 'cacheinject', rewrites: 1, tokensIn: 0 }]);
    expect(r.estimated.events).toBe(0);
  });

  it('never throws, even when the state directory cannot be created', async () => {
    const file = join(tempDir(), 'not-a-dir');
    writeFileSync(file, '');
    const env = { CG_STATE_DIR: join(file, 'state') };
    const result = await compact(seq(5000));
    await expect(
      recordCompaction(result.events, { format: 'text', tokenizer: 'o200k', env }),
    ).resolves.toBeUndefined();
    await expect(
      recordExpand({ key: '0123456789abcdef', hit: false, bytes: 0, env }),
    ).resolves.toBeUndefined();
  });

  it('records nothing with CG_STATS=0', async () => {
    const { env, loc } = tempLedger({ CG_STATS: '0' });
    await recordCompaction((await compact('hi\n')).events, { format: 'text', tokenizer: 'o200k', env });
    await recordExpand({ key: '0123456789abcdef', hit: false, bytes: 0, env });
    expect(existsSync(loc.dir)).toBe(false);
  });

  it('takes the session from CG_SESSION unless one is given', async () => {
    const { env, loc } = tempLedger({ CG_SESSION: 'from-env' });
    const events = (await compact('hi\n')).events;
    await recordCompaction(events, { format: 'text', tokenizer: 'o200k', env });
    await recordCompaction(events, { format: 'text', tokenizer: 'o200k', env, session: 'given' });
    expect((await report(loc, { session: 'from-env' })).runs).toBe(1);
    expect((await report(loc, { session: 'given' })).runs).toBe(1);
  });
});

describe('recordExpand', () => {
  it('counts what expand returned: a miss at once, a hit once settled', async () => {
    const { env, loc } = tempLedger();
    const s = store();
    const original = seq(3000);
    const put = await s.put(original);
    await recordExpand({ key: 'ffffffffffffffff', hit: false, bytes: 0, env });
    await recordExpand({
      key: put.key,
      hit: true,
      bytes: original.length,
      output: Buffer.from(original),
      storeDir: s.dir,
      env,
    });
    await recordExpand({ key: put.key, hit: true, bytes: 6, output: '1\n2\n3\n', storeDir: s.dir, env });
    await settlePending(loc);
    const r = await report(loc);
    expect(r.expand).toEqual({
      requests: 3,
      hits: 2,
      misses: 1,
      tokensReturned: countTokens(original) + countTokens('1\n2\n3\n'),
      hitRate: 66.7,
    });
  });

  it('counts a big whole original from the store instead of copying it into a pending record', async () => {
    const { env, loc } = tempLedger();
    const s = store();
    const original = seq(250_000);
    const put = await s.put(original);
    await recordExpand({
      key: put.key,
      hit: true,
      bytes: original.length,
      output: original,
      storeDir: s.dir,
      env,
    });
    const [pending] = readdirSync(loc.pending);
    expect(readFileSync(join(loc.pending, pending!)).length).toBeLessThan(1024);
    await settlePending(loc);
    expect((await report(loc)).expand.tokensReturned).toBe(countTokens(original));
  });

  it('records every key of one cg expand with one write, each counted as if recorded alone', async () => {
    const { env, loc } = tempLedger();
    const s = store();
    const originals = [seq(10), seq(20), seq(3000)];
    const keys: string[] = [];
    for (const o of originals) keys.push((await s.put(o)).key);
    await recordExpands([
      ...originals.map((o, i) => ({
        key: keys[i]!,
        hit: true,
        bytes: o.length,
        output: o,
        storeDir: s.dir,
        env,
      })),
      { key: 'ffffffffffffffff', hit: false, bytes: 0, env },
    ]);
    expect(pendingFiles(loc.pending)).toHaveLength(1);
    await settlePending(loc);
    expect((await report(loc)).expand).toEqual({
      requests: 4,
      hits: 3,
      misses: 1,
      tokensReturned: originals.reduce((n, o) => n + countTokens(o), 0),
      hitRate: 75,
    });
  });
});
