/**
 * Codex's PreToolUse hook protocol: the shell call in its JSON on stdin, and the JSON that
 * rewrites it. Codex sends `{session_id, cwd, hook_event_name: "PreToolUse", tool_name: "Bash",
 * tool_input: {command}, turn_id, model, tool_use_id}` for its shell tool. It applies
 * `updatedInput` only together with `permissionDecision: "allow"` (without it the hook counts as
 * failed and the call runs unchanged); there, "allow" means "not blocked" — the call still goes
 * through Codex's own approval and sandbox — so it widens nothing. The answer carries the whole
 * tool_input with only `command` changed.
 */
import { filledStringAt, isObject, objectAt, stringAt } from '../hook/payload.js';

/** The shell tool's name in the payload: Codex reports its shell tools by the canonical "Bash". */
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

/** The hook's answer: the same tool input with the command replaced, as one JSON line. */
export function rewriteAnswer(call: ShellCall, command: string): string {
  const updatedInput = { ...call.toolInput, command };
  const output = { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput };
  return `${JSON.stringify({ hookSpecificOutput: output })}\n`;
}
