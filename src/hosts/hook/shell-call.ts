/**
 * The shell call in a PreToolUse payload, as Claude Code and Codex both send it:
 * `{session_id, cwd, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: {command, …}}`
 * (Codex reports its shell tools by the canonical "Bash" too), and how a rewrite names the cg
 * that is running the hook. Each host's answer shape stays in its own folder.
 */

import { filledStringAt, isObject, objectAt, stringAt } from '../../json/payload.js';
import { shellQuote } from '../../run/quote.js';

/** The shell tool's name in the payload. */
const SHELL_TOOL = 'Bash';

export interface ShellCall {
  command: string;
  /** The tool input as received: the rewrite keeps every other field. */
  toolInput: Record<string, unknown>;
  cwd?: string;
  session?: string;
}

/** The shell call in a PreToolUse payload, or undefined when it is anything else. */
export function readShellCall(payload: unknown): ShellCall | undefined {
  if (!isObject(payload)) return undefined;
  const event = payload.hook_event_name;
  if (event !== undefined && event !== 'PreToolUse') return undefined;
  if (payload.tool_name !== SHELL_TOOL) return undefined;
  const input = objectAt(payload, 'tool_input');
  const command = stringAt(input, 'command');
  if (!input || command === undefined) return undefined;
  // A call the agent sent to the background has no output to compact now.
  if (input.run_in_background === true) return undefined;
  const cwd = filledStringAt(payload, 'cwd');
  const session = filledStringAt(payload, 'session_id');
  return {
    command,
    toolInput: input,
    ...(cwd !== undefined ? { cwd } : {}),
    ...(session !== undefined ? { session } : {}),
  };
}

/** `'/usr/bin/node' '/…/bin/cg.js'`: the cg that is running this hook. */
export function selfInvocation(): string {
  const script = process.argv[1];
  return script ? `${shellQuote(process.execPath)} ${shellQuote(script)}` : 'cg';
}
