/**
 * Where the store lives (DESIGN §5): `CG_STORE_DIR` if set, else `$XDG_CACHE_HOME/cg/store`, else
 * `~/.cache/cg/store`. Always returns an absolute path, so `cg store path` means the same thing from
 * any working directory. The last is never made under a home directory that does not exist
 * (home.ts): storeDirProblem says so, and the store is then none at all (no-store.ts).
 */
import { isAbsolute, join, resolve } from 'node:path';
import { homelessDefault, homeOf } from '../home.js';

export function resolveStoreDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.CG_STORE_DIR;
  if (explicit) return resolve(explicit);
  // The XDG spec says a relative value is invalid and must be ignored, not resolved against the cwd.
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'cg', 'store');
  return join(homeOf(env), '.cache', 'cg', 'store');
}

/** Why the store location resolveStoreDir gives cannot be used (it hangs from a missing home). */
export function storeDirProblem(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return homelessDefault(env, 'CG_STORE_DIR', 'XDG_CACHE_HOME');
}
