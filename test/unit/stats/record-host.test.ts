/**
 * What a run records beyond its token counts: the agent host and door, the tokens of what the host
 * would have shown (counted from the store through the host's view, never copied), the filter a
 * cmdfilter rewrite applied, and which outputs no filter handled.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { compactText } from '../../../src/engine.js';
import type { PipelineEvent } from '../../../src/pipeline/run.js';
import { hostModel, hostView } from '../../../src/stats/hosts.js';
import { settlePending } from '../../../src/stats/pending.js';
import { recordCompaction, recordExpand } from '../../../src/stats/record.js';
import { recordRequest } from '../../../src/stats/requests.js';
import { createFsStore, STORE_DEFAULTS } from '../../../src/store/fs-store.js';
import { tempDir } from '../../helpers.js';
import { tempLedger } from './helpers.js';

function seq(n: number): string {
  let s = '';
  for (let i = 1; i <= n; i++) s += `${i}\n`;
  return s;
}

const store = () => createFsStore({ dir: join(tempDir(), 'store'), ...STORE_DEFAULTS });

function ledgerLines(dir: string): Record<string, unknown>[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.jsonl'))
    .flatMap((n) => readFileSync(join(dir, n), 'utf8').split('\n'))
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const ev = (e: Partial<PipelineEvent> & Pick<PipelineEvent, 'component' | 'action'>): PipelineEvent => ({
  output: 'stdin',
  bytesIn: 400,
  bytesOut: 0,
  ms: 0,
  ...e,
});

describe('recording the host', () => {
  it("counts a long output against the host's view of its stashed original, which no pending record copies", async () => {
    const { env, loc } = tempLedger();
    const s = store();
    const input = seq(20_000); // 108,894 chars: past Claude Code's 30,000
    const result = await compactText(input, { components: 'collapse', format: 'text', store: s });
    await recordCompaction(result.events, {
      format: 'text',
      tokenizer: 'o200k',
      storeDir: s.dir,
      env: { ...env, CG_HOST: 'claude-code', CG_VIA: 'hook' },
    });
    const preview = hostView(hostModel('claude-code')!, input).slice(0, 400);
    const pending = readdirSync(loc.pending).map((n) => readFileSync(join(loc.pending, n), 'utf8'));
    expect(pending).toHaveLength(1);
    expect(pending[0]).not.toContain(preview.slice(preview.indexOf('1\n2\n3\n')));
    await settlePending(loc);
    const lines = ledgerLines(loc.dir);
    expect(lines.find((l) => l.e === 'run')).toMatchObject({ h: 'claude-code', via: 'hook' });
    const out = lines.find((l) => l.e === 'out')!;
    expect(out).toMatchObject({
      h: 'claude-code',
      ti: countTokens(input),
      hi: countTokens(hostView(hostModel('claude-code')!, input)),
      to: countTokens(result.output),
    });
    expect(out.ho).toBeUndefined(); // cg's output fits: the host shows it whole
    expect(out.est).toBeUndefined();
  });

  it('records no host-capped figures for an output the host shows whole, or with no host', async () => {
    const { env, loc } = tempLedger();
    const s = store();
    const input = seq(5000); // 23,893 chars
    const result = await compactText(input, { components: 'collapse', format: 'text', store: s });
    await recordCompaction(result.events, {
      format: 'text',
      tokenizer: 'o200k',
      storeDir: s.dir,
      env: { ...env, CLAUDECODE: '1' },
    });
    await recordCompaction(result.events, { format: 'text', tokenizer: 'o200k', storeDir: s.dir, env });
    await settlePending(loc);
    const outs = ledgerLines(loc.dir).filter((l) => l.e === 'out');
    expect(outs.map((o) => [o.h, o.hi, o.ho])).toEqual([
      ['claude-code', undefined, undefined],
      [undefined, undefined, undefined],
    ]);
    expect(
      ledgerLines(loc.dir)
        .filter((l) => l.e === 'run')
        .map((l) => l.via),
    ).toEqual(['pipe', 'pipe']);
  });

  it('measures a request body through the proxy raw: it already holds what the host showed', async () => {
    const { env, loc } = tempLedger();
    const big = seq(12_000); // 62,893 chars
    const events = [
      ev({
        component: 'collapse',
        action: 'rewrite',
        output: 'call_1',
        bytesIn: 50_000,
        bytesOut: 10,
        before: big,
        after: 'x <<cg>>',
      }),
    ];
    await recordCompaction(events, {
      format: 'anthropic',
      tokenizer: 'o200k',
      env,
      host: 'claude-code',
      via: 'proxy',
    });
    await settlePending(loc);
    const out = ledgerLines(loc.dir).find((l) => l.e === 'out')!;
    expect(out).toMatchObject({ h: 'claude-code', ti: countTokens(big) });
    expect(out.hi).toBeUndefined();
  });

  it('counts what the host showed of an expand too: a whole original past the cap is cut like any output', async () => {
    const { env, loc } = tempLedger();
    const s = store();
    const original = seq(20_000);
    const { key } = await s.put(original);
    await recordExpand({
      key,
      hit: true,
      bytes: Buffer.byteLength(original),
      storeDir: s.dir,
      env: { ...env, CG_HOST: 'codex' },
    });
    const slice = seq(10);
    await recordExpand({
      key,
      hit: true,
      bytes: Buffer.byteLength(original),
      output: slice,
      storeDir: s.dir,
      env: { ...env, CG_HOST: 'codex' },
    });
    await settlePending(loc);
    const xs = ledgerLines(loc.dir).filter((l) => l.e === 'x');
    expect(xs).toHaveLength(2);
    expect(xs[0]).toMatchObject({
      h: 'codex',
      tr: countTokens(original),
      hr: countTokens(hostView(hostModel('codex')!, original)),
    });
    expect(xs[1]).toMatchObject({ h: 'codex', tr: countTokens(slice) });
    expect(xs[1]!.hr).toBeUndefined();
  });
});

describe('recording filters', () => {
  it('names the filter a cmdfilter rewrite applied, from its note', async () => {
    const { env, loc } = tempLedger();
    await recordCompaction(
      [
        ev({
          component: 'cmdfilter',
          action: 'rewrite',
          bytesOut: 40,
          note: 'filter git-log: 812 → 40 lines',
          key: '0123456789abcdef',
        }),
      ],
      { format: 'text', tokenizer: 'o200k', env, command: 'git log' },
    );
    const line = ledgerLines(loc.dir).find((l) => l.e === 'ev')!;
    expect(line).toMatchObject({ c: 'cmdfilter', a: 'rewrite', f: 'git-log', k: '0123456789abcdef' });
  });

  it('marks an output no filter handled: cmdfilter found none, or only the generic fallback cut it', async () => {
    const { env, loc } = tempLedger();
    const noMatch = ev({ component: 'cmdfilter', action: 'skip', reason: 'no filter matches' });
    // a: no filter, collapse cut it; b: no filter, untouched; c: only fold (the fallback) ran; d: filtered.
    await recordCompaction(
      [
        { ...noMatch, output: 'a' },
        ev({ component: 'collapse', action: 'rewrite', output: 'a', bytesOut: 20 }),
        { ...noMatch, output: 'b' },
        ev({ component: 'fold', action: 'rewrite', output: 'c', bytesOut: 30 }),
        ev({
          component: 'cmdfilter',
          action: 'rewrite',
          output: 'd',
          bytesOut: 30,
          note: 'filter make: 9 → 2 lines',
        }),
      ],
      { format: 'text', tokenizer: 'o200k', env, command: 'make -j4' },
    );
    const lines = ledgerLines(loc.dir);
    const outs = Object.fromEntries(lines.filter((l) => l.e === 'out').map((l) => [l.o, l.nf]));
    expect(outs).toEqual({ a: 1, c: 1, d: undefined });
    const skips = lines.filter((l) => l.e === 'ev' && l.a === 'skip');
    // a's skip is counted on a's out line (ro:1); b has no out line, so its skip is what counts it.
    expect(skips.map((l) => [l.o, l.ro])).toEqual([
      ['a', 1],
      ['b', undefined],
    ]);
  });
});

describe('recording proxy requests', () => {
  it('writes one req line per request, estimated from bytes when the caller gave no token counts', async () => {
    const { env, loc } = tempLedger();
    await recordRequest({
      format: 'anthropic',
      bytesIn: 8000,
      bytesOut: 2000,
      tokensIn: 1900,
      tokensOut: 480,
      cacheStable: true,
      modelTokensIn: 300,
      modelTokensOut: 40,
      host: 'claude-code',
      session: 'S',
      env,
    });
    await recordRequest({ format: 'responses', bytesIn: 4001, bytesOut: 400, env });
    const lines = ledgerLines(loc.dir);
    expect(lines).toEqual([
      expect.objectContaining({
        e: 'req',
        s: 'S',
        fmt: 'anthropic',
        h: 'claude-code',
        ti: 1900,
        to: 480,
        cs: 1,
        mi: 300,
        mo: 40,
      }),
      expect.objectContaining({ e: 'req', est: 1, fmt: 'responses', ti: 1001, to: 100 }),
    ]);
    expect(lines[1]!.cs).toBeUndefined();
    expect(readdirSync(loc.dir)).not.toContain('pending'); // nothing deferred
  });
});
