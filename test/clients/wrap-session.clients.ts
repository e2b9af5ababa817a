/**
 * The scripted session of issue 15 through `cg wrap` (issue 30, "Measure"): the real Claude Code
 * and Codex, each run once without cg and once through `cg wrap claude` / `cg wrap codex`, against
 * the scripted model server. Through the proxy, what the model server receives is the compacted
 * request body — what the model reads. Per step and host: the tool-result tokens without → with
 * cg (printed), at least half of them gone in total, no step larger than without cg, every marker
 * expanding (with the world's store) to exactly what the host showed without cg, and the same
 * error flags and exit codes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as claude from './claude-session.js';
import * as codex from './codex-session.js';
import {
  client,
  countTokens,
  expand,
  markersIn,
  sessionTable,
  skipReason,
  type TableRow,
  type World,
} from './harness.js';
import { SESSION } from './session.js';

/** What the checks need of one host's pair of sessions, in that host's terms. */
interface Pair {
  rawWorld: World;
  wrapWorld: World;
  raw: string[];
  wrapped: string[];
  /** A step's text with what differs between two worlds by construction taken out. */
  same(side: 'raw' | 'wrap', text: string): string;
  /** What a result gave the model to read (Claude Code may have saved a large one to a file). */
  opened(text: string): string;
  /** A step's error status as the model reads it: error flag and exit code. */
  status(side: 'raw' | 'wrap', i: number): string;
}

/** The steps whose output is a tool's (cg_expand returns an original, not an output). */
const STEPS = [...SESSION.entries()].filter(([, s]) => s.kind !== 'expand');

/**
 * Tokens per step, of each side's text with what differs between worlds by construction taken out
 * (paths, ids, timings: Codex's wall time alone moves a count by a few tokens from run to run).
 */
async function rows(p: Pair): Promise<TableRow[]> {
  const out: TableRow[] = [];
  for (const [i, s] of STEPS)
    out.push({
      label: s.label,
      without: await countTokens([p.same('raw', p.raw[i]!)]),
      with: await countTokens([p.same('wrap', p.wrapped[i]!)]),
    });
  return out;
}

function checks(title: () => string, pair: () => Pair): void {
  let table: TableRow[] = [];

  beforeAll(async () => {
    table = await rows(pair());
    process.stdout.write(sessionTable(title(), table));
  });

  it('gets a tool result for every step, without cg and through cg wrap', () => {
    expect(pair().raw).toHaveLength(SESSION.length);
    expect(pair().wrapped).toHaveLength(SESSION.length);
  });

  it('cuts the tool-result tokens the model reads by at least 50 %', () => {
    const without = table.reduce((n, r) => n + r.without, 0);
    const withCg = table.reduce((n, r) => n + r.with, 0);
    expect(withCg).toBeLessThanOrEqual(without * 0.5);
  });

  it('gives the model no step with more tokens than without cg', () => {
    const larger = table.filter((r) => r.with > r.without).map((r) => `${r.label}: ${r.without} → ${r.with}`);
    expect(larger).toEqual([]);
  });

  it('puts a marker in every step it changed, and every marker expands to what the host showed', () => {
    const p = pair();
    let keys = 0;
    for (const [i, s] of STEPS) {
      const shown = p.same('raw', p.raw[i]!);
      const found = markersIn(p.wrapped[i]!);
      if (p.same('wrap', p.wrapped[i]!) !== shown) expect(found.length, s.label).toBeGreaterThan(0);
      for (const key of found) {
        keys++;
        const original = expand(p.wrapWorld, key);
        expect(original, `${s.label}: ${key}`).toBeDefined();
        expect(p.same('wrap', original!), `${s.label}: ${key}`).toBe(shown);
      }
    }
    expect(keys).toBeGreaterThan(0);
  });

  it('hands the model the original through the cg_expand MCP tool, not compacted again', () => {
    const p = pair();
    const i = SESSION.findIndex((s) => s.kind === 'expand');
    const key = markersIn(p.wrapped.slice(0, i).join('\n'))[0];
    expect(key).toBeDefined();
    const original = expand(p.wrapWorld, key!)!.trimEnd();
    expect(p.opened(p.wrapped[i]!)).toContain(original);
  });

  it('keeps every error flag and exit code as the host reported them without cg', () => {
    const p = pair();
    for (const [i, s] of STEPS) expect(p.status('wrap', i), s.label).toBe(p.status('raw', i));
  });
}

describe.skipIf(skipReason('claude') !== undefined)(
  `Claude Code ${client('claude').version ?? ''}: the session through cg wrap claude`,
  () => {
    let raw: claude.Session;
    let wrapped: claude.Session;
    beforeAll(async () => {
      [raw, wrapped] = await Promise.all([
        claude.session(SESSION, { withCg: false, allow: claude.ALLOW }),
        claude.session(SESSION, { withCg: true, door: 'wrap', allow: claude.ALLOW }),
      ]);
      expect(wrapped.stderr).not.toMatch(/cg: wrap:/);
    });
    const exit = (t: string) => /^Exit code (\d+)/.exec(t)?.[1] ?? 'none';
    checks(
      () => `Claude Code ${client('claude').version} through cg wrap: tool-result tokens without → with cg`,
      () => ({
        rawWorld: raw.world,
        wrapWorld: wrapped.world,
        raw: raw.results.map((r) => r.text),
        wrapped: wrapped.results.map((r) => r.text),
        same: (side, text) => claude.same(side === 'raw' ? raw : wrapped, { text, isError: false }),
        opened: claude.shownOrPersisted,
        status: (side, i) => {
          const r = (side === 'raw' ? raw : wrapped).results[i]!;
          return `is_error ${r.isError}, exit ${exit(r.text)}`;
        },
      }),
    );
    it('shows each kept line of the outlined Read once, with its true line number, and the first line', () => {
      const i = SESSION.findIndex((s) => s.kind === 'read');
      claude.expectTrueOutline(wrapped.world, wrapped.results[i]!.text);
    });
  },
);

describe.skipIf(skipReason('codex') !== undefined)(
  `Codex ${client('codex').version ?? ''}: the session through cg wrap codex`,
  () => {
    let raw: codex.Session;
    let wrapped: codex.Session;
    beforeAll(async () => {
      [raw, wrapped] = await Promise.all([
        codex.session(SESSION, { withCg: false, storeWritable: true }),
        codex.session(SESSION, { withCg: true, door: 'wrap', storeWritable: true }),
      ]);
      expect(wrapped.stderr).not.toMatch(/cg: wrap:/);
    });
    checks(
      () => `Codex ${client('codex').version} through cg wrap: tool-result tokens without → with cg`,
      () => ({
        rawWorld: raw.world,
        wrapWorld: wrapped.world,
        raw: raw.results,
        wrapped: wrapped.results,
        same: (side, text) => codex.same(side === 'raw' ? raw : wrapped, text),
        opened: (text) => text,
        status: (side, i) => `exit ${codex.exitOf((side === 'raw' ? raw : wrapped).results[i]!) ?? 'none'}`,
      }),
    );
  },
);
