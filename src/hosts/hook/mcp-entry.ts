/**
 * cg's MCP server as a host's settings name it: an entry `{command, args}` that runs `cg mcp`
 * (`cg mcp`, `node …/cg.js mcp`), and the entry `cg init` writes for the cg running now. Shared by
 * the hosts whose hook hands output back through cg's MCP tools (Gemini CLI) or names them in its
 * marker hints (Claude Code).
 */
import { arrayAt, stringAt } from '../../json/payload.js';

/** An MCP server entry that runs `cg mcp`. */
export function isCgMcpEntry(v: unknown): boolean {
  const args = arrayAt(v, 'args');
  if (args?.at(-1) !== 'mcp') return false;
  const cg = (a: unknown) => typeof a === 'string' && /(^|\/)cg(\.js)?$/.test(a);
  return cg(stringAt(v, 'command')) || args.some(cg);
}

/** The MCP server entry that runs `cg mcp` through `invocation` (a quoted command line). */
export function cgMcpEntry(invocation: string): { command: string; args: string[]; trust: boolean } {
  const [command, ...args] = invocation
    .split(' ')
    .map((w) => w.replace(/^'(.*)'$/s, '$1').replaceAll(`'\\''`, "'"));
  return { command: command!, args: [...args, 'mcp'], trust: true };
}
