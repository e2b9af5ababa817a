import { describe, expect, it } from 'vitest';
import { MARKER_SLOT, type Outcome } from '../../../src/component.js';
import { collapse } from '../../../src/components/collapse.js';
import { type FoldConfig, fold } from '../../../src/components/fold.js';
import { context, output } from '../../helpers.js';

const cfg = fold.defaults;

async function run(text: string, config: Partial<FoldConfig> = {}): Promise<Outcome> {
  return fold.run(output(text), { ...cfg, ...config }, context());
}

async function rewritten(text: string, config: Partial<FoldConfig> = {}): Promise<string> {
  const r = await run(text, config);
  if (r.kind !== 'rewrite') throw new Error(`expected a rewrite, got skip (${r.gate})`);
  expect(r.loss).toBe('whole');
  return r.text;
}

/** A service log: 3000 request lines of one template, an ERROR at line 1501, a few startup lines. */
function serviceLog(): string {
  const lines = ['service starting', 'config loaded from /etc/app.yaml', 'listening on :8080'];
  for (let i = 0; i < 3000; i++) {
    if (i === 1500)
      lines.push('2024-05-01 10:25:00 ERROR payment gateway timeout after 30000ms (order 99812)');
    lines.push(
      `2024-05-01 10:${String(i % 60).padStart(2, '0')}:00 INFO GET /api/items/${i % 97} 200 ${i % 50}ms`,
    );
  }
  lines.push('shutting down', 'bye');
  return `${lines.join('\n')}\n`;
}

describe('fold', () => {
  it('shows an ERROR in the middle of 3000 lines, which head and tail alone would hide', async () => {
    const text = await rewritten(serviceLog());
    expect(text).toContain('2024-05-01 10:25:00 ERROR payment gateway timeout after 30000ms (order 99812)');
    const collapsed = await collapse.run(output(serviceLog()), collapse.defaults, context());
    expect(collapsed.kind === 'rewrite' && collapsed.text).not.toContain('ERROR payment');
  });

  it('folds the lines of one template into one line with their count and the values that varied', async () => {
    const text = await rewritten(serviceLog());
    expect(text).toContain(
      '[×3000] 2024-05-01 10:{00..59}:00 INFO GET {/api/items/0|/api/items/1|/api/items/2|+61+} 200 {0ms|1ms|2ms|+47}\n',
    );
  });

  it('keeps head and tail verbatim and ends with a closing line holding the marker slot', async () => {
    const text = await rewritten(serviceLog());
    const lines = text.trimEnd().split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'service starting',
      'config loaded from /etc/app.yaml',
      'listening on :8080',
    ]);
    expect(lines.at(-3)).toBe('shutting down');
    expect(lines.at(-2)).toBe('bye');
    expect(lines.at(-1)).toMatch(
      /^\[3006 lines, \d+ shown, 1 templates folded(, \d+ omitted)?\] \u0000cg:marker\u0000$/,
    );
    expect(text.split(MARKER_SLOT)).toHaveLength(2);
    expect(text.endsWith('\n')).toBe(true);
  });

  it('shows a rare error template line by line with a line of context, and folds a frequent one', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 400; i++) lines.push(`tick ${i} ok`);
    lines[100] = 'before the failure';
    lines[101] = 'FAILED to open /data/shard-3: permission denied';
    lines[102] = 'after the failure';
    for (let i = 200; i < 260; i++) lines[i] = `warning: retrying request ${i}`;
    const text = await rewritten(lines.join('\n'), { max_tokens: 100 });
    expect(text).toContain(
      'before the failure\nFAILED to open /data/shard-3: permission denied\nafter the failure',
    );
    expect(text).toMatch(/^\[×60\] warning: retrying request \{200\.\.259\}$/m);
  });

  it('is deterministic and keeps CRLF line endings', async () => {
    const crlf = serviceLog().replaceAll('\n', '\r\n');
    const a = await rewritten(crlf);
    expect(await rewritten(crlf)).toBe(a);
    expect(a.replaceAll('\r\n', '')).not.toContain('\n');
  });

  it('is never more tokens than collapse on a text without error lines', async () => {
    const text = serviceLog().replace(/^.*ERROR.*\n/m, '');
    const tokens = context().tokens;
    const folded = await rewritten(text);
    const collapsed = await collapse.run(output(text), collapse.defaults, context());
    if (collapsed.kind !== 'rewrite') throw new Error('collapse skipped');
    expect(await tokens.count(folded)).toBeLessThanOrEqual(await tokens.count(collapsed.text));
  });

  it('skips outputs under max_tokens, too short to fold, or over max_bytes', async () => {
    expect(await run('a\nb\n')).toEqual({ kind: 'skip', gate: 'under max_tokens' });
    expect(await run(`${'x '.repeat(5000)}\n`, { max_tokens: 10 })).toEqual({
      kind: 'skip',
      gate: 'too few lines to fold',
    });
    expect(fold.applies!(output(serviceLog()), { ...cfg, max_bytes: 1000 })).toBe(false);
  });

  it('reads its config strictly', () => {
    expect(fold.parseConfig({ head_lines: 3 }).head_lines).toBe(3);
    expect(() => fold.parseConfig({ head_line: 3 })).toThrow(/head_line/);
    expect(() => fold.parseConfig({ signal_share: 2 })).toThrow(/signal_share/);
  });
});
