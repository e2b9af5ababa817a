/**
 * A store holding packs (a proxy's batch of originals in one file) beside loose entries (what every
 * cg before packs wrote, and what a single put still writes), through the CLI a user runs:
 * `cg expand`, `cg store info`, `cg store prune`, `cg store clear`.
 */
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACK_DIR } from '../../src/store/fs-pack.js';
import { createFsStore, entryPath, STORE_DEFAULTS } from '../../src/store/fs-store.js';
import { keyOf } from '../../src/store/keys.js';
import { tempDir } from '../helpers.js';
import { cg } from './run-cg.js';

const DAY = 86_400_000;
const originals = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => `${tag} result ${i} ✓ → \n`.repeat(3 + (i % 200)));

/** A store with one pack of 120 originals and one loose entry laid out as an older cg wrote it. */
async function mixedStore() {
  const dir = join(tempDir('cg-e2e-pack-'), 'store');
  const packed = originals(120, 'packed');
  const store = createFsStore({ dir, ...STORE_DEFAULTS });
  const results = await store.putMany!(packed.map((original) => ({ original })));
  expect(results.every((r) => r.ok)).toBe(true);
  expect(readdirSync(join(dir, PACK_DIR))).toHaveLength(1);
  const old = 'an older cg stored this, raw\n'.repeat(30);
  mkdirSync(join(dir, keyOf(old).slice(0, 2)), { recursive: true });
  writeFileSync(entryPath(dir, keyOf(old)), old, { mode: 0o600 });
  return { dir, packed, old };
}

describe('a store holding packs beside loose entries', () => {
  it('expands a packed original byte for byte, and an older loose entry too', async () => {
    const { dir, packed, old } = await mixedStore();
    for (const t of [packed[0]!, packed[77]!, packed[119]!, old]) {
      const r = cg(['expand', keyOf(t)], { storeDir: dir });
      expect(r.code).toBe(0);
      expect(r.stdout.equals(Buffer.from(t, 'utf8'))).toBe(true);
    }
    const several = cg(['expand'], {
      storeDir: dir,
      input: `<<cg:${keyOf(packed[3]!)}>> and <<cg:${keyOf(old)}>>`,
    });
    expect(several.code).toBe(0);
    expect(several.out).toContain(packed[3]!);
    expect(several.out).toContain(old);
  });

  it('says a key is missing when no pack or file holds it, and exits 1', async () => {
    const { dir } = await mixedStore();
    const r = cg(['expand', keyOf('never stored')], { storeDir: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/expired|never stored/);
  });

  it('counts every packed original in store info, and prune and clear take packs whole', async () => {
    const { dir, packed, old } = await mixedStore();
    const info = JSON.parse(cg(['store', 'info', '--json'], { storeDir: dir }).out);
    expect(info.entries).toBe(121);
    // Past the TTL: the pack goes whole; the fresh loose entry stays.
    const [pack] = readdirSync(join(dir, PACK_DIR));
    const longAgo = new Date(Date.now() - 30 * DAY);
    utimesSync(join(dir, PACK_DIR, pack!), longAgo, longAgo);
    const pruned = JSON.parse(cg(['store', 'prune', '--json'], { storeDir: dir }).out);
    expect(pruned).toMatchObject({ removed: 120, remaining: 1 });
    expect(cg(['expand', keyOf(packed[0]!)], { storeDir: dir }).code).toBe(1);
    expect(cg(['expand', keyOf(old)], { storeDir: dir }).out).toBe(old);
    const cleared = cg(['store', 'clear', '--yes', '--json'], { storeDir: dir });
    expect(cleared.code).toBe(0);
    expect(existsSync(join(dir, PACK_DIR))).toBe(false);
    expect(JSON.parse(cg(['store', 'info', '--json'], { storeDir: dir }).out).entries).toBe(0);
  });
});
