import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { cg, cgAsync } from './run-cg.js';

const file = (i: number) =>
  Array.from({ length: 150 }, (_, k) => `module${i} line ${k}: let x${k} = f(${k});`).join('\n');

function body(turns: number, prefix = 't') {
  const messages: unknown[] = [{ role: 'user', content: 'Tidy the modules' }];
  for (let i = 0; i < turns; i++) {
    const id = `${prefix}${i}`;
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: `/m${i}.rs` } }],
    });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: file(i) }] });
  }
  return JSON.stringify({ model: 'claude-sonnet-4', max_tokens: 100, messages });
}

const outputsOf = (out: string) =>
  (JSON.parse(out).messages as { content: unknown }[]).flatMap((m) =>
    Array.isArray(m.content)
      ? m.content.filter((b) => b.type === 'tool_result').map((b) => (b as { content: string }).content)
      : [],
  );

describe('cg --session', () => {
  it('replays the outputs of earlier turns byte for byte, and records under CG_STATE_DIR/sessions', () => {
    const state = tempDir();
    const storeDir = tempDir();
    const env = { CG_STATE_DIR: state };
    const config = { env, storeDir };
    const a = cg(['--preset', 'agent', '--session', 'demo', '-v'], { input: body(3), ...config });
    expect(a.code).toBe(0);
    expect(a.stderr).toMatch(/session demo: 0 outputs replayed as sent/);
    const b = cg(['--preset', 'agent', '--session', 'demo', '-v'], { input: body(4), ...config });
    expect(b.stderr).toMatch(/session demo: 3 outputs replayed as sent/);
    expect(outputsOf(b.out).slice(0, 3)).toEqual(outputsOf(a.out));
    expect(readdirSync(join(state, 'sessions')).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    // CG_SESSION names the same session.
    const c = cg(['--preset', 'agent', '-v'], {
      input: body(4),
      env: { ...env, CG_SESSION: 'demo' },
      storeDir,
    });
    expect(c.stderr).toMatch(/session demo: 4 outputs replayed as sent/);
  });

  it('reads and writes no record with --no-session', () => {
    const state = tempDir();
    const r = cg(['--preset', 'agent', '--no-session'], { input: body(3), env: { CG_STATE_DIR: state } });
    expect(r.code).toBe(0);
    expect(existsSync(join(state, 'sessions'))).toBe(false);
  });

  it('loses no decision when several cg processes write one session at once', async () => {
    const state = tempDir();
    const storeDir = tempDir();
    const runs = Array.from({ length: 6 }, (_, p) =>
      cgAsync(['--preset', 'agent', '--session', 'shared'], {
        input: body(2, `p${p}-`),
        env: { CG_STATE_DIR: state },
        storeDir,
      }),
    );
    expect((await Promise.all(runs)).map((r) => r.code)).toEqual(Array(6).fill(0));
    const [file] = readdirSync(join(state, 'sessions')).filter((f) => f.endsWith('.json'));
    const record = JSON.parse(readFileSync(join(state, 'sessions', file!), 'utf8'));
    expect(Object.keys(record.outputs).sort()).toEqual(
      Array.from({ length: 6 }, (_, p) => [`p${p}-0`, `p${p}-1`])
        .flat()
        .sort(),
    );
  });

  it('never re-sends a marker whose original is gone: a replayed decision is stashed again from the request', () => {
    const state = tempDir();
    const storeDir = tempDir();
    const config = { env: { CG_STATE_DIR: state }, storeDir };
    const args = ['-p', 'agent', '--session', 'S1'];
    const first = cg(args, { input: body(8), ...config });
    const markers = (out: string) => [...out.matchAll(/<<cg:([0-9a-f]{16})>>/g)].map((m) => m[1]!);
    expect(markers(first.out).length).toBeGreaterThan(0);
    expect(cg(['store', 'clear'], config).code).toBe(0);
    const again = cg([...args, '-v'], { input: body(8), ...config });
    expect(again.code).toBe(0);
    // Byte for byte what was sent before (the provider's cache still matches), and every marker expands.
    expect(again.out).toBe(first.out);
    const original = outputsOf(body(8));
    for (const key of markers(again.out)) {
      const expanded = cg(['expand', key], config);
      expect(expanded.code, `cg expand ${key}`).toBe(0);
      expect(original).toContain(expanded.out);
    }
    expect(again.stderr).toMatch(/session S1: \d+ originals stashed again from the request/);
  });
});
