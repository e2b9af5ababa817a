/**
 * Codex's PreToolUse hook protocol: the shell call in its JSON on stdin, and the JSON that
 * rewrites it. Codex sends `{session_id, cwd, hook_event_name: "PreToolUse", tool_name: "Bash",
 * tool_input: {command}, turn_id, model, tool_use_id}` for its shell tool. It applies
 * `updatedInput` only together with `permissionDecision: "allow"` (without it the hook counts as
 * failed and the call runs unchanged); there, "allow" means "not blocked" — the call still goes
 * through Codex's own approval and sandbox — so it widens nothing. The answer carries the whole
 * tool_input with only `command` changed. The call itself is read by hook/shell-call.ts.
 */
import type { ShellCall } from '../hook/shell-call.js';

/** The hook's answer: the same tool input with the command replaced, as one JSON line. */
export function rewriteAnswer(call: ShellCall, command: string): string {
  const updatedInput = { ...call.toolInput, command };
  const output = { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput };
  return `${JSON.stringify({ hookSpecificOutput: output })}\n`;
}
