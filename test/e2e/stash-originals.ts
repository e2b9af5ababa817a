// Originals laid out in a store the way cg writes them, and the many-markers case, for the expand tests.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { cgAsync } from './run-cg.js';

/** Stashes originals the way the store lays them out (DESIGN §5: store/ab/abcdef…, small ones raw). */
export function stash(store: string, originals: readonly string[]): string[] {
  return originals.map((text) => {
    const key = createHash('sha256').update(text).digest('hex').slice(0, 16);
    mkdirSync(join(store, key.slice(0, 2)), { recursive: true, mode: 0o700 });
    writeFileSync(join(store, key.slice(0, 2), key), text, { mode: 0o600 });
    return key;
  });
}

/**
 * `cg expand` on a piped text holding `n` markers (and the first lines again): each key expanded
 * once, in the order it first appears.
 */
export async function expectExpandsMarkers(store: string, n: number): Promise<void> {
  const originals = Array.from({ length: n }, (_, i) => `original ${i}\n`);
  const keys = stash(store, originals);
  const input = keys.map((k, i) => `line ${i}: <<cg:${k}>> [full output: cg expand ${k}]\n`).join('');
  const r = await cgAsync(['expand'], { input: input + input.slice(0, 1000), storeDir: store });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.out).toBe(keys.map((k, i) => `=== cg expand ${k} ===\n${originals[i]}`).join(''));
}
