/**
 * `cg stats --html`: the report `cg stats --json` prints, as one self-contained page — no script,
 * nothing fetched, charts drawn as inline SVG (svg-chart.ts) — with tokens saved over time, by
 * command and by host, the recall of markers, and the commands worth a filter (`cg discover`).
 * Every chart has its figures as text in a table beside it; each figure taken straight from the
 * report carries data-key, its path in the --json output (`commands.0.cappedSaved`), so a test can
 * check the page against the JSON. Sums the page makes itself (a week of days, the recall of all
 * filters) carry no key. Pure: report in, HTML out.
 */
import { esc } from './html-escape.js';
import { type Cell, card, k, kn, n, p, pair, section, t, table } from './html-parts.js';
import { PAGE_STYLE } from './html-style.js';
import { label as recallLabel, TOO_AGGRESSIVE_PCT } from './recall.js';
import { bytesText, num, pctText, scope } from './render.js';
import { pct, type StatsReport } from './report.js';
import { type Bar, barChart, columnChart } from './svg-chart.js';
import { timeBuckets, type Unit } from './time-buckets.js';

export interface PageOptions {
  /** When the page is made (the time chart runs to this day); default now. */
  now?: number;
}

export function renderHtml(r: StatsReport, opts: PageOptions = {}): string {
  const now = opts.now ?? Date.now();
  const empty = r.runs === 0 && r.expand.requests === 0 && r.requests.count === 0;
  const body = empty
    ? [
        `<p class="empty">Nothing recorded yet in <code>${esc(r.ledger.dir)}</code>: run commands through cg (<code>cmd | cg</code>, <code>cg init</code> for an agent) and make this page again.</p>`,
      ]
    : [summary(r), overTime(r, now), byCommand(r), byHost(r), recall(r), discover(r)];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>cg stats · ${esc(scope(r))}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header>
<h1>cg stats</h1>
<p class="muted">${esc(scope(r))} · made ${esc(new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'))} from <code>${esc(r.ledger.dir)}</code> (${k('ledger.lines', num(r.ledger.lines))} ledger lines)</p>
${empty ? '' : `<p class="muted">${esc(r.capped.measuredAgainst)}</p>`}
</header>
<main>
${body.join('\n')}
</main>
<footer class="muted"><p>The same figures as <code>cg stats --json</code>${r.tokenizers.length ? `, counted with ${esc(r.tokenizers.join(', '))}` : ''}. Tokens saved are what cg's rewrites took out, markers and hints included; outputs cg left as they were are not in them.</p></footer>
</body>
</html>
`;
}

/** Markers shown and brought back, over every filter and component. */
function recallTotal(r: StatsReport): { markers: number; recalled: number; rate: number | null } {
  let markers = 0;
  let recalled = 0;
  for (const x of r.recall) {
    markers += x.markers;
    recalled += x.recalled;
  }
  return { markers, recalled, rate: pct(recalled, markers) };
}

function summary(r: StatsReport): string {
  const c = r.capped;
  const tk = r.tokens;
  const rc = recallTotal(r);
  const cards = [
    card(
      'Tokens saved',
      k('capped.saved', num(c.saved)),
      `${k('capped.savedPct', pctText(c.savedPct))} of ${k('capped.in', num(c.in))} tokens in`,
    ),
    card(
      'Net saved',
      k('capped.net', num(c.net)),
      `after ${k('capped.returned', num(c.returned))} given back by <code>cg expand</code>${c.model > 0 ? ` and ${k('capped.model', num(c.model))} for cg's model calls` : ''}`,
    ),
    card(
      'Runs',
      k('runs', num(r.runs)),
      `${kn('outputs.rewritten', r.outputs.rewritten, 'output')} rewritten`,
    ),
    card(
      'Recall',
      esc(pctText(rc.rate)),
      `${esc(num(rc.recalled))} of ${esc(num(rc.markers))} marker${rc.markers === 1 ? '' : 's'} came back through <code>cg expand</code>`,
    ),
    card(
      'Keys found',
      k('expand.hits', num(r.expand.hits)),
      `of ${k('expand.requests', num(r.expand.requests))} <code>cg expand</code> request${r.expand.requests === 1 ? '' : 's'} (${k('expand.hitRate', pctText(r.expand.hitRate))})`,
    ),
  ];
  if (r.requests.count > 0) {
    cards.push(
      card(
        'Proxy requests',
        k('requests.saved', num(r.requests.saved)),
        `tokens saved in ${kn('requests.count', r.requests.count, 'request')} (${k('requests.savedPct', pctText(r.requests.savedPct))})`,
      ),
    );
  }
  const twoColumns = r.hosts.some((h) => h.host !== null && h.outputs > 0);
  const row = (
    label: string,
    field: 'in' | 'out' | 'saved' | 'returned' | 'model' | 'net',
    pctField?: 'savedPct' | 'netPct',
  ): Cell[] => [
    t(label),
    n(c[field], `capped.${field}`),
    ...(pctField ? [p(c[pctField], `capped.${pctField}`)] : [t('')]),
    ...(twoColumns
      ? [n(tk[field], `tokens.${field}`), ...(pctField ? [p(tk[pctField], `tokens.${pctField}`)] : [t('')])]
      : []),
  ];
  const rows = [
    row('tokens in', 'in'),
    row('tokens out', 'out'),
    row('saved', 'saved', 'savedPct'),
    row('given back', 'returned'),
  ];
  if (r.model.calls > 0) rows.push(row("cg's model calls", 'model'));
  rows.push(row('net saved', 'net', 'netPct'));
  const head = twoColumns ? ['', 'vs host', '%', 'raw', '%'] : ['', 'tokens', '%'];
  const totals = table(
    twoColumns ? 'Totals against what the host would have shown, and against the raw output' : 'Totals',
    head,
    rows,
  );
  return section(
    'summary',
    'Summary',
    'Tokens of the outputs cg rewrote, before and after, and what came back through <code>cg expand</code>.',
    `<dl class="cards">${cards.join('')}</dl>${totals}${notes(r)}`,
  );
}

/** What is not in the figures: untouched outputs, estimates, records still pending or unreadable. */
function notes(r: StatsReport): string {
  const out: string[] = [];
  if (r.outputs.untouched > 0) {
    out.push(
      `${kn('outputs.untouched', r.outputs.untouched, 'output')} (${esc(bytesText(r.outputs.untouchedBytes))}) passed through as they were.`,
    );
  }
  const e = r.estimated;
  if (e.outputs + e.events + e.expands > 0) {
    out.push(
      `<span class="warn">Estimated from bytes, not in the figures above: ≈${k('estimated.tokensIn', num(e.tokensIn))} → ≈${k('estimated.tokensOut', num(e.tokensOut))} tokens in ${kn('estimated.outputs', e.outputs, 'output')}.</span>`,
    );
  }
  if (r.ledger.pendingLeft > 0) {
    out.push(
      `<span class="warn">${kn('ledger.pendingLeft', r.ledger.pendingLeft, 'run')} still being counted elsewhere, not included.</span>`,
    );
  }
  if (r.ledger.badLines + r.ledger.pendingBad > 0) {
    out.push(
      `<span class="warn">${k('ledger.badLines', num(r.ledger.badLines))} unreadable ledger lines and ${k('ledger.pendingBad', num(r.ledger.pendingBad))} unreadable pending records were skipped.</span>`,
    );
  }
  return out.length ? `<ul class="muted">${out.map((x) => `<li>${x}</li>`).join('')}</ul>` : '';
}

const UNIT_AXIS: Record<Unit, string> = { day: 'day', week: 'week (from Monday)', month: 'month' };

function overTime(r: StatsReport, now: number): string {
  const { unit, buckets } = timeBuckets(r.daily, r.filter.since, now);
  const intro = `Per ${unit}, against what the host would have shown; the table lists the ${unit}s with activity.`;
  if (buckets.length === 0)
    return section('time', 'Tokens saved over time', intro, '<p class="empty">No runs in this window.</p>');
  const bars: Bar[] = buckets.map((b) => ({
    label: b.label,
    value: b.cappedSaved,
    text: num(b.cappedSaved),
  }));
  const best = buckets.reduce((a, b) => (b.cappedSaved > a.cappedSaved ? b : a));
  const chart = columnChart(bars, {
    id: 'time-chart',
    title: `Tokens saved per ${unit}`,
    desc: `${buckets.length} ${unit}s from ${buckets[0]!.label} to ${buckets[buckets.length - 1]!.label}, ${num(r.capped.saved)} tokens saved in all; the most in one ${unit}: ${num(best.cappedSaved)} (${best.label}).`,
    axis: 'tokens saved',
    axisX: UNIT_AXIS[unit],
  });
  const rows = buckets
    .filter((b) => b.days.length > 0)
    .map((b) => {
      // A period of one active day is that day's row in the report; a longer one is a sum.
      const day = b.days.length === 1 ? `daily.${b.days[0]}` : undefined;
      return [
        t(b.label),
        n(b.runs, day && `${day}.runs`),
        n(b.cappedSaved, day && `${day}.cappedSaved`),
        n(b.saved, day && `${day}.saved`),
      ];
    });
  const foot = [
    t('all'),
    n(r.runs, 'runs'),
    n(r.capped.saved, 'capped.saved'),
    n(r.tokens.saved, 'tokens.saved'),
  ];
  return section(
    'time',
    'Tokens saved over time',
    intro,
    pair(
      chart,
      table(`Tokens saved per ${unit}`, [unit, 'runs', 'saved', 'raw saved'], rows, foot),
      `tokens saved per ${unit}, table`,
    ),
  );
}

function byCommand(r: StatsReport): string {
  const intro = `The top ${num(r.commands.length)} commands by tokens saved against what the host would have shown (<code>--top N</code> for more).`;
  if (r.commands.length === 0)
    return section('commands', 'By command', intro, '<p class="empty">No output was rewritten yet.</p>');
  const chart = barChart(
    r.commands.map((c) => ({ label: c.command, value: c.cappedSaved, text: num(c.cappedSaved) })),
    {
      id: 'command-chart',
      title: 'Tokens saved by command',
      desc: `${r.commands.map((c) => `${c.command}: ${num(c.cappedSaved)}`).join('; ')}.`,
      axis: 'tokens saved',
    },
  );
  const rows = r.commands.map((c, i) => [
    t(c.command, 'cmd'),
    n(c.outputs, `commands.${i}.outputs`),
    n(c.cappedSaved, `commands.${i}.cappedSaved`),
    p(c.cappedSavedPct, `commands.${i}.cappedSavedPct`),
    n(c.saved, `commands.${i}.saved`),
  ]);
  return section(
    'commands',
    'By command',
    intro,
    pair(
      chart,
      table('Tokens saved by command', ['command', 'outputs', 'saved', '%', 'raw saved'], rows),
      'tokens saved by command, table',
    ),
  );
}

function byHost(r: StatsReport): string {
  const hosts = r.hosts;
  const intro =
    'Which agent host ran cg (<code>CG_HOST</code>, or the variable the host sets), and through which door.';
  if (hosts.length === 0) return section('hosts', 'By host', intro, '<p class="empty">No runs recorded.</p>');
  const name = (h: (typeof hosts)[number]) => h.host ?? 'no host (raw)';
  const chart = barChart(
    hosts.map((h) => ({ label: name(h), value: h.cappedSaved, text: num(h.cappedSaved) })),
    {
      id: 'host-chart',
      title: 'Tokens saved by host',
      desc: `${hosts.map((h) => `${name(h)}: ${num(h.cappedSaved)}`).join('; ')}.`,
      axis: 'tokens saved',
    },
  );
  const rows = hosts.map((h, i) => [
    t(name(h)),
    n(h.runs, `hosts.${i}.runs`),
    t(
      Object.entries(h.via)
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .map(([door, count]) => `${door} ${num(count)}`)
        .join(', '),
    ),
    n(h.outputs, `hosts.${i}.outputs`),
    n(h.outputsCapped, `hosts.${i}.outputsCapped`),
    n(h.cappedSaved, `hosts.${i}.cappedSaved`),
    p(h.cappedSavedPct, `hosts.${i}.cappedSavedPct`),
    n(h.saved, `hosts.${i}.saved`),
  ]);
  const shows = hosts.filter((h) => h.shows).map((h) => `<li>${esc(h.shows!)}</li>`);
  return section(
    'hosts',
    'By host',
    intro,
    pair(
      chart,
      table(
        'Tokens saved by host',
        ['host', 'runs', 'doors', 'outputs', 'cut by host', 'saved', '%', 'raw saved'],
        rows,
      ),
      'tokens saved by host, table',
      true,
    ) + (shows.length ? `<ul class="muted">${shows.join('')}</ul>` : ''),
  );
}

function recall(r: StatsReport): string {
  const rows = r.recall;
  const intro = `How often a marker came back through <code>cg expand</code>, per filter and component: a filter past ${TOO_AGGRESSIVE_PCT}% (of at least a few markers) cuts what the agent then needs.`;
  if (rows.length === 0)
    return section('recall', 'Recall', intro, '<p class="empty">No markers shown yet.</p>');
  const chart = barChart(
    rows.map((x) => ({ label: recallLabel(x), value: x.recallRate ?? 0, text: pctText(x.recallRate) })),
    {
      id: 'recall-chart',
      title: 'Recall: share of markers expanded',
      desc: `${rows.map((x) => `${recallLabel(x)}: ${pctText(x.recallRate)} of ${num(x.markers)} markers`).join('; ')}.`,
      axis: 'markers that came back (%)',
    },
    {
      max: 100,
      mark: { value: TOO_AGGRESSIVE_PCT, label: `too aggressive past ${TOO_AGGRESSIVE_PCT}%` },
      tick: (v) => `${v}%`,
    },
  );
  const cells = rows.map((x, i) => [
    t(recallLabel(x)),
    n(x.markers, `recall.${i}.markers`),
    n(x.recalled, `recall.${i}.recalled`),
    n(x.expands, `recall.${i}.expands`),
    n(x.tokensReturned, `recall.${i}.tokensReturned`),
    p(x.recallRate, `recall.${i}.recallRate`),
    x.tooAggressive ? t('too aggressive', 'warn') : t(''),
  ]);
  return section(
    'recall',
    'Recall',
    intro,
    pair(
      chart,
      table(
        'Markers shown and expanded',
        ['filter', 'markers', 'came back', 'expands', 'tokens back', 'recall', ''],
        cells,
      ),
      'recall, table',
      true,
    ),
  );
}

function discover(r: StatsReport): string {
  const d = r.discover;
  const intro = `Commands whose output no filter handled, by tokens (<code>cg discover</code>): the filters worth writing next. ≈: estimated from bytes.`;
  if (d.rows.length === 0) {
    return section(
      'discover',
      'Commands worth a filter',
      intro,
      '<p class="empty">Every command cg saw had a filter, or was too short to need one.</p>',
    );
  }
  const tokens = (x: (typeof d.rows)[number]) => `${x.estimated > 0 ? '≈' : ''}${num(x.tokens)}`;
  const chart = barChart(
    d.rows.map((x) => ({ label: x.command, value: x.tokens, text: tokens(x) })),
    {
      id: 'discover-chart',
      title: 'Tokens of commands no filter handled',
      desc: `${d.rows.map((x) => `${x.command}: ${tokens(x)} tokens in ${num(x.runs)} runs`).join('; ')}.`,
      axis: 'tokens as printed',
    },
  );
  const rows = d.rows.map((x, i) => [
    t(x.command, 'cmd'),
    n(x.runs, `discover.rows.${i}.runs`),
    { text: tokens(x), numeric: true, key: `discover.rows.${i}.tokens` },
    { text: bytesText(x.bytes), numeric: true },
    x.rewritten > 0
      ? { text: `${num(x.rewritten)}× ${pctText(pct(x.saved, x.tokens))}`, numeric: true }
      : { text: '–', numeric: true },
  ]);
  const shown = `${kn('discover.runs', d.runs, 'output')}, ${kn('discover.tokens', d.tokens, 'token')} in ${kn('discover.commands', d.commands, 'command')}`;
  return section(
    'discover',
    'Commands worth a filter',
    `${intro} ${shown}; <code>cg filters show NAME</code> shows a filter to start from.`,
    pair(
      chart,
      table('Commands no filter handled', ['command', 'runs', 'tokens', 'bytes', 'generic cut'], rows),
      'commands worth a filter, table',
    ),
  );
}
