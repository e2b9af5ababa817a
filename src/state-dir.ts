/**
 * cg's state directory: `CG_STATE_DIR` if set, else `$XDG_STATE_HOME/cg`, else `~/.local/state/cg`
 * (state, not cache: the ledger and session records are history the user would miss, the store is
 * re-creatable). The stats ledger (stats/paths.ts), session records (session/location.ts) and the
 * proxy's observe directory live under it.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { homelessDefault, homeOf } from './home.js';

export function resolveStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.CG_STATE_DIR;
  if (explicit) return resolve(explicit);
  // The XDG spec says a relative value is invalid and must be ignored, not resolved against the cwd.
  const xdg = env.XDG_STATE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'cg');
  return join(homeOf(env), '.local', 'state', 'cg');
}

/**
 * Why the state directory resolveStateDir gives cannot be used: it hangs from a home directory that
 * does not exist, which cg never creates. Nothing is then recorded (no ledger, no session records).
 */
export function stateDirProblem(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return homelessDefault(env, 'CG_STATE_DIR', 'XDG_STATE_HOME');
}
