/** What sandbox.test.ts and sandbox.slow.test.ts share: limits, checks and a realistic log. */
import { expect } from 'vitest';
import { runFilterProgram, type SandboxLimits, type SandboxResult } from '../../../src/llm/sandbox.js';

/** Short limits keep the failure cases fast; one test checks the default 2 s separately. */
export const FAST = { timeoutMs: 500 };

export function text(r: SandboxResult): string {
  if (!r.ok) throw new Error(`expected ok, got: ${r.reason}`);
  return r.text;
}

export async function reasonOf(
  program: string,
  input = 'x',
  limits: Partial<SandboxLimits> = FAST,
): Promise<string> {
  const r = await runFilterProgram(program, input, 'q', limits);
  if (r.ok) throw new Error(`expected a failure, got ok: ${r.text.slice(0, 100)}`);
  expect(r.reason).not.toContain('\n');
  return r.reason;
}

/** Runs a normal program: the process and the sandbox still work after whatever came before. */
export async function expectHealthy(): Promise<void> {
  const r = await runFilterProgram('function filter(t, q) { return t.toUpperCase() + q; }', 'ok ', '!');
  expect(text(r)).toBe('OK !');
}

export const LOG = [
  '2024-05-01T10:00:00Z INFO  server started on :8080',
  '2024-05-01T10:00:01Z DEBUG loaded 42 routes',
  '2024-05-01T10:00:02Z ERROR db: connection refused (retry 1/3)',
  '2024-05-01T10:00:03Z INFO  GET /health 200 1ms',
  'test/api.spec.ts > returns 404 for a missing user FAIL',
  '2024-05-01T10:00:04Z WARN  slow query: 1200ms',
  '2024-05-01T10:00:05Z ERROR db: connection refused (retry 2/3)',
  'Tests: 1 failed, 41 passed, 42 total',
].join('\n');

export const LINE_FILTER = `
function filter(text, query) {
  return text.split('\\n').filter((line) => re_match('ERROR|FAIL', line)).join('\\n');
}`;
