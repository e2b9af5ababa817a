/**
 * A home directory that does not exist is never created (src/home.ts): the default store under it
 * is no store at all (lossless rewrites only, said once), and nothing is recorded under the default
 * state directory; locations the environment names are used as ever.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { defaultConfig } from '../../../src/config.js';
import { statsEnabled } from '../../../src/stats/paths.js';
import { openStore } from '../../../src/store/open.js';
import { tempDir } from '../../helpers.js';

const missing = () => join(tempDir('cg-homeless-'), 'nonexistent');

describe('the store under a home directory that does not exist', () => {
  it('stashes nothing, says why once, and never creates the home', async () => {
    const home = missing();
    const warn = vi.fn();
    const store = openStore(defaultConfig().store, { HOME: home }, warn);
    expect(store.dir).toBe(join(home, '.cache', 'cg', 'store'));
    expect(await store.writable()).toBe(false);
    expect(await store.writable()).toBe(false);
    expect(warn.mock.calls).toEqual([
      [
        `no store (the home directory ${home} does not exist); lossless rewrites only: set CG_STORE_DIR to keep originals`,
      ],
    ]);
    expect(await store.put('an original')).toMatchObject({ ok: false, reason: 'disabled' });
    expect(await store.read!('0123456789abcdef')).toMatchObject({ found: false, why: 'unavailable' });
    expect(existsSync(home)).toBe(false);
  });

  it('uses CG_STORE_DIR or an absolute XDG_CACHE_HOME as ever', async () => {
    const home = missing();
    const dir = tempDir('cg-named-');
    for (const env of [{ CG_STORE_DIR: join(dir, 'a') }, { XDG_CACHE_HOME: join(dir, 'b') }]) {
      const store = openStore(defaultConfig().store, { HOME: home, ...env }, vi.fn());
      expect(await store.writable()).toBe(true);
      expect(await store.put('kept')).toMatchObject({ ok: true });
    }
    expect(existsSync(home)).toBe(false);
  });

  it('records no stats under it, unless the state directory is named', () => {
    const home = missing();
    expect(statsEnabled({ HOME: home })).toBe(false);
    expect(statsEnabled({ HOME: home, CG_STATE_DIR: tempDir() })).toBe(true);
    expect(statsEnabled({ HOME: tempDir() })).toBe(true);
  });
});
