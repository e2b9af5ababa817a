/**
 * Claude Code's name for cg's MCP cg_expand tool, when `cg mcp` is registered with it (user scope in
 * ~/.claude.json, or this project's .mcp.json): the hook is then installed with `--mcp-tool` and
 * points marker hints at that tool.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isObject, objectAt } from '../../json/payload.js';
import { isCgMcpEntry } from '../hook/mcp-entry.js';
import type { Place } from '../host.js';

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

export function claudeMcpTool({ scope, cwd, home }: Place): string | undefined {
  const servers: unknown[] = [];
  if (scope === 'project') servers.push(readJson(join(cwd, '.mcp.json'))?.mcpServers);
  else {
    const user = readJson(join(home, '.claude.json'));
    servers.push(user?.mcpServers, objectAt(user, 'projects', cwd)?.mcpServers);
  }
  for (const list of servers) {
    if (!isObject(list)) continue;
    for (const [name, entry] of Object.entries(list)) {
      if (isCgMcpEntry(entry) && /^[A-Za-z0-9_-]+$/.test(name)) return `mcp__${name}__cg_expand`;
    }
  }
  return undefined;
}
