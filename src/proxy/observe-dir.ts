/**
 * Where `cg proxy --observe` keeps its state: a state directory of its own (`<state dir>/observe`,
 * with its own ledger and session records), so what would have been saved never mixes with what
 * was saved, and `cg stats --observed` reads it like any ledger.
 */
import { join } from 'node:path';
import { resolveStateDir } from '../stats/paths.js';

/** The environment with CG_STATE_DIR pointing at the observe state directory. */
export function observeEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, CG_STATE_DIR: join(resolveStateDir(env), 'observe') };
}
