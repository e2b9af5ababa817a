/**
 * mkdir -p that always ends: nested directories are made, an existing one is success, and a place
 * where no directory can be made fails once with the system's error — under /proc, where Node's
 * recursive mkdir never returns, included.
 */
import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDirs, makeDirsSync } from '../../src/make-dirs.js';
import { cg, seq } from '../e2e/run-cg.js';
import { tempDir } from '../helpers.js';

const root = tempDir('cg-make-dirs-');
afterAll(() => rmSync(root, { recursive: true, force: true }));
const PROC = existsSync('/proc/self');

describe('makeDirs', () => {
  it('makes every missing level with the mode given, and takes an existing directory', async () => {
    const sync = join(root, 'a', 'b', 'c');
    makeDirsSync(sync);
    expect(statSync(sync).mode & 0o777).toBe(0o700);
    makeDirsSync(sync);
    const async = join(root, 'x', 'y');
    await makeDirs(async);
    await makeDirs(async);
    expect(statSync(async).isDirectory()).toBe(true);
  });

  it('fails with the system error under a file', async () => {
    const file = join(root, 'file');
    writeFileSync(file, 'x');
    expect(() => makeDirsSync(join(file, 'd'))).toThrow(/ENOTDIR/);
    await expect(makeDirs(join(file, 'd', 'e'))).rejects.toThrow(/ENOTDIR/);
    expect(() => makeDirsSync(file)).toThrow(/EEXIST/);
  });

  it.skipIf(!PROC)('fails once under /proc instead of retrying for ever', async () => {
    expect(() => makeDirsSync('/proc/cg-none/store')).toThrow(/ENOENT/);
    await expect(makeDirs('/proc/cg-none/store')).rejects.toThrow(/ENOENT/);
  });

  it.skipIf(!PROC)('lets a cg run whose store is under /proc end with its output whole', () => {
    const input = seq(20_000);
    const r = cg(['--for-model'], { input, env: { CG_STORE_DIR: '/proc/cg-none/store' } });
    expect(r.code).toBe(0);
    expect(r.out).toBe(input);
  });
});
