/**
 * The agent hosts cg integrates with: a static list, one table per host (see host.ts).
 */
import { CLAUDE, CLAUDE_TOOLS } from './claude/host.js';
import { CODEX } from './codex/host.js';
import { GEMINI, GEMINI_TOOLS } from './gemini/host.js';
import type { Host, HostName, ToolShape } from './host.js';

export const HOSTS: readonly Host[] = [CLAUDE, CODEX, GEMINI];

export function hostNamed(name: string): Host | undefined {
  return HOSTS.find((h) => h.name === name);
}

/** The tools whose output a host lets cg replace after they ran (none for Codex). */
export function toolShapes(host: HostName): readonly ToolShape[] {
  return host === 'claude' ? CLAUDE_TOOLS : host === 'gemini' ? GEMINI_TOOLS : [];
}
