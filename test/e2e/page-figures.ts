/**
 * Checking the stats page against `cg stats --json`: every element with data-key holds, as text, the
 * figure at that path of the report. The page prints numbers as `12,345`, `≈2,000`, `86.6%` or `–`
 * (no figure); each is read back to a number (or null) and compared with the JSON value.
 */

/** [data-key, text] of every keyed element of a page, read from its markup (no browser). */
export function figuresInHtml(html: string): [string, string][] {
  return [...html.matchAll(/data-key="([^"]+)">([^<]*)</g)].map((m) => [m[1]!, m[2]!]);
}

/** A figure as the page prints it, as a number; null for `–`; NaN for anything else. */
export function figure(text: string): number | null {
  const t = text.trim();
  if (t === '–') return null;
  return /^≈?-?[\d,]+(\.\d)?%?$/.test(t) ? Number(t.replace(/[≈,%]/g, '')) : Number.NaN;
}

export function valueAt(report: unknown, path: string): unknown {
  let at: unknown = report;
  for (const part of path.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/** One line per figure that differs from the report: `key: page "…", json …`. */
export function mismatches(figures: [string, string][], report: unknown): string[] {
  return figures.flatMap(([key, text]) => {
    const want = valueAt(report, key);
    return figure(text) === want
      ? []
      : [`${key}: page ${JSON.stringify(text)}, json ${JSON.stringify(want)}`];
  });
}

/** The keys a page of this report must carry: one figure of every row in every table. */
export function expectedKeys(report: {
  commands: unknown[];
  hosts: unknown[];
  recall: unknown[];
  discover: { rows: unknown[] };
  daily: unknown[];
}): string[] {
  return [
    'capped.saved',
    'capped.net',
    'tokens.saved',
    'runs',
    'expand.hits',
    ...report.commands.map((_, i) => `commands.${i}.cappedSaved`),
    ...report.hosts.map((_, i) => `hosts.${i}.cappedSaved`),
    ...report.recall.map((_, i) => `recall.${i}.recallRate`),
    ...report.discover.rows.map((_, i) => `discover.rows.${i}.tokens`),
    ...report.daily.map((_, i) => `daily.${i}.cappedSaved`),
  ];
}
