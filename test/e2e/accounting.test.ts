/**
 * Issue 19's accounting end to end: `cg run` under different agent hosts (CG_HOST), some markers
 * expanded, then `cg stats --json` and `cg discover --json` checked against a recount made here,
 * independently, from the raw outputs (counted with gpt-tokenizer) and the ledger lines (parsed with
 * JSON.parse).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { hostModel, hostView } from '../../src/stats/hosts.js';
import type { StatsReport } from '../../src/stats/report.js';
import { tempDir } from '../helpers.js';
import { cg, seq } from './run-cg.js';

type Line = Record<string, unknown> & { e: string };

describe('savings a sceptic can recount', () => {
  it('stats and discover match a recount of the outputs and the ledger: host-capped, raw, recall, unfiltered', () => {
    const root = tempDir('cg-accounting-');
    const store = join(root, 'store');
    const state = `${store}.state`; // where run-cg puts the ledger for this store
    const filters = join(root, 'filters.yaml');
    writeFileSync(
      filters,
      'schema_version: 1\nfilters:\n  seq-head:\n    match: ^\\$ seq 1 9000$\n    head_lines: 20\n',
    );
    const run = (args: string[], host?: string) => {
      const r = cg(['run', ...args], { storeDir: store, env: host ? { CG_HOST: host } : {} });
      expect(r.code).toBe(0);
      return r.out;
    };
    const raw = {
      claude: seq(20_000),
      codex: seq(60_000),
      filtered: seq(9000),
      small: `${'0'.repeat(300)}\n`,
    };
    const outClaude = run(['--', 'seq', '1', '20000'], 'claude-code');
    const outCodex = run(['--', 'seq', '1', '60000'], 'codex');
    const outFiltered = run(['--filters', filters, '--', 'seq', '1', '9000'], 'claude-code');
    const outSmall = run(['--', 'printf', '%0300d\\n', '0']);
    expect(outSmall).toBe(raw.small); // too short to touch
    const keyOf = (out: string) => /<<cg:([0-9a-f]{16})>>/.exec(out)![1]!;
    const [kClaude, kFiltered] = [keyOf(outClaude), keyOf(outFiltered)];

    // The agent expands the Claude Code run's marker whole (under Claude Code), and the filtered
    // run's marker twice, as slices.
    const expand = (args: string[], host?: string) =>
      cg(['expand', ...args], { storeDir: store, env: host ? { CG_HOST: host } : {} });
    expect(expand([kClaude], 'claude-code').out).toBe(raw.claude);
    const slices = [expand([kFiltered, '--lines', '30-40']).out, expand([kFiltered, '--lines', '50-60']).out];
    expect(slices[0]).toBe(seq(40).split('\n').slice(29).join('\n'));

    const stats = cg(['stats', '--json'], { storeDir: store });
    expect(stats.code).toBe(0);
    const r = JSON.parse(stats.out) as StatsReport;

    // Raw figures: the outputs as the commands printed them, and as cg wrote them.
    const rewritten = [
      [raw.claude, outClaude],
      [raw.codex, outCodex],
      [raw.filtered, outFiltered],
    ] as const;
    const tin = rewritten.reduce((n, [a]) => n + countTokens(a), 0);
    const tout = rewritten.reduce((n, [, b]) => n + countTokens(b), 0);
    expect(r.tokens).toMatchObject({ in: tin, out: tout });
    expect(r.runs).toBe(4);

    // The ledger, recounted line by line.
    const ledger: Line[] = readdirSync(state)
      .filter((n) => n.endsWith('.jsonl'))
      .flatMap((n) => readFileSync(join(state, n), 'utf8').split('\n'))
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line);
    const outs = ledger.filter((l) => l.e === 'out');
    const xs = ledger.filter((l) => l.e === 'x');
    const num = (v: unknown) => (typeof v === 'number' ? v : 0);
    expect(
      ledger
        .filter((l) => l.e === 'run')
        .map((l) => l.h ?? null)
        .sort(),
    ).toEqual(['claude-code', 'claude-code', 'codex', null].sort());

    // Host-capped: Claude Code and Codex would have cut their long outputs; the filtered run's
    // 9,000 lines (38,894 chars) are past Claude Code's 30,000 too.
    const view = (host: string, text: string) => countTokens(hostView(hostModel(host)!, text));
    expect(outs.map((o) => [o.h, o.hi]).sort()).toEqual(
      [
        ['claude-code', view('claude-code', raw.claude)],
        ['claude-code', view('claude-code', raw.filtered)],
        ['codex', view('codex', raw.codex)],
      ].sort(),
    );
    const cappedIn = outs.reduce((n, o) => n + num(o.hi ?? o.ti), 0);
    const cappedOut = outs.reduce((n, o) => n + num(o.ho ?? o.to), 0);
    const returned = xs.reduce((n, x) => n + num(x.tr), 0);
    const cappedReturned = xs.reduce((n, x) => n + num(x.hr ?? x.tr), 0);
    expect(returned).toBe(countTokens(raw.claude) + countTokens(slices[0]!) + countTokens(slices[1]!));
    expect(r.tokens.returned).toBe(returned);
    expect(r.capped).toMatchObject({
      in: cappedIn,
      out: cappedOut,
      saved: cappedIn - cappedOut,
      returned: cappedReturned,
      net: cappedIn - cappedOut - cappedReturned,
      outputsCapped: 3,
    });
    // The whole expand was shown by Claude Code as a preview too.
    expect(xs[0]).toMatchObject({
      h: 'claude-code',
      tr: countTokens(raw.claude),
      hr: view('claude-code', raw.claude),
    });
    expect(r.capped.measuredAgainst).toBe('vs host: what Claude Code, Codex show'); // printf rewrote nothing

    // Recall: the filter's one marker came back (twice: recalled once); the fallback's (fold) two, once.
    const recall = (c: string, f: string | null) => r.recall.find((x) => x.component === c && x.filter === f);
    expect(recall('cmdfilter', 'seq-head')).toMatchObject({
      markers: 1,
      expands: 2,
      recalled: 1,
      recallRate: 100,
    });
    const foldMarkers = ledger.filter((l) => l.e === 'ev' && l.a === 'rewrite' && l.c === 'fold' && l.k);
    expect(recall('fold', null)).toMatchObject({
      markers: foldMarkers.length,
      expands: 1,
      recalled: 1,
    });

    // Unfiltered: the two seq runs no filter matched (exact tokens: fold rewrote them) and the
    // printf run (never rewritten, so estimated from its bytes); the filtered seq run is not there.
    const discover = cg(['discover', '--json'], { storeDir: store });
    expect(discover.code).toBe(0);
    const d = JSON.parse(discover.out) as StatsReport['discover'];
    expect(d.rows).toEqual([
      {
        command: 'seq',
        runs: 2,
        bytes: Buffer.byteLength(raw.claude) + Buffer.byteLength(raw.codex),
        tokens: countTokens(raw.claude) + countTokens(raw.codex),
        estimated: 0,
        rewritten: 2,
        saved:
          countTokens(raw.claude) + countTokens(raw.codex) - countTokens(outClaude) - countTokens(outCodex),
      },
      { command: 'printf', runs: 1, bytes: 301, tokens: 76, estimated: 1, rewritten: 0, saved: 0 },
    ]);
    expect(d).toMatchObject({ commands: 2, runs: 3 });

    // The default view: one screen, the baseline named, both figures side by side.
    const table = cg(['stats'], { storeDir: store });
    const lines = table.out.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(24);
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(80);
    expect(lines[1]).toBe(r.capped.measuredAgainst);
    expect(table.out).toMatch(/\n {2}saved +[\d,]+ +[\d.]+% +[\d,]+ +[\d.]+%\n/);
    expect(cg(['discover'], { storeDir: store }).out).toMatch(/\n {2}seq +2 /);
  });
});
