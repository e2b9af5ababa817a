/**
 * `cg stats` end to end: records are made by a harness process that calls the recording API the way
 * compress and expand will (test/e2e/stats-harness.ts, bundled here with esbuild), and read back by
 * spawning the built CLI with CG_STATE_DIR in a temp dir. Expected figures are counted in the test
 * with gpt-tokenizer directly, from the same inputs.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { beforeAll, describe, expect, it } from 'vitest';
import type { StatsReport } from '../../src/stats/report.js';
import { ROOT, tempDir } from '../helpers.js';
import { cg, cgAsync, seq } from './run-cg.js';

let harness = '';

beforeAll(async () => {
  harness = join(tempDir('cg-stats-harness-'), 'harness.mjs');
  await build({
    entryPoints: [join(ROOT, 'test', 'e2e', 'stats-harness.ts')],
    outfile: harness,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
    banner: {
      js: "import { createRequire as __cgCreateRequire } from 'node:module'; const require = __cgCreateRequire(import.meta.url);",
    },
  });
});

interface Env {
  state: string;
  store: string;
  extra?: Record<string, string>;
}

function envOf(e: Env): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    CG_STATE_DIR: e.state,
    CG_STORE_DIR: e.store,
    XDG_CONFIG_HOME: join(e.state, 'no-config'),
    ...e.extra,
  };
}

function newEnv(extra?: Record<string, string>): Env {
  const root = tempDir('cg-stats-e2e-');
  return { state: join(root, 'state'), store: join(root, 'store'), ...(extra ? { extra } : {}) };
}

/** Runs the harness on a list of steps; resolves to one parsed JSON object per step. */
function runHarness(e: Env, steps: unknown[]): Promise<Record<string, unknown>[]> {
  const file = join(tempDir('cg-stats-steps-'), 'steps.json');
  writeFileSync(file, JSON.stringify(steps));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [harness, file], { env: envOf(e) });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`harness exited ${code}: ${err}`));
      resolve(
        out
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      );
    });
  });
}

function stats(e: Env, args: string[] = []): StatsReport {
  const r = cg(['stats', '--json', ...args], { env: envOf(e), storeDir: e.store });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as StatsReport;
}

function ledgerText(e: Env): string {
  if (!existsSync(e.state)) return '';
  return readdirSync(e.state)
    .filter((n) => /^ledger.*\.jsonl$/.test(n))
    .map((n) => readFileSync(join(e.state, n), 'utf8'))
    .join('');
}

const tokens = (s: string) => countTokens(s);
const pretty = JSON.stringify(
  { items: Array.from({ length: 60 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['a', 'b'] })) },
  null,
  4,
);
const DAY = 86_400_000;

describe('cg stats', () => {
  it('after a scripted sequence of runs and expands, --json matches totals counted independently from the same inputs', async () => {
    const e = newEnv();
    const small = seq(3000);
    const big = seq(200_000); // over 1 MiB: counted later from the store, not copied
    const out = await runHarness(e, [
      { op: 'compact', text: small, command: 'seq 1 3000', session: 'A' },
      { op: 'compact', text: pretty, command: 'gh api repos/o/r/issues', session: 'A' },
      { op: 'compact', text: 'hello\n', command: 'echo hello', session: 'B' },
      { op: 'compact', text: big, command: 'seq 1 200000', session: 'B' },
      {
        op: 'events',
        events: [
          {
            component: 'cmdfilter',
            output: 'stdin',
            action: 'skip',
            reason: 'no filter matches',
            bytesIn: 100,
            bytesOut: 0,
            ms: 0,
            command: 'make -j4',
          },
        ],
      },
      {
        op: 'events',
        events: [
          {
            component: 'cmdfilter',
            output: 'stdin',
            action: 'skip',
            reason: 'no filter matched',
            bytesIn: 50,
            bytesOut: 0,
            ms: 0,
            command: 'make -k',
          },
        ],
      },
      {
        op: 'events',
        events: [
          {
            component: 'cmdfilter',
            output: 'stdin',
            action: 'skip',
            reason: 'no filter matches',
            bytesIn: 7,
            bytesOut: 0,
            ms: 0,
            command: 'terraform plan -out x',
          },
        ],
      },
    ]);
    const [o1, o2, o3, o4] = out as { output: string; keys: string[] }[];
    expect(o1!.keys).toHaveLength(1);
    expect(o2!.keys).toHaveLength(0);
    expect(o2!.output).not.toBe(pretty);
    expect(o3!.output).toBe('hello\n');
    expect(o4!.keys).toHaveLength(1);
    const k1 = o1!.keys[0]!;
    const k4 = o4!.keys[0]!;
    const expands = await runHarness(e, [
      { op: 'expand', key: k1, session: 'A' },
      { op: 'expand', key: k4, session: 'B' },
      { op: 'expand', key: k1, lines: [1, 3], session: 'A' },
      { op: 'expand', key: 'ffffffffffffffff', session: 'A' },
    ]);
    expect(expands.map((x) => x.hit)).toEqual([true, true, true, false]);

    const tin = tokens(small) + tokens(pretty) + tokens(big);
    const tout = tokens(o1!.output) + tokens(o2!.output) + tokens(o4!.output);
    const returned = tokens(small) + tokens(big) + tokens('1\n2\n3\n');
    const r = stats(e);
    expect(r.runs).toBe(7);
    expect(r.outputs).toEqual({ rewritten: 3, untouched: 4, untouchedBytes: 6 + 100 + 50 + 7 });
    expect(r.tokens).toMatchObject({
      in: tin,
      out: tout,
      saved: tin - tout,
      returned,
      net: tin - tout - returned,
    });
    expect(r.tokens.savedPct).toBeCloseTo(((tin - tout) / tin) * 100, 0);
    expect(r.expand).toEqual({ requests: 4, hits: 3, misses: 1, tokensReturned: returned, hitRate: 75 });
    expect(r.estimated).toEqual({
      outputs: 0,
      tokensIn: 0,
      tokensOut: 0,
      saved: 0,
      events: 0,
      expands: 0,
      tokensReturned: 0,
    });
    const collapse = r.components.find((c) => c.component === 'collapse')!;
    expect(collapse).toMatchObject({
      rewrites: 2,
      tokensIn: tokens(small) + tokens(big),
      tokensOut: tokens(o1!.output) + tokens(o4!.output),
    });
    const format = r.components.find((c) => c.component === 'format')!;
    expect(format).toMatchObject({ rewrites: 1, tokensIn: tokens(pretty), tokensOut: tokens(o2!.output) });
    expect(r.commands.map((c) => c.command).sort()).toEqual(['gh api', 'seq'].sort());
    expect(r.commands.find((c) => c.command === 'seq')!.outputs).toBe(2);
    expect(r.unmatched).toEqual([
      { command: 'make', count: 2, bytes: 150 },
      { command: 'terraform plan', count: 1, bytes: 7 },
    ]);
    expect(r.tokenizers).toEqual(['o200k']);
    expect(r.ledger).toMatchObject({ pendingSettled: 6, pendingLeft: 0, badLines: 0, duplicates: 0 });
    // Settled once: a second reader finds nothing pending and the same totals.
    const again = stats(e);
    expect(again.ledger.pendingSettled).toBe(0);
    expect(again.tokens).toEqual(r.tokens);

    const a = stats(e, ['--session', 'A']);
    expect(a.runs).toBe(2);
    expect(a.tokens.in).toBe(tokens(small) + tokens(pretty));
    expect(a.expand).toMatchObject({ requests: 3, hits: 2, misses: 1 });
    expect(a.filter.session).toBe('A');
  });

  it('shows the same report as a table on a pipe, without colour codes', async () => {
    const e = newEnv();
    await runHarness(e, [{ op: 'compact', text: seq(5000), command: 'pytest -x' }]);
    const r = cg(['stats'], { env: envOf(e), storeDir: e.store });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^cg stats · all time · 1 run · 1 rewritten\n/);
    expect(r.out).toMatch(/net saved/);
    expect(r.out).toMatch(/\n {2}collapse +1 /);
    expect(r.out).toMatch(/\n {2}pytest +1 /);
    expect(r.out).not.toMatch(/\x1b\[/);
    const graph = cg(['stats', '--graph'], { env: envOf(e), storeDir: e.store });
    expect(graph.code).toBe(0);
    expect(graph.out).toMatch(/█/);
  });

  it('--since keeps only recent events, as a duration or as a date', async () => {
    const e = newEnv();
    const now = Date.now();
    const skip = (command: string) => [
      {
        component: 'format',
        output: 'stdin',
        action: 'skip',
        reason: 'does not apply',
        bytesIn: 1,
        bytesOut: 0,
        ms: 0,
        command,
      },
    ];
    await runHarness(e, [
      { op: 'events', events: skip('old'), now: now - 10 * DAY },
      { op: 'events', events: skip('recent'), now: now - 2 * DAY },
      { op: 'events', events: skip('now'), now },
    ]);
    expect(stats(e).runs).toBe(3);
    expect(stats(e, ['--since', '7d']).runs).toBe(2);
    expect(stats(e, ['--since', '24h']).runs).toBe(1);
    const d = new Date(now - 5 * DAY);
    const date = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    expect(stats(e, ['--since', date]).runs).toBe(2);
    const bad = cg(['stats', '--since', 'last tuesday'], { env: envOf(e), storeDir: e.store });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^cg: --since: .*\n$/);
  });

  it('twenty processes appending at once lose no event and corrupt no line', async () => {
    const e = newEnv();
    const perProcess = 150;
    await Promise.all(
      Array.from({ length: 20 }, (_, p) => runHarness(e, [{ op: 'burst', n: perProcess, tag: `p${p}` }])),
    );
    const text = ledgerText(e);
    expect(text.endsWith('\n')).toBe(true);
    // An append that checked for a torn last line while another process's write was half copied
    // starts with a newline it did not need: an empty line, which readers skip.
    const lines = text.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(20 * perProcess * 3);
    const runs = new Map<string, number>();
    for (const line of lines) {
      const o = JSON.parse(line) as { e: string; cmd: string };
      if (o.e === 'run') runs.set(o.cmd, (runs.get(o.cmd) ?? 0) + 1);
    }
    expect(runs.size).toBe(20 * perProcess);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    const r = stats(e);
    expect(r.runs).toBe(20 * perProcess);
    expect(r.ledger.badLines).toBe(0);
  });

  it('rotation keeps totals: events spread over many rotated files all count', async () => {
    const e = newEnv({ CG_STATS_ROTATE_MB: '0.01', CG_STATS_KEEP: '1000' });
    await Promise.all(
      Array.from({ length: 4 }, (_, p) => runHarness(e, [{ op: 'burst', n: 100, tag: `p${p}` }])),
    );
    await runHarness(e, [{ op: 'compact', text: seq(4000), command: 'seq' }]);
    const files = readdirSync(e.state).filter((n) => /^ledger.*\.jsonl$/.test(n));
    expect(files.length).toBeGreaterThan(5);
    const r = stats(e);
    expect(r.runs).toBe(401);
    expect(r.tokens.in).toBe(tokens(seq(4000)));
    expect(r.ledger.files).toBe(readdirSync(e.state).filter((n) => /^ledger.*\.jsonl$/.test(n)).length);
  });

  it('pending records settle exactly once when two readers run at the same time', async () => {
    const e = newEnv();
    const texts = Array.from({ length: 24 }, (_, i) => seq(8000 + i * 97));
    const outs = await runHarness(
      e,
      texts.map((text, i) => ({ op: 'compact', text, command: `job ${i}` })),
    );
    expect(readdirSync(join(e.state, 'pending')).filter((n) => n.endsWith('.pend'))).toHaveLength(24);
    const [a, b] = await Promise.all([
      cgAsync(['stats', '--json'], { env: envOf(e), storeDir: e.store }),
      cgAsync(['stats', '--json'], { env: envOf(e), storeDir: e.store }),
    ]);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    const ra = JSON.parse(a.out) as StatsReport;
    const rb = JSON.parse(b.out) as StatsReport;
    expect(ra.ledger.pendingSettled + rb.ledger.pendingSettled).toBe(24);
    // In the raw ledger, each run's out line appears exactly once (not merely deduplicated on read).
    const outLines = ledgerText(e)
      .split('\n')
      .filter((l) => l.includes('"e":"out"'));
    expect(outLines).toHaveLength(24);
    expect(readdirSync(join(e.state, 'pending'))).toEqual([]);
    const tin = texts.reduce((n, t) => n + tokens(t), 0);
    const tout = outs.reduce((n, o) => n + tokens((o as { output: string }).output), 0);
    expect(stats(e).tokens).toMatchObject({ in: tin, out: tout });
  });

  it('--reset removes the ledger and pending records and says what it removed', async () => {
    const e = newEnv();
    await runHarness(e, [
      { op: 'burst', n: 5, tag: 'x' },
      { op: 'compact', text: seq(5000), command: 'seq' },
    ]);
    const r = cg(['stats', '--reset'], { env: envOf(e), storeDir: e.store });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /^cg stats: removed 15 events \(1 ledger file, [\d,]+ bytes\) and 1 pending record from /,
    );
    expect(ledgerText(e)).toBe('');
    expect(stats(e).runs).toBe(0);
    const mixed = cg(['stats', '--reset', '--since', '7d'], { env: envOf(e), storeDir: e.store });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/^cg: stats: --reset /);
  });

  it('--top must be a positive whole number', () => {
    const e = newEnv();
    const r = cg(['stats', '--top', '0'], { env: envOf(e), storeDir: e.store });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('cg: --top: expected a positive whole number, got "0"\n');
  });
});
