/**
 * cg's MCP server in Gemini CLI's settings.json, which the AfterTool hook needs (it hands output
 * back through cg_expand, tools/ says why): `cg init gemini` registers it as "cg" beside the hook
 * and takes it out again on --uninstall (only an entry that runs `cg mcp`); `cg doctor` checks it
 * is there and that hooks are enabled.
 */
import { cgMcpEntry, isCgMcpEntry } from '../hook/mcp-entry.js';
import { type Edit, removeMember, setMember, valueAt } from '../hook/settings.js';
import type { Place } from '../host.js';

/** The name cg's MCP server is registered under in Gemini CLI's settings (its tools: mcp_cg_…). */
export const GEMINI_MCP_SERVER = 'cg';

/** The settings text with cg's MCP server registered (or, uninstalling, removed). */
export async function geminiMcpEdit(text: string, uninstall: boolean, invocation: string): Promise<Edit> {
  const same: Edit = { ok: true, text, changed: false };
  const existing = text.trim() === '' ? undefined : await valueAt(text, ['mcpServers', GEMINI_MCP_SERVER]);
  if (uninstall) {
    if (!isCgMcpEntry(existing)) return same;
    return removeMember(text, 'mcpServers', GEMINI_MCP_SERVER);
  }
  if (existing !== undefined && !isCgMcpEntry(existing)) {
    return {
      ok: false,
      reason: `mcpServers.${GEMINI_MCP_SERVER} is already something else; rename it first`,
    };
  }
  const wanted = cgMcpEntry(invocation);
  if (JSON.stringify(existing) === JSON.stringify(wanted)) return same;
  return setMember(text, 'mcpServers', GEMINI_MCP_SERVER, wanted);
}

/** What keeps an installed Gemini CLI hook in `file` from working. */
export async function geminiProblems(file: string, _place: Omit<Place, 'scope'>): Promise<string[]> {
  const { readFileSync } = await import('node:fs');
  const text = readFileSync(file, 'utf8');
  const problems: string[] = [];
  if ((await valueAt(text, ['hooksConfig', 'enabled'])) === false) {
    problems.push(`hooks are disabled (hooksConfig.enabled is false in ${file})`);
  }
  if ((await valueAt(text, ['mcpServers', GEMINI_MCP_SERVER])) === undefined) {
    problems.push(
      `cg's MCP server is not registered as "${GEMINI_MCP_SERVER}" in ${file}: the hook hands output back through it (cg init gemini adds it)`,
    );
  }
  return problems;
}
