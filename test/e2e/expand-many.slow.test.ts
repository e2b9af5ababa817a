// cg expand at scale: 60,000 markers in one piped text (the quadratic version needed minutes). In
// the slow set: 60,000 store files to write and remove are slow on a busy disk, and the fast set
// keeps the same property at 2,000 (expand.test.ts).
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { cgAsync } from './run-cg.js';
import { stash } from './stash-originals.js';

describe('cg expand on piped text, at scale', () => {
  it('expands 60,000 markers piped in, each key once, in the order they first appear', async () => {
    const store = tempDir();
    const originals = Array.from({ length: 60_000 }, (_, i) => `original ${i}\n`);
    const keys = stash(store, originals);
    const input = keys.map((k, i) => `line ${i}: <<cg:${k}>> [full output: cg expand ${k}]\n`).join('');
    const r = await cgAsync(['expand'], { input: input + input.slice(0, 1000), storeDir: store });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toBe(keys.map((k, i) => `=== cg expand ${k} ===\n${originals[i]}`).join(''));
    // Its 60,000 files go inside the test's own time, not the file's cleanup hook.
    rmSync(store, { recursive: true, force: true });
  }, 120_000);
});
