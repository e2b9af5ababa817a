/**
 * Where the store lives (DESIGN §5): `CG_STORE_DIR` if set, else `$XDG_CACHE_HOME/cg/store`, else
 * `~/.cache/cg/store`. Always returns an absolute path, so `cg store path` means the same thing from
 * any working directory.
 */
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export function resolveStoreDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.CG_STORE_DIR;
  if (explicit) return resolve(explicit);
  // The XDG spec says a relative value is invalid and must be ignored, not resolved against the cwd.
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'cg', 'store');
  return join(homedir(), '.cache', 'cg', 'store');
}
