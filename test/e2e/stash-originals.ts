// Originals laid out in a store the way cg writes them, for the expand tests.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Stashes originals the way the store lays them out (DESIGN §5: store/ab/abcdef…, small ones raw). */
export function stash(store: string, originals: readonly string[]): string[] {
  return originals.map((text) => {
    const key = createHash('sha256').update(text).digest('hex').slice(0, 16);
    mkdirSync(join(store, key.slice(0, 2)), { recursive: true, mode: 0o700 });
    writeFileSync(join(store, key.slice(0, 2), key), text, { mode: 0o600 });
    return key;
  });
}
