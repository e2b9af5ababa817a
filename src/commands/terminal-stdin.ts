/**
 * What cg says instead of waiting when standard input is a terminal and the command reads it as
 * data. Bare `cg` (the filter) and `cg mcp` (a stdio server for a client to start) read stdin to
 * its end; typed at a prompt with nothing piped in they would sit there silently until Ctrl-D.
 * Like `jq` with no input, they print a short usage on stderr and exit 2 instead: a filter fed by
 * a person's keyboard is never what was meant, and anyone who does mean it can write `cat | cg`.
 */
import { HOSTS } from '../hosts/index.js';

export const FILTER_USAGE = `cg: nothing is piped in (stdin is a terminal): cg is a filter for command output
usage:
  cmd | cg                  compact cmd's output, stashing what it drops
  cg run -- cmd [args…]     run cmd and compact its output; the exit code is cmd's own
  cg expand KEY             print an original behind <<cg:KEY>>, byte for byte
  cg init claude            let an agent's tool output go through cg (also codex, gemini)
  cg --help                 every command and option
`;

/** How to register `cg mcp` with each host, `cg` being how the host should run cg. */
export function mcpUsage(cg: string): string {
  return [
    'cg mcp: an MCP server on stdio, for an MCP client to start (stdin is a terminal: nothing to serve)',
    'register it with a client:',
    ...HOSTS.map((h) => `  ${`${h.title}:`.padEnd(13)} ${h.mcpAdd(cg)}`),
    '',
  ].join('\n');
}
