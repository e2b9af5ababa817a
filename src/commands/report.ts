/**
 * What cg says about its own decisions: one --verbose line per component decision, and the
 * --explain table (per component: outputs rewritten/skipped/reverted/failed, bytes in → out, and
 * the whole run's tokens before and after, counted exactly because the user asked).
 */
import type { PipelineEvent } from '../pipeline/run.js';
import { createTokens, type TokenizerName } from '../tokens.js';

export function verboseLine(e: PipelineEvent): string {
  const who = `[${e.component}] ${e.output === '*' ? 'all outputs' : e.output}`;
  switch (e.action) {
    case 'rewrite': {
      const note = e.note ? ` (${e.note})` : '';
      const key = e.key ? ` <<cg:${e.key}>>` : '';
      return `${who}: rewrote ${e.bytesIn} → ${e.bytesOut} bytes, loss ${e.loss}${note}${key}`;
    }
    case 'skip':
      return `${who}: skipped: ${e.reason}`;
    case 'revert':
      return `${who}: reverted: ${e.reason}${e.note ? ` (${e.note})` : ''}`;
    case 'fail':
      return `${who}: failed and was reverted: ${e.reason}`;
  }
}

interface Row {
  component: string;
  rewrite: number;
  skip: number;
  revert: number;
  fail: number;
  bytesIn: number;
  bytesOut: number;
}

export async function explainTable(
  events: readonly PipelineEvent[],
  input: string,
  output: string,
  configured: TokenizerName,
  flag?: TokenizerName,
): Promise<string> {
  const rows = new Map<string, Row>();
  for (const e of events) {
    let row = rows.get(e.component);
    if (!row) {
      row = { component: e.component, rewrite: 0, skip: 0, revert: 0, fail: 0, bytesIn: 0, bytesOut: 0 };
      rows.set(e.component, row);
    }
    if (e.output !== '*') row[e.action]++;
    if (e.action === 'rewrite') {
      row.bytesIn += e.bytesIn;
      row.bytesOut += e.bytesOut;
    }
  }
  const header = ['component', 'rewrote', 'skipped', 'reverted', 'failed', 'bytes in', 'bytes out'];
  const body = [...rows.values()].map((r) => [
    r.component,
    String(r.rewrite),
    String(r.skip),
    String(r.revert),
    String(r.fail),
    String(r.bytesIn),
    String(r.bytesOut),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const tokens = createTokens(flag ?? configured);
  const before = await tokens.count(input);
  const after = await tokens.count(output);
  const saved = before - after;
  const pct = before > 0 ? ((saved / before) * 100).toFixed(1) : '0.0';
  return [
    line(header),
    ...body.map(line),
    `tokens (${tokens.name}): ${before} → ${after}, saved ${saved} (${pct}%)`,
    '',
  ].join('\n');
}
