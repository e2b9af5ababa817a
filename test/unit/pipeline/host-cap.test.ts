// The host gate (src/pipeline/host-cap.ts): a shell output cg hands an agent host is never more
// tokens than the host itself would have shown of the original, keeping what matters of it; a tool
// error keeps every failure line even past that (DESIGN §1.5), and one cg left alone stays verbatim.
import { describe, expect, it } from 'vitest';
import { hasFailureSignal } from '../../../src/dsl/failure-lines.js';
import { compactText } from '../../../src/engine.js';
import { CLAUDE_LIMIT } from '../../../src/hosts/claude/limits.js';
import { CODEX_LIMIT } from '../../../src/hosts/codex/limits.js';
import { hostCaps, hostView } from '../../../src/hosts/limits.js';
import { OPENCODE_LIMIT } from '../../../src/hosts/opencode/limits.js';
import { fitLines } from '../../../src/text/fit-lines.js';
import { createTokens } from '../../../src/tokens.js';
import { MemoryStore } from '../../memory-store.js';

const tokens = createTokens('o200k');
const count = (t: string) => tokens.count(t);

/** A 300 KB service log: info lines, a few warnings and errors at known places, a summary last. */
function bigLog(): string {
  const lines: string[] = [];
  for (let i = 0; i < 4000; i++) {
    if (i % 997 === 500)
      lines.push(
        `2024-05-01T10:${String(i % 60).padStart(2, '0')}:00 ERROR db pool exhausted after ${i} waits (src/db/pool.py:${i})`,
      );
    else if (i % 1499 === 700) lines.push(`2024-05-01T10:00:00 WARN slow request id=${i} took ${i} ms`);
    else
      lines.push(
        `2024-05-01T10:00:${String(i % 60).padStart(2, '0')} INFO GET /api/items/${i} 200 ${i % 17}ms user=${(i * 7919) % 1000} trace=${(i * 104729).toString(16)}`,
      );
  }
  lines.push('done: 4000 requests, 4 errors, 3 warnings');
  return `${lines.join('\n')}\n`;
}

describe('fitLines', () => {
  it('keeps the summary, error and warning lines and locations within the budget, in order', async () => {
    const log = bigLog();
    const r = await fitLines(log, { budget: 600, count });
    expect(await count(r.text)).toBeLessThanOrEqual(600);
    const kept = r.text.split('\n');
    for (const l of log.split('\n').filter((l) => / (ERROR|WARN) /.test(l))) expect(kept).toContain(l);
    expect(kept).toContain('done: 4000 requests, 4 errors, 3 warnings');
    expect(r.text).toMatch(/^\.\.\. \(\d+ lines omitted\)$/m);
    // In the log's order: each kept line is found after the one before it.
    let at = 0;
    for (const l of kept.filter((l) => l !== '' && !l.startsWith('... ('))) {
      at = log.indexOf(`${l}\n`, at);
      expect(at).toBeGreaterThanOrEqual(0);
    }
  });

  it('keeps every line it must even past the budget, and says it went over', async () => {
    const text = Array.from(
      { length: 200 },
      (_, i) => `FAILED tests/test_x.py::test_${i} - AssertionError: ${i}`,
    ).join('\n');
    const r = await fitLines(text, { budget: 50, count, mustKeep: hasFailureSignal });
    expect(r.over).toBe(true);
    expect(r.kept).toBe(200);
  });
});

describe('the host gate in the pipeline', () => {
  // Stages that leave a log whole (format) or keep more of it than the host's preview (shell: fold).
  for (const components of ['format', 'toon,format,cmdfilter,fold,collapse']) {
    it(`cuts a 300 KB log to no more tokens than Claude Code would have shown (${components}), the marker giving it back`, async () => {
      const log = bigLog();
      const store = new MemoryStore();
      const preview = await count(hostView(CLAUDE_LIMIT, log));
      const r = await compactText(log, { components, store, tokens, command: 'cat big.log', host: 'claude' });
      expect(r.changed).toBe(true);
      expect(await count(r.output)).toBeLessThanOrEqual(preview);
      expect(r.output).toContain('done: 4000 requests, 4 errors, 3 warnings');
      expect(r.output).toMatch(/ERROR db pool exhausted after/);
      const keys = [...r.output.matchAll(/<<cg:([0-9a-f]{16})>>/g)].map((m) => m[1]!);
      expect(keys).toHaveLength(1);
      expect(String(await store.get(keys[0]!))).toBe(log);
      // Where the stages left it over the host's view, the gate is what cut it.
      if (components === 'format')
        expect(r.events.find((e) => e.component === 'host_cap')?.action).toBe('rewrite');
    });
  }

  it('leaves an output the host shows whole, and any output without a known host, as the stages made it', async () => {
    const small = bigLog().split('\n').slice(0, 100).join('\n');
    const a = await compactText(small, {
      components: 'format',
      store: new MemoryStore(),
      tokens,
      command: 'cat x.log',
      host: 'codex',
    });
    expect(a.events.some((e) => e.component === 'host_cap')).toBe(false);
    const log = bigLog();
    const b = await compactText(log, {
      components: 'format',
      store: new MemoryStore(),
      tokens,
      command: 'cat big.log',
    });
    expect(b.events.some((e) => e.component === 'host_cap')).toBe(false);
  });

  it('fits Codex’s larger view: more of the log stays than in Claude Code’s', async () => {
    const log = bigLog();
    const codex = await compactText(log, {
      components: 'format',
      store: new MemoryStore(),
      tokens,
      command: 'cat big.log',
      host: 'codex',
    });
    const claude = await compactText(log, {
      components: 'format',
      store: new MemoryStore(),
      tokens,
      command: 'cat big.log',
      host: 'claude-code',
    });
    expect(await count(codex.output)).toBeLessThanOrEqual(await count(hostView(CODEX_LIMIT, log)));
    expect(await count(codex.output)).toBeGreaterThan(await count(claude.output));
  });

  it('holds an output of many short lines to OpenCode’s 2,000-line view, though it is under its byte cap', async () => {
    const listing = Array.from({ length: 2_500 }, (_, i) => `./src/m${i % 40}/f${i}.ts`).join('\n');
    expect(Buffer.byteLength(listing)).toBeLessThan(OPENCODE_LIMIT.inline);
    expect(hostCaps(OPENCODE_LIMIT, listing, Buffer.byteLength(listing))).toBe(true);
    const r = await compactText(listing, {
      components: 'format',
      store: new MemoryStore(),
      tokens,
      command: 'find . -name "*.ts"',
      host: 'opencode',
    });
    expect(r.events.some((e) => e.component === 'host_cap' && e.action === 'rewrite')).toBe(true);
    expect(await count(r.output)).toBeLessThanOrEqual(await count(hostView(OPENCODE_LIMIT, listing)));
  });
});
