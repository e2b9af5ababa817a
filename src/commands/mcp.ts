/**
 * `cg mcp`: runs cg as a stdio MCP server (tools cg_expand, cg_compress, cg_stats; see mcp/tools.ts)
 * until the client closes stdin. Markers it writes carry a hint naming the cg_expand tool instead of
 * the shell command, unless the config sets its own `store.hint`. Its work is recorded in the stats
 * ledger under one session: $CG_SESSION, else an id made up at start (`mcp-…`). Started at a
 * terminal (stdin a TTY) it serves nothing: it says how to register it with a client, exit 2.
 */
import { type CgConfig, loadConfig } from '../config.js';
import { openDoor } from '../door.js';
import { newTally } from '../mcp/stats.js';
import { DEFAULT_HINT } from '../store/marker.js';
import { isTerminal } from '../terminal.js';

declare const CG_VERSION: string;

/** The hint after a marker, for a model that reaches cg through MCP rather than a shell. */
export const MCP_HINT = ' [full output: cg_expand key={key}]';

export interface McpFlags {
  config?: string;
}

/** The config with the MCP hint in place of the shell one, unless the user chose their own. */
export function mcpConfig(config: CgConfig): CgConfig {
  return config.store.hint === DEFAULT_HINT
    ? { ...config, store: { ...config.store, hint: MCP_HINT } }
    : config;
}

export async function mcpCommand(flags: McpFlags, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (isTerminal(0)) {
    const [{ mcpUsage }, { selfCommand }] = await Promise.all([
      import('./terminal-stdin.js'),
      import('./init.js'),
    ]);
    process.stderr.write(mcpUsage(selfCommand()));
    return 2;
  }
  const config = mcpConfig(await loadConfig(flags.config, env));
  const session = env.CG_SESSION || `mcp-${Date.now().toString(36)}-${process.pid.toString(36)}`;
  const { serveMcp } = await import('../mcp/server.js');
  const { store, filters } = openDoor(config, { env });
  await serveMcp(
    {
      config,
      store,
      filters,
      session,
      tally: newTally(),
      env,
    },
    { version: typeof CG_VERSION === 'string' ? CG_VERSION : '0.0.0-dev' },
  );
  return 0;
}
