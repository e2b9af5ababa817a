/**
 * Where the stats ledger lives and how big it may grow. Inside the state directory (src/state-dir.ts):
 *
 *   ledger.jsonl                      the live ledger, appended to by every cg process
 *   ledger.<stamp>.jsonl              rotated ledgers (read like the live one, oldest removed first)
 *   pending/<run>.pend                runs whose token counts are still to be made (see pending.ts)
 *   stats-cache/<filter>.v8           checkpoints of what `cg stats` read (read-cache.ts)
 *
 * Limits come from the environment so tests and users can shrink or grow them without a config
 * file: CG_STATS_ROTATE_MB (16) and CG_STATS_KEEP (4 rotated files). `CG_STATS=0` (or off/false)
 * turns recording off altogether; CG_STATS_CACHE=0 makes every report read the whole ledger.
 */
import { join } from 'node:path';
import { resolveStateDir, stateDirProblem } from '../state-dir.js';

// Kept for the proxy's observe directory, which still imports it from here.
export { resolveStateDir } from '../state-dir.js';

export interface LedgerLocation {
  dir: string;
  live: string;
  pending: string;
  /** Rotate the live ledger once it is larger than this. */
  rotateBytes: number;
  /** How many rotated ledgers to keep. */
  keep: number;
  /** Where reports keep their checkpoints, and the least ledger worth one; none: read it all. */
  checkpoint?: Checkpointing;
}

export interface Checkpointing {
  dir: string;
  minBytes: number;
}

/** Below this a ledger reads in a few milliseconds: a checkpoint would cost more than it saves. */
export const CHECKPOINT_MIN_BYTES = 1024 * 1024;

const MB = 1024 * 1024;
export const DEFAULT_ROTATE_MB = 16;
export const DEFAULT_KEEP = 4;
export const LIVE_NAME = 'ledger.jsonl';
/** ledger.jsonl and ledger.<stamp>.jsonl: every file a reader covers. */
export const LEDGER_FILE_RE = /^ledger(?:\.[0-9a-z-]+)?\.jsonl$/;

export function ledgerLocation(env: NodeJS.ProcessEnv = process.env): LedgerLocation {
  const dir = resolveStateDir(env);
  return {
    dir,
    live: join(dir, LIVE_NAME),
    pending: join(dir, 'pending'),
    rotateBytes: Math.max(1024, Math.round(positive(env.CG_STATS_ROTATE_MB, DEFAULT_ROTATE_MB) * MB)),
    keep: Math.max(1, Math.floor(positive(env.CG_STATS_KEEP, DEFAULT_KEEP))),
    ...(off(env.CG_STATS_CACHE)
      ? {}
      : { checkpoint: { dir: join(dir, 'stats-cache'), minBytes: CHECKPOINT_MIN_BYTES } }),
  };
}

/** Whether this process should record anything at all (not when there is nowhere to record it). */
export function statsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return !off(env.CG_STATS) && stateDirProblem(env) === undefined;
}

function off(raw: string | undefined): boolean {
  const v = raw?.trim().toLowerCase();
  return v === '0' || v === 'off' || v === 'false' || v === 'no';
}

function positive(raw: string | undefined, fallback: number): number {
  const n = raw === undefined ? Number.NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}
