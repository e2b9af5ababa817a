/**
 * Whether a client can open a marker itself, read from the tools its request offers the model:
 * a shell-like tool (the model can run `cg expand KEY`) or a cg_expand of its own (`cg mcp`, under
 * whatever prefix the host gives MCP tools: `mcp__cg__cg_expand`). Names are matched by their
 * words, so the coding agents' shells — Bash, shell, exec_command, run_shell_command,
 * run_terminal_cmd, execute_command, a Responses `local_shell` or `shell` tool, Anthropic's
 * `bash_…` tool type — all count, and a tool that merely mentions a command does not.
 */
import { arrayAt, stringAt } from '../../json/payload.js';
import type { Format } from './body-map.js';
import { EXPAND_TOOL } from './tool.js';

/** A word in a tool's name that makes it a shell. */
const SHELL_WORDS = new Set(['bash', 'shell', 'sh', 'zsh', 'terminal', 'powershell', 'pwsh']);
/** Whole names of shells whose words alone say less. */
const SHELL_NAMES = new Set([
  'exec_command',
  'execute_command',
  'run_command',
  'run_terminal_cmd',
  'run_terminal_command',
  'exec',
]);

function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/** Whether a tool name is a shell's. */
export function isShellName(name: string): boolean {
  const lower = name.toLowerCase();
  return SHELL_NAMES.has(lower) || words(name).some((w) => SHELL_WORDS.has(w));
}

/** Whether a tool name is a cg_expand (cg's MCP tool under any host prefix, or the proxy's own). */
export function isExpandName(name: string): boolean {
  return name === EXPAND_TOOL || /(?:^|[_.:-])cg_expand$/.test(name);
}

/** The name and type of each tool a request offers, in its format's shape. */
export function toolNames(tools: unknown, format: Format): { name?: string; type?: string }[] {
  return (arrayAt(tools) ?? []).map((t) => {
    const name = (format === 'openai' ? stringAt(t, 'function', 'name') : undefined) ?? stringAt(t, 'name');
    const type = stringAt(t, 'type');
    return {
      ...(name !== undefined ? { name } : {}),
      ...(type !== undefined ? { type } : {}),
    };
  });
}

export interface ClientTools {
  /** A shell-like tool is offered. */
  shell: boolean;
  /** A cg_expand of the client's own is offered (the proxy's name is taken). */
  expand: boolean;
}

export function clientTools(tools: unknown, format: Format): ClientTools {
  let shell = false;
  let expand = false;
  for (const { name, type } of toolNames(tools, format)) {
    if (name !== undefined && isExpandName(name)) expand = true;
    if (
      (name !== undefined && isShellName(name)) ||
      (type !== undefined && /^(?:local_shell|shell|bash_)/.test(type))
    )
      shell = true;
  }
  return { shell, expand };
}
