// cg expand at scale: 60,000 markers in one piped text (the quadratic version needed minutes). In
// the slow set: 60,000 store files to write and remove are slow on a busy disk, and the fast set
// keeps the same property at 2,000 (expand.test.ts).
import { rmSync } from 'node:fs';
import { describe, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { expectExpandsMarkers } from './stash-originals.js';

describe('cg expand on piped text, at scale', () => {
  it('expands 60,000 markers piped in, each key once, in the order they first appear', async () => {
    const store = tempDir();
    await expectExpandsMarkers(store, 60_000);
    // Its 60,000 files go inside the test's own time, not the file's cleanup hook.
    rmSync(store, { recursive: true, force: true });
  }, 120_000);
});
