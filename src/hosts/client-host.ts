/**
 * Which agent host sent a request, from its own headers, for the stats ledger (`cg stats` by host):
 * Claude Code's user-agent is `claude-cli/VERSION (…)`; Codex sends `originator: codex_cli_rs` (or
 * codex_exec, codex_vscode …) and a user-agent starting with it; Gemini CLI's user-agent names
 * `GeminiCLI`. Anything else is no host (the ledger then says nothing rather than guess).
 */

import { rawHeader } from '../proxy/headers.js';
import type { HostName } from '../stats/hosts.js';

export function clientHost(rawHeaders: readonly string[]): HostName | undefined {
  const agent = rawHeader(rawHeaders, 'user-agent') ?? '';
  const originator = rawHeader(rawHeaders, 'originator') ?? '';
  if (/^claude-cli\//i.test(agent)) return 'claude-code';
  if (/^codex/i.test(originator) || /^codex/i.test(agent)) return 'codex';
  if (/GeminiCLI/i.test(agent)) return 'gemini';
  return undefined;
}
