/**
 * `mkdir -p` that always ends: each missing directory is made once, parents first, and any error
 * the system gives is thrown as it is. Node's own recursive mkdir retries for ever where making a
 * directory fails with ENOENT under a parent that exists (under /proc: CG_STORE_DIR=/proc/x/store
 * hung every cg run); here such a path fails once, like any other place cg cannot write, and the
 * caller's fail-open path takes it (a run without its store, a state file not written).
 * An existing directory, or a link to one, is success, as with mkdir -p.
 */
import { mkdirSync, statSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

const codeOf = (err: unknown) => (err as NodeJS.ErrnoException).code;

export function makeDirsSync(path: string, mode = 0o700): void {
  const dir = resolve(path);
  try {
    mkdirSync(dir, { mode });
  } catch (err) {
    if (codeOf(err) === 'EEXIST' && statSync(dir).isDirectory()) return;
    const parent = dirname(dir);
    if (codeOf(err) !== 'ENOENT' || parent === dir) throw err;
    makeDirsSync(parent, mode);
    try {
      mkdirSync(dir, { mode });
    } catch (again) {
      if (codeOf(again) === 'EEXIST' && statSync(dir).isDirectory()) return; // another process made it
      throw again;
    }
  }
}

export async function makeDirs(path: string, mode = 0o700): Promise<void> {
  const dir = resolve(path);
  try {
    await mkdir(dir, { mode });
  } catch (err) {
    if (codeOf(err) === 'EEXIST' && (await stat(dir)).isDirectory()) return;
    const parent = dirname(dir);
    if (codeOf(err) !== 'ENOENT' || parent === dir) throw err;
    await makeDirs(parent, mode);
    try {
      await mkdir(dir, { mode });
    } catch (again) {
      if (codeOf(again) === 'EEXIST' && (await stat(dir)).isDirectory()) return;
      throw again;
    }
  }
}
