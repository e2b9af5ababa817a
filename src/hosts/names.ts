/**
 * The names of the agent hosts cg integrates with, alone, so that the CLI can offer them as
 * choices without loading any host's tables (start-up path). The tables are in index.ts.
 */

export const HOST_NAMES = ['claude', 'codex', 'gemini'] as const;

export type HostName = (typeof HOST_NAMES)[number];

/**
 * Hosts cg reaches through `cg wrap` only: OpenCode's plugin hooks do fire and can replace a
 * tool's output (checked on 1.18.33), but cg installs no plugin there yet, so it is no hook host.
 */
export const WRAP_ONLY_HOST_NAMES = ['opencode'] as const;

/** Any host cg knows, by any door. */
export type AnyHostName = HostName | (typeof WRAP_ONLY_HOST_NAMES)[number];

/** "claude, codex or gemini" — the names as a sentence, for help texts. */
export function hostNamesSentence(extra: readonly string[] = []): string {
  const all = [...HOST_NAMES, ...extra];
  return all.length > 1 ? `${all.slice(0, -1).join(', ')} or ${all[all.length - 1]}` : all.join('');
}

export function isHostName(name: string | undefined): name is HostName {
  return (HOST_NAMES as readonly (string | undefined)[]).includes(name);
}
