/**
 * A ledger with something in every part of the stats page: a week of runs through three hosts
 * (one whose cap cut an output), commands that got a filter and commands that did not, markers
 * expanded (one filter too often), a missed key, an estimated output and a proxy request, and a
 * command whose text is markup. Written through the ledger's own writer, as cg would.
 */
import { appendLines } from '../../src/stats/ledger.js';
import {
  type EvLine,
  formatLine,
  type LedgerLine,
  type OutLine,
  type RunLine,
} from '../../src/stats/line.js';
import { ledgerLocation } from '../../src/stats/paths.js';

const DAY = 86_400_000;
const key = (n: number) => n.toString(16).padStart(16, '0');

/** Grouped as `<img src=x onerror=alert(1)> run`: markup the page must show as text. */
export const HOSTILE_COMMAND = `"<img src=x onerror=alert(1)>" run --fast`;

export function htmlLedger(now: number): LedgerLine[] {
  const lines: LedgerLine[] = [];
  let runId = 0;
  const run = (t: number, cmd: string, h: string | undefined, via: string, extra: Partial<RunLine> = {}) => {
    const r = `r${runId++}`;
    lines.push({
      t,
      r,
      e: 'run',
      fmt: 'text',
      tk: 'o200k',
      cmd,
      n: 1,
      rw: 1,
      ub: 0,
      via,
      ...(h ? { h } : {}),
      ...extra,
    });
    return r;
  };
  const out = (t: number, r: string, cmd: string, ti: number, to: number, extra: Partial<OutLine> = {}) =>
    lines.push({ t, r, e: 'out', o: 'stdin', cmd, bi: ti * 4, bo: to * 4, ti, to, ...extra });
  const ev = (t: number, r: string, c: string, a: string, extra: Partial<EvLine> = {}) =>
    lines.push({ t, r, e: 'ev', c, a, o: 'stdin', bi: 400, bo: 40, ...extra });

  let k = 0;
  for (let d = 6; d >= 0; d--) {
    if (d === 4) continue; // a day with nothing: a gap in the chart
    const t = now - d * DAY - 3_600_000;
    // pytest through Claude Code's hook: its cap would have cut the first day's big output.
    const r1 = run(t, 'pytest -q', 'claude-code', 'hook');
    const big = d === 6;
    out(t, r1, 'pytest -q', big ? 40_000 : 3_000 + d * 100, 300, {
      h: 'claude-code',
      k: key(++k),
      ...(big ? { hi: 7_500 } : {}),
    });
    ev(t, r1, 'cmdfilter', 'rewrite', { f: 'pytest', cmd: 'pytest -q', ti: 3_000, to: 300, k: key(k) });
    // git diff through Codex: a filter that is expanded on most days (too aggressive).
    const r2 = run(t + 1000, 'git diff', 'codex', 'hook');
    out(t + 1000, r2, 'git diff', 2_000, 200, { h: 'codex', k: key(++k) });
    ev(t + 1000, r2, 'cmdfilter', 'rewrite', {
      f: 'git-diff',
      cmd: 'git diff',
      ti: 2_000,
      to: 200,
      k: key(k),
    });
    if (d % 2 === 0) lines.push({ t: t + 2000, r: `x${k}`, e: 'x', k: key(k), hit: 1, b: 800, tr: 200 });
    // A command no filter handled, piped by hand: a generic component still cut it.
    const r3 = run(t + 3000, 'terraform plan', undefined, 'pipe');
    out(t + 3000, r3, 'terraform plan', 1_500, 500, { nf: 1 });
    ev(t + 3000, r3, 'cmdfilter', 'skip', { cmd: 'terraform plan', why: 'no filter matches', ro: 1 });
    ev(t + 3000, r3, 'collapse', 'rewrite', { ti: 1_500, to: 500 });
  }
  const t = now - 3_600_000;
  // One no filter handled and nothing rewrote (its tokens are estimated from bytes).
  const r4 = run(t, 'make all', undefined, 'pipe', { rw: 0, ub: 8_000 });
  ev(t, r4, 'cmdfilter', 'skip', { cmd: 'make all', why: 'no filter matches', bi: 8_000 });
  // Markup in a command, a missed key, an estimated output and a proxy request.
  const r5 = run(t + 100, HOSTILE_COMMAND, 'gemini', 'hook');
  out(t + 100, r5, HOSTILE_COMMAND, 900, 100, { h: 'gemini' });
  lines.push({ t: t + 200, r: 'xmiss', e: 'x', k: key(9999), hit: 0, b: 0, tr: 0 });
  const r6 = run(t + 300, 'ls -lR', undefined, 'pipe');
  out(t + 300, r6, 'ls -lR', 5_000, 50, { est: 1 });
  lines.push({
    t: t + 400,
    r: 'q1',
    e: 'req',
    fmt: 'anthropic',
    bi: 40_000,
    bo: 20_000,
    ti: 10_000,
    to: 5_000,
  });
  return lines;
}

/** Writes the ledger under `stateDir` (what CG_STATE_DIR points at). */
export async function writeHtmlLedger(stateDir: string, now: number): Promise<void> {
  await appendLines(ledgerLocation({ CG_STATE_DIR: stateDir }), htmlLedger(now).map(formatLine));
}
