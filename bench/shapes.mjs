// Time linear in input size for every input shape (DESIGN §7, issue 13 item 7): 1 MB of each
// generated shape through `cg`, end to end, twice — with the default preset, and with collapse's
// max_tokens raised to 1,000,000, so that byte bounds cannot decide and the whole input is counted
// exactly. A shape that is one pre-token to the tokenizer (a line of one letter, unbroken CJK, a run
// of brackets) used to cost time quadratic in its length there (250 KB of 'a': 94 s).
// Budget: ≤ 1 s each here, judged on CPU time (wall time is printed too; it swings with the load).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { timedRun } from './timed.mjs';

const MB = 1024 * 1024;

/** A deterministic generator, so every run measures the same bytes. */
function random(seed) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

function pick(rnd, chars, n) {
  let out = '';
  for (let i = 0; i < n; i++) out += chars[Math.floor(rnd() * chars.length)];
  return out;
}

/** Each shape as roughly `bytes` of UTF-8. */
export function shapes(bytes = MB) {
  const rnd = random(42);
  const cjk = Array.from({ length: 3000 }, (_, i) => String.fromCharCode(0x4e00 + i)).join('');
  const mixed = [];
  let size = 0;
  while (size < bytes) {
    const part = [
      () =>
        `2024-01-01T00:00:00Z INFO request id=${Math.floor(rnd() * 1e9)} took=${Math.floor(rnd() * 999)}ms\n`,
      () => `${'a'.repeat(Math.floor(rnd() * 20_000))}\n`,
      () => `${pick(rnd, cjk, Math.floor(rnd() * 3000))}\n`,
      () => `${'['.repeat(5000)}${']'.repeat(5000)}\n`,
      () => `${Buffer.from(pick(rnd, 'abcdefghij', 6000)).toString('base64')}\n`,
      () => `${' '.repeat(Math.floor(rnd() * 8000))}x\n`,
    ][Math.floor(rnd() * 6)]();
    mixed.push(part);
    size += Buffer.byteLength(part);
  }
  return {
    'one line of a': `${'a'.repeat(bytes)}\n`,
    'CJK, no punctuation': `${pick(rnd, cjk, Math.floor(bytes / 3))}\n`,
    'brackets [[[…]]]': `${'['.repeat(bytes / 2)}${']'.repeat(bytes / 2)}`,
    'digits, one line': `${pick(rnd, '0123456789', bytes)}\n`,
    base64: `${Buffer.from(pick(rnd, 'abcdefghijklmnopqrstuvwxyz0123456789', Math.floor((bytes * 3) / 4))).toString('base64')}\n`,
    'spaces, one line': `${' '.repeat(bytes)}x\n`,
    mixed: mixed.join(''),
  };
}

/** Rows for bench/run.mjs: [label, time, what it did, budget]. */
export function benchShapes({ bin, env, bytes = MB }) {
  const work = mkdtempSync(join(tmpdir(), 'cg-bench-shapes-'));
  const rows = [];
  try {
    const exact = join(work, 'exact.yaml');
    writeFileSync(exact, 'components:\n  collapse: { max_tokens: 1000000 }\n');
    const runEnv = { ...env, CG_STORE_DIR: join(work, 'store'), CG_STATE_DIR: join(work, 'state') };
    const time = (text, args) => timedRun(bin, args, { input: text, env: runEnv });
    for (const [name, text] of Object.entries(shapes(bytes))) {
      const byDefault = time(text, []);
      const counted = time(text, ['--config', exact]);
      const worst = Math.max(byDefault.cpuMs, counted.cpuMs);
      rows.push([
        `cg on 1 MB: ${name}`,
        `${byDefault.ms.toFixed(0)} ms, cpu ${byDefault.cpuMs.toFixed(0)} ms (${Buffer.byteLength(text)} → ${byDefault.out} bytes)`,
        `counted exactly ${counted.ms.toFixed(0)} ms, cpu ${counted.cpuMs.toFixed(0)} ms`,
        `cpu ${(worst / 1000).toFixed(2)} of budget 1 s`,
      ]);
    }
    return rows;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
