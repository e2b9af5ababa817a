/**
 * Outputs that never change, whatever the component (DESIGN invariant 5): text that is not
 * well-formed (binary, invalid UTF-8: the reader marks it not rewritable) and `cg expand` output,
 * which is what a marker stood for — by the command, or by the tool's name under any host's MCP
 * prefix (Claude Code calls it `mcp__cg__cg_expand`; compacted again, the model would read the
 * marker it asked to open). The gates close on it (gates.ts), and a replayed slot starts
 * from such an output's own text, never from a pin (slots.ts).
 */
import type { ToolOutput } from '../input/transcript.js';

const CG_EXPAND = /^\s*(?:\S*\/)?cg\s+expand\b/;
const CG_EXPAND_TOOL = /(?:^|[_.:-])cg_expand$/;

/** Why an output never changes, or undefined. */
export function alwaysVerbatim(o: ToolOutput): string | undefined {
  if (!o.rewritable) return 'verbatim content';
  if (
    (o.command !== undefined && CG_EXPAND.test(o.command)) ||
    (o.toolName !== undefined && CG_EXPAND_TOOL.test(o.toolName))
  )
    return 'cg expand output';
  return undefined;
}
