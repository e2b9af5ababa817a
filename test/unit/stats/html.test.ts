import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderHtml } from '../../../src/stats/html.js';
import { appendLines } from '../../../src/stats/ledger.js';
import { formatLine } from '../../../src/stats/line.js';
import { expectedKeys, figuresInHtml, mismatches } from '../../e2e/page-figures.js';
import { htmlLedger } from '../../e2e/stats-html-ledger.js';
import { report, tempLedger } from './helpers.js';

const NOW = new Date(2026, 10, 20, 15).getTime();
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function fixtureReport(top = 10) {
  const { loc } = tempLedger();
  dirs.push(dirname(loc.dir));
  await appendLines(loc, htmlLedger(NOW).map(formatLine));
  return report(loc, {}, top);
}

describe('the stats page', () => {
  it('prints every figure it takes from the report as the report has it, one for each row of each table', async () => {
    const r = await fixtureReport();
    const figures = figuresInHtml(renderHtml(r, { now: NOW }));
    expect(mismatches(figures, r)).toEqual([]);
    const keys = new Set(figures.map(([k]) => k));
    expect(expectedKeys(r).filter((k) => !keys.has(k))).toEqual([]);
    // The fixture fills every part: the check above is not over empty tables.
    expect([
      r.commands.length,
      r.hosts.length,
      r.recall.length,
      r.discover.rows.length,
      r.daily.length,
    ]).toEqual([5, 4, 2, 2, 6]);
  });

  it('shows markup in a command as text', async () => {
    const html = renderHtml(await fixtureReport(), { now: NOW });
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; run');
  });

  it('loads nothing when it is opened: no script, no stylesheet or image from elsewhere', async () => {
    const html = renderHtml(await fixtureReport(), { now: NOW });
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(/i);
    expect(html).not.toMatch(/<[a-z][^>]*\s(?:src|href|xlink:href|action)=/i);
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
  });

  it('draws a titled, described chart with axis labels for each view, its table beside it', async () => {
    const html = renderHtml(await fixtureReport(), { now: NOW });
    for (const id of ['time-chart', 'command-chart', 'host-chart', 'recall-chart', 'discover-chart']) {
      expect(html).toContain(`role="img" aria-labelledby="${id}-title ${id}-desc"`);
      expect(html).toMatch(
        new RegExp(`<title id="${id}-title">[^<]+</title>\\n<desc id="${id}-desc">[^<]+</desc>`),
      );
    }
    expect(html.match(/class="axis-label"/g)).toHaveLength(6); // the time chart has two axes
    expect(html.match(/<div class="pair(?: stacked)?"><figure><svg/g)).toHaveLength(5);
    // A week of days, one of them empty: seven columns, the last one today.
    const time = html.slice(
      html.indexOf('id="time-chart-title"'),
      html.indexOf('</svg>', html.indexOf('time-chart')),
    );
    expect(time.match(/<g class="col">/g)).toHaveLength(7);
    expect(time).toContain('<title>2026-11-20: ');
    // The too-aggressive line sits at 30 % of the recall scale.
    expect(html).toContain('too aggressive past 30%');
  });

  it('prints follow-the-reader colours: light by default, dark when the system prefers it', () => {
    const html = renderHtml(emptyReport(), { now: NOW });
    expect(html).toContain('<meta name="color-scheme" content="light dark">');
    expect(html).toMatch(/@media \(prefers-color-scheme: dark\) \{\s*:root \{[^}]*--bg: #0d1117/);
  });

  it('says where it looked when nothing is recorded yet', () => {
    const html = renderHtml(emptyReport(), { now: NOW });
    expect(html).toContain('Nothing recorded yet in <code>/nowhere/state</code>');
    expect(html).not.toContain('<svg');
  });
});

function emptyReport() {
  return {
    version: 1,
    filter: { since: null, session: null },
    runs: 0,
    outputs: { rewritten: 0, untouched: 0, untouchedBytes: 0 },
    tokens: { in: 0, out: 0, saved: 0, savedPct: null, returned: 0, model: 0, net: 0, netPct: null },
    expand: { requests: 0, hits: 0, misses: 0, hitRate: null, tokensReturned: 0 },
    estimated: { outputs: 0, tokensIn: 0, tokensOut: 0, saved: 0, events: 0, expands: 0, tokensReturned: 0 },
    components: [],
    commands: [],
    unmatched: [],
    daily: [],
    tokenizers: [],
    ledger: {
      dir: '/nowhere/state',
      files: 0,
      bytes: 0,
      lines: 0,
      badLines: 0,
      duplicates: 0,
      pendingSettled: 0,
      pendingLeft: 0,
      pendingBad: 0,
    },
    capped: {
      in: 0,
      out: 0,
      saved: 0,
      savedPct: null,
      returned: 0,
      model: 0,
      net: 0,
      netPct: null,
      outputsCapped: 0,
      measuredAgainst: 'raw',
    },
    hosts: [],
    recall: [],
    discover: { commands: 0, runs: 0, tokens: 0, rows: [] },
    requests: {
      count: 0,
      counted: 0,
      tokensIn: 0,
      tokensOut: 0,
      saved: 0,
      savedPct: null,
      cacheKnown: 0,
      cacheStable: 0,
      cacheStableRate: null,
      modelCalls: 0,
      modelTokensIn: 0,
      modelTokensOut: 0,
      net: 0,
      estimated: 0,
      estimatedTokensIn: 0,
      estimatedTokensOut: 0,
    },
    model: { calls: 0, tokensIn: 0, tokensOut: 0, tokens: 0, cacheRead: 0, cacheWrite: 0, estimatedCalls: 0 },
  } as const satisfies Parameters<typeof renderHtml>[0];
}
