/**
 * The names of the agent hosts cg integrates with, alone, so that the CLI can offer them as
 * choices without loading any host's tables (start-up path). The tables are in index.ts.
 */

export const HOST_NAMES = ['claude', 'codex', 'gemini', 'opencode'] as const;

export type HostName = (typeof HOST_NAMES)[number];

/** Hosts cg reaches through `cg wrap` only (none now: OpenCode got its plugin hook). */
export const WRAP_ONLY_HOST_NAMES: readonly string[] = [];

/** Any host cg knows, by any door. */
export type AnyHostName = HostName;

/** "claude, codex or gemini" — the names as a sentence, for help texts. */
export function hostNamesSentence(extra: readonly string[] = []): string {
  const all = [...HOST_NAMES, ...extra];
  return all.length > 1 ? `${all.slice(0, -1).join(', ')} or ${all[all.length - 1]}` : all.join('');
}

export function isHostName(name: string | undefined): name is HostName {
  return (HOST_NAMES as readonly (string | undefined)[]).includes(name);
}
