/**
 * The agent hosts cg integrates with: one row per host (its folder's host.ts, see host.ts for what
 * a row holds). `cg init`, `cg hook`, `cg doctor`, `cg wrap`, `cg proxy` and `cg stats` iterate this
 * table; adding a host is one folder and one row here (and its name in names.ts, which the CLI
 * reads without loading any row).
 */
import { CLAUDE } from './claude/host.js';
import { CODEX } from './codex/host.js';
import { GEMINI } from './gemini/host.js';
import type { Host } from './host.js';
import type { HostLimit } from './limits.js';
import { OPENCODE } from './opencode/host.js';
import type { WrapOnlyHost } from './wrap.js';

export const HOSTS: readonly Host[] = [CLAUDE, CODEX, GEMINI, OPENCODE];

/** Hosts cg reaches by `cg wrap` only (no hook of cg's there): doctor says which door does. */
export const WRAP_ONLY_HOSTS: readonly WrapOnlyHost[] = [];

export function hostNamed(name: string): Host | undefined {
  return HOSTS.find((h) => h.name === name);
}

const BY_ALIAS = new Map(
  HOSTS.flatMap((h) => [h.name, h.stats.name, ...h.stats.aliases].map((a) => [a, h] as const)),
);

/** The host by any of its names (cg's, the recorded one, a CG_HOST alias; any case), or undefined. */
export function hostByAlias(name: string | undefined): Host | undefined {
  return name === undefined ? undefined : BY_ALIAS.get(name.toLowerCase());
}

/** What a host shows of a long output, by any of its names, or undefined for a host cg does not model. */
export function hostLimit(name: string | undefined): HostLimit | undefined {
  return hostByAlias(name)?.limit;
}
