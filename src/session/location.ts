/**
 * Where session decision records live: `<state dir>/sessions/`, the state dir being the one the
 * stats ledger uses (CG_STATE_DIR, else $XDG_STATE_HOME/cg, else ~/.local/state/cg). State, not
 * cache: losing a record costs a provider cache miss, not data.
 */
import { join } from 'node:path';
import { resolveStateDir, stateDirProblem } from '../state-dir.js';

/** Undefined when the state directory hangs from a home that does not exist: no records then. */
export function sessionsDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return stateDirProblem(env) ? undefined : join(resolveStateDir(env), 'sessions');
}
