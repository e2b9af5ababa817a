/**
 * The sandbox's heavy cases (see sandbox.test.ts for the rest): megabytes of input with a helper call
 * per line, programs in parallel, the default 2 s budget spent in full, and every way a program can
 * loop, allocate or recurse. Time is checked only as the program's own CPU time, never the wall.
 */
import { describe, expect, it } from 'vitest';
import { runFilterProgram } from '../../../src/llm/sandbox.js';
import { expectHealthy, FAST, LINE_FILTER, LOG, reasonOf, text } from './sandbox-cases.js';

describe('heavy runs: large inputs, parallel programs, whole budgets', () => {
  it('processes a 5 MB input with a helper call per line', async () => {
    const lines = Array.from({ length: 100_000 }, (_, i) =>
      i % 97 === 0 ? `line ${i} ERROR something broke here` : `line ${i} ok ${'.'.repeat(40)}`,
    );
    const input = lines.join('\n');
    expect(input.length).toBeGreaterThan(5_000_000);
    const r = await runFilterProgram(LINE_FILTER, input, '');
    expect(text(r)).toBe(lines.filter((l) => l.includes('ERROR')).join('\n'));
  });

  it('runs several programs in parallel, each with its own answer', async () => {
    const runs = await Promise.all([
      runFilterProgram('function filter(t) { return t + 1; }', 'a', ''),
      runFilterProgram('function filter(t) { for (;;) {} }', 'b', '', FAST),
      runFilterProgram('function filter(t, q) { return q + t; }', 'c', 'q'),
      runFilterProgram(LINE_FILTER, LOG, ''),
      runFilterProgram('function filter(t) { return re_sub("x", "y", t); }', 'xx', ''),
      runFilterProgram('function filter(t) { throw new Error("no"); }', 'd', ''),
    ]);
    expect(runs.map((r) => (r.ok ? r.text : r.reason))).toEqual([
      'a1',
      'program timed out after 500 ms',
      'qc',
      text(await runFilterProgram(LINE_FILTER, LOG, '')),
      'yy',
      'program threw: Error: no',
    ]);
  });

  it('compiles a pattern once, so a per-line call on 100k lines stays fast', async () => {
    const input = Array.from({ length: 100_000 }, (_, i) => `${i}`).join('\n');
    const r = await runFilterProgram(
      `function filter(t) { return String(t.split('\\n').filter((l) => re_match('7$', l)).length); }`,
      input,
      '',
    );
    expect(text(r)).toBe('10000');
  });

  it('is stopped by the default 2 s limit when it loops forever', async () => {
    const r = await runFilterProgram('function filter(t) { for (;;) {} }', 'x', '');
    expect(r).toMatchObject({ ok: false, reason: 'program timed out after 2000 ms' });
    // It had its whole budget, on its own CPU time (Linux reports it; elsewhere the wall is used).
    if (process.platform === 'linux') expect(r.cpuMs).toBeGreaterThanOrEqual(2000);
    await expectHealthy();
  });

  it('is held to the memoryBytes limit, which the larger default allows', async () => {
    const program =
      "function filter(t) { const a = []; for (let i = 0; i < 40; i++) a.push('x'.repeat(1e6) + i); return String(a.length); }";
    const limits = { timeoutMs: 5000 };
    expect(text(await runFilterProgram(program, '', '', limits))).toBe('40');
    expect(await reasonOf(program, '', { ...limits, memoryBytes: 32 * 1024 * 1024 })).toBe(
      'program ran out of memory',
    );
  });
});

describe('a misbehaving program, every way', () => {
  it.each([
    ['loops at the top level', 'return t; } for (;;) {} function g() {'],
    ['backtracks catastrophically in a native regex', 'return String(/(a+)+$/.test("a".repeat(40) + "b"));'],
    [
      'keeps calling a helper, swallowing its errors',
      'for (;;) { try { re_sub("a", "b", "a".repeat(1e5)); } catch {} }',
    ],
  ])('times out when it %s', async (_, body) => {
    const r = await runFilterProgram(`function filter(t) { ${body} }`, 'x', 'q', FAST);
    expect(r).toMatchObject({ ok: false, reason: 'program timed out after 500 ms' });
    if (r.cpuMs !== undefined) expect(r.cpuMs).toBeGreaterThanOrEqual(500);
    await expectHealthy();
  });

  it.each([
    ['pushing small objects', 'let a = []; for (let i = 0; ; i++) a.push({ i, s: String(i) });'],
    ['allocating array buffers', 'let a = []; for (;;) a.push(new ArrayBuffer(1e7));'],
  ])('runs out of memory %s', async (_, body) => {
    expect(await reasonOf(`function filter(t) { ${body} }`, 'x', { timeoutMs: 5000 })).toBe(
      'program ran out of memory',
    );
    await expectHealthy();
  });

  it('overflows the stack nesting data natively', async () => {
    const body = 'let a = []; for (let i = 0; i < 1e5; i++) a = [a]; return String(a);';
    expect(await reasonOf(`function filter(t) { ${body} }`)).toBe('program overflowed the stack');
    await expectHealthy();
  });
});
